import NetOps
import Validator
import Templater
import Mapper

/// The facade a service calls: static members only.
public enum APIManager {}
