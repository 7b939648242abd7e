import Testing
@testable import APILayer
