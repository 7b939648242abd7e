import Testing
@testable import NetOps
