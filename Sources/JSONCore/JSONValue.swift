/// A JSON document held in memory: the one JSON value type of the whole package.
///
/// Templates, responses, the Parser and APILayer all read JSON into this type. Unlike
/// `JSONSerialization` on Linux it keeps `true`/`false` apart from `1`/`0`, integers apart
/// from floating-point numbers, and `null` apart from a missing key.
public enum JSONValue: Sendable, Hashable {
    /// The JSON literal `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array, in document order.
    case array([JSONValue])
    /// An object. Key order is not significant in JSON and is not kept.
    case object([String: JSONValue])
}
