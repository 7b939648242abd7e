import Testing
@testable import Templater
