import ArgumentParser
import NetOps
import TemplateInference

/// The options of `templates infer` and `templates record` that set the inference's thresholds
/// and the secret vocabulary.
struct InferenceArguments: ParsableArguments {
    @Option(help: "The objects a place must be seen in before a key present in all of them is required.")
    var requiredAfter = InferenceOptions().requiredAfter

    @Option(help: "The values a place must have had before lengthMustBeEqualOrGreaterThan 1 or minimum 0 is written.")
    var ruleMinSamples = InferenceOptions().ruleMinimumSamples

    @Option(help: "The most distinct strings a place may have had for matchWithOneOf.")
    var oneOfMaxValues = InferenceOptions().oneOfMaximumValues

    @Option(help: "The string values a place must have had before matchWithOneOf is written.")
    var oneOfMinSamples = InferenceOptions().oneOfMinimumSamples

    @Flag(help: "Write every string as a placeholder of the same length (no matchWithOneOf then).")
    var anonymize = false

    @Option(name: .customLong("secret"), help: "A key whose values are secret, beside the standard vocabulary (repeatable).")
    var secrets: [String] = []

    /// The inference options these arguments say.
    var options: InferenceOptions {
        InferenceOptions(
            requiredAfter: requiredAfter, ruleMinimumSamples: ruleMinSamples, oneOfMaximumValues: oneOfMaxValues,
            oneOfMinimumSamples: oneOfMinSamples, anonymize: anonymize)
    }

    /// The standard redaction vocabulary and the `--secret` keys.
    var redaction: Redaction {
        Redaction.standard.adding(parameters: Set(secrets))
    }

    func validate() throws {
        for (name, value) in [
            ("--required-after", requiredAfter), ("--rule-min-samples", ruleMinSamples), ("--one-of-max-values", oneOfMaxValues),
            ("--one-of-min-samples", oneOfMinSamples),
        ] where value < 1 {
            throw ValidationError("\(name) must be at least 1")
        }
    }
}
