/// The thresholds and limits of an inference: when the samples support a rule, and how much of
/// them the merged shape may hold.
///
/// Every rule needs evidence: a rule is written only where the values it constrains were seen
/// often enough that one unusual response would not have made it. The defaults:
///
/// | what is written | when |
/// |---|---|
/// | a key without `isOptional` | present in every object of its place, and the place seen at least `requiredAfter` (2) times |
/// | `lengthMustBeEqualOrGreaterThan: 1` | a string never empty over at least `ruleMinimumSamples` (2) values |
/// | `minimum: 0` | a number never negative over at least `ruleMinimumSamples` (2) values |
/// | `matchWithOneOf` | at most `oneOfMaximumValues` (8) distinct strings over at least `oneOfMinimumSamples` (20) values |
///
/// So nothing is tightened from one sample alone.
public struct InferenceOptions: Sendable, Equatable {
    /// The fewest objects a place must have been seen in before a key present in all of them
    /// is required (2 unless set; 1 makes a single sample's every key required, as a template
    /// recorded from one response is).
    public var requiredAfter: Int
    /// The fewest values a string or number place must have had before `lengthMustBeEqualOrGreaterThan: 1`
    /// or `minimum: 0` is written (2 unless set).
    public var ruleMinimumSamples: Int
    /// The most distinct strings a place may have had for `matchWithOneOf` (8 unless set).
    public var oneOfMaximumValues: Int
    /// The fewest string values a place must have had before `matchWithOneOf` is written (20
    /// unless set).
    public var oneOfMinimumSamples: Int
    /// The longest string counted as a `matchWithOneOf` candidate, in UTF-8 bytes (64): a longer
    /// one is free text, and stops the place from getting the rule.
    public var oneOfMaximumLength: Int
    /// Whether every string written is a placeholder of the same length (`x`s) instead of a
    /// sample's value; `matchWithOneOf`, which would write real values, is not inferred then.
    public var anonymize: Bool
    /// The deepest nesting merged (128 unless set): a value deeper than this is written as
    /// `null` (any value passes there), and reported.
    public var maximumDepth: Int
    /// The most distinct keys one object place keeps (1 000 unless set): an object with more is
    /// a map keyed by data (IDs, names), written as `{}` and reported, and its keys are dropped
    /// from memory.
    public var maximumKeysPerObject: Int
    /// The most places the merged shape holds (100 000 unless set): past it, new keys are not
    /// kept (their values pass unchecked), and it is reported. Bounds the memory of a recording.
    public var maximumPlaces: Int
    /// The longest string written as a sample value, in Characters (1 024 unless set): a longer
    /// sample is cut to this many, so that a template of a large response stays small.
    public var maximumSampleLength: Int

    /// Options with the documented defaults, any of them changed.
    public init(
        requiredAfter: Int = 2, ruleMinimumSamples: Int = 2, oneOfMaximumValues: Int = 8, oneOfMinimumSamples: Int = 20,
        oneOfMaximumLength: Int = 64, anonymize: Bool = false, maximumDepth: Int = 128, maximumKeysPerObject: Int = 1_000,
        maximumPlaces: Int = 100_000, maximumSampleLength: Int = 1_024
    ) {
        self.requiredAfter = requiredAfter
        self.ruleMinimumSamples = ruleMinimumSamples
        self.oneOfMaximumValues = oneOfMaximumValues
        self.oneOfMinimumSamples = oneOfMinimumSamples
        self.oneOfMaximumLength = oneOfMaximumLength
        self.anonymize = anonymize
        self.maximumDepth = maximumDepth
        self.maximumKeysPerObject = maximumKeysPerObject
        self.maximumPlaces = maximumPlaces
        self.maximumSampleLength = maximumSampleLength
    }

    /// The options with every count at least 1 (a threshold of 0 would tighten from nothing).
    var normalized: InferenceOptions {
        var options = self
        options.requiredAfter = max(1, requiredAfter)
        options.ruleMinimumSamples = max(1, ruleMinimumSamples)
        options.oneOfMaximumValues = max(1, oneOfMaximumValues)
        options.oneOfMinimumSamples = max(1, oneOfMinimumSamples)
        options.oneOfMaximumLength = max(1, oneOfMaximumLength)
        options.maximumDepth = max(1, maximumDepth)
        options.maximumKeysPerObject = max(1, maximumKeysPerObject)
        options.maximumPlaces = max(1, maximumPlaces)
        options.maximumSampleLength = max(1, maximumSampleLength)
        return options
    }
}
