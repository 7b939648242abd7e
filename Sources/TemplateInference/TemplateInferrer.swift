import Foundation
import JSONCore

/// Infers one method's template, with `-Rules`, from any number of its responses, merging them
/// as genson merges JSON Schemas.
///
/// ```swift
/// var inferrer = TemplateInferrer(isSecret: { Redaction.standard.isSecret(parameter: $0) })
/// for body in responses { try inferrer.add(parsing: body) }
/// let inferred = inferrer.template()
/// try store.write(inferred.json, for: "users.get")     // review it first: inferred.findings
/// ```
///
/// - A key absent from some objects of its place gets `isOptional`; `null` beside other values
///   gets `isNullable`; the elements of arrays merge into one element template, and a `null`
///   element gives the array `elementsMayBeNull`.
/// - Rules are written only where the samples support them (`InferenceOptions`): a string never
///   empty gets `lengthMustBeEqualOrGreaterThan: 1`, a number never negative `minimum: 0`, a
///   string with few distinct values over many samples `matchWithOneOf`; nothing is tightened
///   from one sample alone.
/// - Values of different types at one place are reported (`InferenceFinding.Kind.mixedTypes`)
///   and the place accepts any value: nothing is guessed.
/// - The values written are real samples' (the first seen at each place), except below a key
///   `isSecret` names (tokens, passwords…), whose values are never kept, and every string when
///   `InferenceOptions.anonymize` is set: those become placeholders of the same length.
///
/// Memory follows the shape of the responses, not their number: nothing of a sample is kept but
/// the first value at each place and the evidence for rules. A value type: copy it to keep a
/// state, merge into the copy.
public struct TemplateInferrer: Sendable {
    /// The thresholds and limits in use.
    public let options: InferenceOptions
    private let isSecret: @Sendable (String) -> Bool
    private var root = ShapeNode()
    private var places = 0
    /// The secret vocabulary's answers so far, by key.
    private var secretKeys: [String: Bool] = [:]
    /// The samples merged so far.
    public private(set) var sampleCount = 0

    /// An empty inference.
    /// - Parameters:
    ///   - options: The thresholds and limits.
    ///   - isSecret: Whether a key's values are secret (never written, never kept): give the
    ///     redaction vocabulary of the API the samples come from, e.g.
    ///     `Redaction.standard.isSecret(parameter:)`. There is no default, so that no caller
    ///     forgets it.
    public init(options: InferenceOptions = InferenceOptions(), isSecret: @escaping @Sendable (String) -> Bool) {
        self.options = options.normalized
        self.isSecret = isSecret
    }

    /// The JSON type of the samples' top-level values, once a non-null one was merged.
    public var topLevelType: JSONType? {
        root.typesSeen.first?.type
    }

    /// The places the merged shape holds (every key and array element place, at any depth):
    /// what a recording keeps in memory grows with this, never with the samples.
    public var placeCount: Int { places }

    /// Merges one sample response.
    /// - Throws: `InferenceError.topLevelTypeMismatch` when its top-level value is not of the
    ///   type of the samples merged before (`null` mixes with any); nothing is merged then.
    public mutating func add(_ sample: JSONValue) throws(InferenceError) {
        if let expected = topLevelType, sample.type != .null, sample.type != expected {
            throw .topLevelTypeMismatch(expected: expected, got: sample.type)
        }
        var context = MergeContext(options: options, isSecret: isSecret, places: places, secretKeys: secretKeys)
        secretKeys = [:]  // moved into the context, so that it stays uniquely referenced
        root.merge(sample, depth: 0, context: &context)
        places = context.places
        secretKeys = context.secretKeys
        sampleCount += 1
    }

    /// Parses one sample response (at most `JSONValue.defaultMaxDepth` levels deep) and merges it.
    /// - Throws: `InferenceError.notJSON` with the parser's reason and byte offset, or what
    ///   `add(_:)` throws; nothing is merged then.
    public mutating func add(parsing data: Data) throws(InferenceError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: data) } catch { throw .notJSON(reason: String(describing: error)) }
        try add(value)
    }

    /// The template of the samples merged so far, with its findings.
    ///
    /// The template always passes `Validator.checkTemplate`; with no sample merged it is `null`
    /// (any response passes).
    public func template() -> InferredTemplate {
        var renderer = TemplateRenderer(options: options)
        let json = renderer.renderRoot(root)
        return InferredTemplate(json: json, findings: renderer.findings, sampleCount: sampleCount)
    }
}

/// A template inferred from samples, and what the inference reported on the way.
public struct InferredTemplate: Sendable, Equatable {
    /// The template, `-Rules` included, ready for `TemplateStore.write(_:for:)`.
    public var json: JSONValue
    /// The places where the samples disagreed or a limit was met, in the order of the walk
    /// (keys sorted, a place before what is inside it).
    public var findings: [InferenceFinding]
    /// How many samples it was inferred from.
    public var sampleCount: Int
}
