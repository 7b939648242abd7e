import Foundation
import JSONCore
import NIOConcurrencyHelpers
import Synchronization
import Templater

/// Merges sampled responses into each method's inferred template in memory, and writes the
/// templates atomically on `flush()`.
///
/// An `APIScope` whose configuration has a `TemplateRecording` makes one and hands it the
/// answers its calls accept (after authentication, the status check and the method's body-error
/// check, before validation); `apilayer templates record` uses one for plain GETs. Any thread
/// may record at any time.
///
/// Memory is bounded: per method the merged shape (`TemplateInferrer`), never the samples, and
/// at most `TemplateRecording.maximumSamplesPerMethod` of them merged. A response is merged
/// under its method's own lock, and only if no other response of that method is being merged:
/// one that finds another merge under way is skipped (it is a sample), so recording never makes
/// a call wait for another call's merge.
public final class TemplateRecorder: Sendable {
    /// What happened to one response given to `record(_:for:)`.
    public enum Outcome: Sendable, Equatable {
        /// Merged into the method's template.
        case merged
        /// Not chosen by the sample rate.
        case notSampled
        /// The method already has `maximumSamplesPerMethod` samples.
        case capped
        /// Another response of the method was being merged at that moment.
        case busy
        /// It could not be merged (its top-level type differs from the method's samples so far).
        case refused(InferenceError)
    }

    /// How much of one method was recorded.
    public struct MethodStatistics: Sendable, Equatable {
        /// Responses given to `record(_:for:)`.
        public var responses: Int
        /// Samples merged into the template.
        public var merged: Int
        /// Responses skipped because another was being merged.
        public var busy: Int
        /// Responses refused by the inference.
        public var refused: Int
        /// The places of the merged shape: what the method's recording holds in memory.
        public var places: Int
    }

    /// The recording's settings.
    public let recording: TemplateRecording
    private let isSecret: @Sendable (String) -> Bool
    private let methods = NIOLockedValueBox<[String: MethodShape]>([:])

    /// One method's merged shape and counters.
    private final class MethodShape: Sendable {
        struct State {
            var inferrer: TemplateInferrer
            /// Bumped by each merge; the version last written is `flushed`.
            var version = 0
            var flushed = 0
            var refused = 0
        }

        let state: NIOLockedValueBox<State>
        /// Set while one response is being merged: a response that finds it set is skipped
        /// instead of waiting for the lock. The state itself is only ever touched under its lock.
        let merging = Atomic<Bool>(false)
        /// Responses seen, for the sample rate (read and bumped without the lock).
        let seen = Atomic<Int>(0)
        /// Responses that found another being merged.
        let busy = Atomic<Int>(0)

        init(inferrer: TemplateInferrer) {
            state = NIOLockedValueBox(State(inferrer: inferrer))
        }
    }

    /// A recorder for `recording`, whose inference never keeps or writes the values of keys
    /// `isSecret` names (give the API's redaction vocabulary: `Redaction.isSecret(parameter:)`).
    public init(recording: TemplateRecording, isSecret: @escaping @Sendable (String) -> Bool) {
        self.recording = recording
        self.isSecret = isSecret
    }

    private func shape(for method: String) -> MethodShape {
        methods.withLockedValue { methods in
            if let shape = methods[method] { return shape }
            let shape = MethodShape(inferrer: TemplateInferrer(options: recording.inference, isSecret: isSecret))
            methods[method] = shape
            return shape
        }
    }

    /// Whether the `count`-th response (1-based) of a method is a sample: the sample rate picks
    /// evenly spread responses (at 0.25, the 4th, 8th, 12th…).
    private func isSampled(_ count: Int) -> Bool {
        let rate = min(max(recording.sampleRate, 0), 1)
        if rate >= 1 { return true }
        if rate <= 0 { return false }
        return (Double(count) * rate).rounded(.down) > (Double(count - 1) * rate).rounded(.down)
    }

    /// Hands one response of `method` (its template name) to the recording: merged when the
    /// sample rate picks it, the method is not capped and no other response of it is being merged.
    @discardableResult
    public func record(_ response: JSONValue, for method: String) -> Outcome {
        let shape = shape(for: method)
        let count = shape.seen.wrappingAdd(1, ordering: .relaxed).newValue
        guard isSampled(count) else { return .notSampled }
        let cap = max(0, recording.maximumSamplesPerMethod)
        guard shape.merging.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            shape.busy.wrappingAdd(1, ordering: .relaxed)
            return .busy
        }
        defer { shape.merging.store(false, ordering: .releasing) }
        return shape.state.withLockedValue { state -> Outcome in
            guard state.inferrer.sampleCount < cap else { return .capped }
            do throws(InferenceError) {
                try state.inferrer.add(response)
            } catch {
                state.refused += 1
                return .refused(error)
            }
            state.version += 1
            return .merged
        }
    }

    /// The template inferred so far for `method`, with its findings; nil before its first sample.
    public func template(for method: String) -> InferredTemplate? {
        guard let shape = methods.withLockedValue({ $0[method] }) else { return nil }
        // A copy of the value, taken under the lock; written out after it.
        let inferrer = shape.state.withLockedValue { $0.inferrer }
        guard inferrer.sampleCount > 0 else { return nil }
        return inferrer.template()
    }

    /// The methods that responses were recorded for, sorted.
    public var methodNames: [String] {
        methods.withLockedValue { $0.keys.sorted() }
    }

    /// What was recorded of `method` so far; nil when none of its responses came.
    public func statistics(for method: String) -> MethodStatistics? {
        guard let shape = methods.withLockedValue({ $0[method] }) else { return nil }
        let seen = shape.seen.load(ordering: .relaxed)
        let busy = shape.busy.load(ordering: .relaxed)
        return shape.state.withLockedValue { state in
            MethodStatistics(
                responses: seen, merged: state.inferrer.sampleCount, busy: busy, refused: state.refused, places: state.inferrer.placeCount)
        }
    }

    /// Writes the template of every method that got samples since its last write into
    /// `recording.folder` (`<method>.json`, subfolders for names with `/`): each file is written
    /// to a temporary file, synced and renamed into place, so a reader never sees half a
    /// template, and a failed write leaves the previous file as it was.
    ///
    /// Every method is tried; one that fails is tried again on the next flush.
    /// - Returns: The methods written, sorted.
    /// - Throws: `TemplateRecordingError` with one `TemplaterError` per template not written,
    ///   each naming its file and the reason (a folder not writable, a full disk).
    @discardableResult
    public func flush() throws(TemplateRecordingError) -> [String] {
        let shapes = methods.withLockedValue { $0.sorted { $0.key < $1.key } }
        var written: [String] = []
        var failures: [TemplaterError] = []
        // Made here, not when the recorder is made (under its scope's lock): a store may read
        // a record of a moved folder from the disk.
        let store = TemplateStore(directory: recording.folder)
        for (name, shape) in shapes {
            let (inferrer, version, flushed) = shape.state.withLockedValue { ($0.inferrer, $0.version, $0.flushed) }
            guard version != flushed, inferrer.sampleCount > 0 else { continue }
            // Rendered and written with no lock held: merges go on meanwhile.
            do {
                try store.write(inferrer.template().json, for: name)
            } catch {
                failures.append(error)
                continue
            }
            shape.state.withLockedValue { $0.flushed = max($0.flushed, version) }
            written.append(name)
        }
        if !failures.isEmpty { throw TemplateRecordingError(failures: failures) }
        return written
    }
}
