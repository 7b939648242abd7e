/// How every decoder over a `JSONValue` reads numbers, so that a value means the same number to
/// each of them.
extension JSONValue {
    /// Which JSON numbers an integer type is read from.
    public enum IntegerReading: Sendable {
        /// Any number that is integral and fits: `2`, `2.0`, `2e0` (`JSONDecoder`'s rule, which
        /// models follow).
        case integralNumbers
        /// Only a number written without a fraction or exponent: `2`, never `2.0` (a document
        /// whose `1.0` must stay a `Double`).
        case integerLiterals
    }

    /// What reading the value as a number gave.
    public enum NumberReading<Number: Sendable>: Sendable {
        /// The number.
        case number(Number)
        /// A number that does not fit the type, as written.
        case doesNotFit(String)
        /// The value is not a number (or, read as `.integerLiterals`, not an integer literal).
        case notANumber
    }

    /// The value as an integer of type `type`, read by `reading`.
    public func integer<Integer: FixedWidthInteger & Sendable>(_ type: Integer.Type, reading: IntegerReading) -> NumberReading<Integer> {
        switch self {
        case let .int(number):
            return Integer(exactly: number).map { .number($0) } ?? .doesNotFit(String(number))
        case let .double(number) where reading == .integralNumbers:
            return Integer(exactly: number).map { .number($0) } ?? .doesNotFit(String(number))
        default:
            return .notANumber
        }
    }

    /// The value as a `Double`: any JSON number (an integer too); nil for anything else.
    public var doubleValue: Double? {
        switch self {
        case let .int(number): Double(number)
        case let .double(number): number
        default: nil
        }
    }

    /// The value as a `Float`: any JSON number whose value is finite as a `Float`.
    public var floatValue: NumberReading<Float> {
        guard let double = doubleValue else { return .notANumber }
        let float = Float(double)
        // A finite Double too large for a Float does not fit; an infinity or a NaN stays one.
        return float.isFinite || !double.isFinite ? .number(float) : .doesNotFit(String(double))
    }

    /// The text of the error for a number that does not fit `type`.
    public static func doesNotFitDescription(_ written: String, _ type: Any.Type) -> String {
        "Number \(written) does not fit in \(type)."
    }
}
