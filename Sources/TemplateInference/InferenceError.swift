import JSONCore

/// Why a sample could not be merged into an inference; the inference is left as it was.
public enum InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sample's top-level value is of another JSON type than the samples merged before
    /// (an array after objects): they cannot be the responses of one method.
    case topLevelTypeMismatch(expected: JSONType, got: JSONType)
    /// The sample is not JSON; `reason` is the parser's, with its byte offset.
    case notJSON(reason: String)

    /// One line.
    public var description: String {
        switch self {
        case let .topLevelTypeMismatch(expected, got):
            return "its top-level value is \(Self.article(got)) \(got), the samples before had \(Self.article(expected)) \(expected)"
        case let .notJSON(reason):
            return "not JSON: \(reason)"
        }
    }

    private static func article(_ type: JSONType) -> String {
        type == .array || type == .object ? "an" : "a"
    }
}
