import Foundation
import Templater

/// Where and how much a running service records of its responses: each sampled answer that
/// passed authentication and the status check is merged into its method's inferred template in
/// memory, and the templates are written to `folder` on `TemplateRecorder.flush()` (an
/// `APIService` flushes at shutdown).
///
/// ```swift
/// APIScope.tracker.configure {
///     $0.templateRecording = TemplateRecording(folder: URL(fileURLWithPath: "/var/lib/my-service/recorded"),
///                                              sampleRate: 0.1, maximumSamplesPerMethod: 1_000)
/// }
/// ```
///
/// Record into a folder of its own, never the one the service validates with: what is recorded
/// is for review (`apilayer templates diff`, then `templates check`) before it is shipped.
public struct TemplateRecording: Sendable, Equatable {
    /// The folder the inferred templates are written to, one file per method
    /// (`<folder>/issues/list-for-repo.json`); created when first written.
    public var folder: URL
    /// The share of each method's responses merged, from 0 (none) to 1 (every one); 0.1 unless
    /// set. Sampling is by count, not chance: at 0.25 every fourth response of a method.
    public var sampleRate: Double
    /// The most samples merged per method (1 000 unless set): past it, the method's template is
    /// settled and its responses cost nothing more.
    public var maximumSamplesPerMethod: Int
    /// The thresholds of the inference (when a rule is supported) and its memory limits.
    public var inference: InferenceOptions

    /// A recording into `folder`; see the properties for the defaults.
    public init(
        folder: URL, sampleRate: Double = 0.1, maximumSamplesPerMethod: Int = 1_000, inference: InferenceOptions = InferenceOptions()
    ) {
        self.folder = folder
        self.sampleRate = sampleRate
        self.maximumSamplesPerMethod = maximumSamplesPerMethod
        self.inference = inference
    }
}

/// Why recorded templates could not all be written; the others were.
public struct TemplateRecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One error per template not written, each naming its file and the reason.
    public var failures: [TemplaterError]

    /// The failures, separated by `; `.
    public var description: String {
        "recorded templates not written: " + failures.map(\.description).joined(separator: "; ")
    }
}
