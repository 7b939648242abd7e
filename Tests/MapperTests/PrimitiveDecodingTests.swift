import Foundation
import Testing

@testable import Mapper

/// Every primitive `decode` of the three containers (keyed, unkeyed, single value): the value it
/// reads, and each way it fails (wrong type, null, a number that does not fit), with the error's
/// case and coding path, checked against the expected outcome and against `JSONDecoder`.
struct PrimitiveDecodingTests {
    /// The primitives the containers have a `decode` of their own for.
    enum Primitive: String, CaseIterable, Sendable {
        case bool, string, double, float
        case int, int8, int16, int32, int64
        case uint, uint8, uint16, uint32, uint64
    }

    /// Where the primitive is read from.
    enum Position: String, CaseIterable, Sendable {
        /// `{"value": …}`, read with `decode(_:forKey:)`.
        case keyed
        /// `[…]`, read with the unkeyed container's `decode(_:)`.
        case unkeyed
        /// `…`, read with the single-value container's `decode(_:)`.
        case single

        func wrap(_ json: String) -> String {
            switch self {
            case .keyed: #"{"value": \#(json)}"#
            case .unkeyed: "[\(json)]"
            case .single: json
            }
        }

        /// The coding path of the value in `wrap`.
        var path: [String] {
            switch self {
            case .keyed: ["value"]
            case .unkeyed: ["#0"]
            case .single: []
            }
        }
    }

    /// What reading one JSON literal as one primitive must give.
    enum Expected: Sendable {
        case value(String)
        case mismatch
        case null
        case doesNotFit
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let primitive: Primitive
        let json: String
        let expected: Expected
        var testDescription: String { "\(primitive.rawValue) from \(json)" }

        /// `expected` at `position`, for `type` (the name Swift prints for the primitive).
        func outcome(at position: Position, type: String) -> Outcome {
            switch expected {
            case let .value(value): .value(value)
            case .mismatch: .typeMismatch(type, path: position.path)
            case .null: .valueNotFound(type, path: position.path)
            case .doesNotFit: .dataCorrupted(path: position.path)
            }
        }
    }

    /// Wrong types and null, for every primitive.
    static let wrongTypes: [Case] = Primitive.allCases.flatMap { primitive -> [Case] in
        let wrong = primitive == .string ? "12" : #""12""#
        return [
            Case(primitive: primitive, json: "null", expected: .null),
            Case(primitive: primitive, json: wrong, expected: .mismatch),
            Case(primitive: primitive, json: "[]", expected: .mismatch),
            Case(primitive: primitive, json: "{}", expected: .mismatch),
            Case(primitive: primitive, json: primitive == .bool ? "1" : "true", expected: .mismatch),
        ]
    }

    /// Each integer width's bounds, one past them, fractions and integral doubles.
    static let integers: [Case] = [
        integerCases(.int, Int.self), integerCases(.int8, Int8.self), integerCases(.int16, Int16.self),
        integerCases(.int32, Int32.self), integerCases(.int64, Int64.self), integerCases(.uint, UInt.self),
        integerCases(.uint8, UInt8.self), integerCases(.uint16, UInt16.self), integerCases(.uint32, UInt32.self),
        integerCases(.uint64, UInt64.self),
    ].flatMap { $0 }

    static func integerCases<T: FixedWidthInteger>(_ primitive: Primitive, _ type: T.Type) -> [Case] {
        var cases = [
            Case(primitive: primitive, json: "\(T.min)", expected: .value("\(T.min)")),
            Case(primitive: primitive, json: "1.5", expected: .doesNotFit),
            Case(primitive: primitive, json: "-0.5", expected: .doesNotFit),
            Case(primitive: primitive, json: "1e30", expected: .doesNotFit),
            Case(primitive: primitive, json: "12.0", expected: .value("12")),
            Case(primitive: primitive, json: "1.2e1", expected: .value("12")),
        ]
        // Above Int64.max a JSON integer is parsed as a Double (see `uint64AboveInt64Max`).
        if T.max.magnitude <= Int64.max.magnitude {
            cases.append(Case(primitive: primitive, json: "\(T.max)", expected: .value("\(T.max)")))
            cases.append(Case(primitive: primitive, json: "\(UInt64(T.max) + 1)", expected: .doesNotFit))
        } else {
            cases.append(Case(primitive: primitive, json: "18446744073709551616", expected: .doesNotFit))
        }
        let belowMin = T.min == 0 ? "-1" : T.bitWidth < 64 ? "\(Int64(T.min) - 1)" : "-9223372036854777856"
        cases.append(Case(primitive: primitive, json: belowMin, expected: .doesNotFit))
        return cases
    }

    static let others: [Case] = [
        Case(primitive: .bool, json: "true", expected: .value("true")),
        Case(primitive: .bool, json: "false", expected: .value("false")),
        Case(primitive: .string, json: #""héllo \"x\"""#, expected: .value(#"héllo "x""#)),
        Case(primitive: .string, json: #""""#, expected: .value("")),
        Case(primitive: .double, json: "0.25", expected: .value("0.25")),
        Case(primitive: .double, json: "-3", expected: .value("-3.0")),
        Case(primitive: .double, json: "1e300", expected: .value("1e+300")),
        Case(primitive: .double, json: "9223372036854775807", expected: .value("9.223372036854776e+18")),
        Case(primitive: .float, json: "1.5", expected: .value("1.5")),
        Case(primitive: .float, json: "7", expected: .value("7.0")),
        Case(primitive: .float, json: "1e300", expected: .doesNotFit),
        Case(primitive: .float, json: "-1e39", expected: .doesNotFit),
    ]

    @Test(arguments: wrongTypes + integers + others, Position.allCases)
    func primitive(_ testCase: Case, at position: Position) throws {
        let json = position.wrap(testCase.json)
        let (ours, foundation, type) = Self.decode(testCase.primitive, at: position, json)
        #expect(ours == testCase.outcome(at: position, type: type))
        if testCase.primitive == .bool, case .null = testCase.expected {
            // JSONDecoder calls a null where a Bool should be a type mismatch (any other type:
            // value not found); ours says value not found for every type.
            #expect(foundation == .typeMismatch("Bool", path: position.path))
        } else {
            #expect(ours.agrees(withFoundation: foundation), "JSONDecoder: \(foundation)")
        }
    }

    /// Integers beyond the range of `Int64`, which `JSONDecoder` reads exactly or refuses.
    static let beyondInt64: [Case] = [
        Case(primitive: .uint64, json: "18446744073709551615", expected: .value("18446744073709551615")),
        Case(primitive: .uint64, json: "9223372036854775809", expected: .value("9223372036854775809")),
        Case(primitive: .uint, json: "12345678901234567891", expected: .value("12345678901234567891")),
        Case(primitive: .int64, json: "-9223372036854775809", expected: .doesNotFit),
    ]

    /// JSONCore parses a JSON integer beyond `Int64` into a `Double`: a `UInt64` decoded from
    /// it is rounded to 53 bits (or refused), and an `Int64` one past `Int64.min` is read as
    /// `Int64.min`; `JSONDecoder`, reading the digits, is exact.
    @Test(arguments: beyondInt64)
    func integersBeyondInt64(_ testCase: Case) throws {
        let (ours, foundation, type) = Self.decode(testCase.primitive, at: .single, testCase.json)
        #expect(foundation == testCase.outcome(at: .single, type: type))
        withKnownIssue("JSONValue keeps integers beyond Int64 as Double") {
            #expect(ours == foundation)
        }
    }

    // MARK: Decoding through the primitive's own `decode`

    /// Decodes `json` as `primitive` read at `position`, by both decoders; `type` is the name of
    /// the primitive's type.
    static func decode(_ primitive: Primitive, at position: Position, _ json: String) -> (ours: Outcome, foundation: Outcome, type: String) {
        switch primitive {
        case .bool: both(Bool.self, position, json)
        case .string: both(String.self, position, json)
        case .double: both(Double.self, position, json)
        case .float: both(Float.self, position, json)
        case .int: both(Int.self, position, json)
        case .int8: both(Int8.self, position, json)
        case .int16: both(Int16.self, position, json)
        case .int32: both(Int32.self, position, json)
        case .int64: both(Int64.self, position, json)
        case .uint: both(UInt.self, position, json)
        case .uint8: both(UInt8.self, position, json)
        case .uint16: both(UInt16.self, position, json)
        case .uint32: both(UInt32.self, position, json)
        case .uint64: both(UInt64.self, position, json)
        }
    }

    private static func both<T: ReadByHand>(_ type: T.Type, _ position: Position, _ json: String) -> (
        ours: Outcome, foundation: Outcome, type: String
    ) {
        let oracle = DecodingOracle()
        switch position {
        case .keyed:
            return (Outcome(oracle.ours(InKeyed<T>.self, json)), Outcome(oracle.foundation(InKeyed<T>.self, json)), "\(T.self)")
        case .unkeyed:
            return (Outcome(oracle.ours(InUnkeyed<T>.self, json)), Outcome(oracle.foundation(InUnkeyed<T>.self, json)), "\(T.self)")
        case .single:
            return (Outcome(oracle.ours(InSingle<T>.self, json)), Outcome(oracle.foundation(InSingle<T>.self, json)), "\(T.self)")
        }
    }
}
