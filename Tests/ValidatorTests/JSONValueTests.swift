import Testing
import Validator

@Test func boolAndIntegerAreDistinct() {
    #expect(JSONValue.bool(true) != JSONValue.int(1))
    #expect(JSONValue.bool(false) != JSONValue.int(0))
}
