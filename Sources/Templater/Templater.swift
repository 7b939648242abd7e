import Foundation
import Validator

/// Sample responses (templates) on disk and in memory, named after API methods.
public enum Templater {}
