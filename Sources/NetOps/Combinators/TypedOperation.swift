/// An operation that runs to a value of a known type: what `combine(_:)`, `map(_:)`,
/// `mapError(_:)` and `catch(_:)` work with.
///
/// `DataTaskOperation`, `DownloadOperation` and `UploadOperation` give themselves,
/// `GroupOperation<Result>` its `Result`, and APILayer's `APIOperation<Model>` its `Model`
/// (throwing `APIError`):
///
/// ```swift
/// let (issues, page) = try await combine(TrackerAPI.issues(owner: "octo-org", repo: "hello-world"),
///                                         DTO.get(pageURL))
/// let size = try await DTO.get(url).map { $0.receivedData.count }
/// ```
public protocol TypedOperation: AnyObject, Sendable {
    /// What the operation gives when it succeeds.
    associatedtype Output: Sendable
    /// What it throws when it does not.
    associatedtype Failure: Error

    /// Starts the operation, waits for it without blocking a thread and returns its output.
    /// Cancelling the calling `Task` cancels the operation.
    func run() async throws(Failure) -> Output
}

extension DataTaskOperation: TypedOperation {
    /// A data operation gives itself: its `receivedData`, status and headers.
    public typealias Output = DataTaskOperation
    /// Its `NetOpsError`, as an untyped error.
    public typealias Failure = any Error
}

extension DownloadOperation: TypedOperation {
    /// A download gives itself: its `destination` holds the file.
    public typealias Output = DownloadOperation
    /// Its `NetOpsError`, as an untyped error.
    public typealias Failure = any Error
}

extension UploadOperation: TypedOperation {
    /// An upload gives itself: its `receivedData` holds the answer.
    public typealias Output = UploadOperation
    /// Its `NetOpsError`, as an untyped error.
    public typealias Failure = any Error
}

extension GroupOperation: TypedOperation {
    /// A group gives what its body returned.
    public typealias Output = Result
    /// The body's error, a failing sub-operation's, or `GroupError.cancelled`.
    public typealias Failure = any Error
}

extension TypedOperation where Self: BaseOperation, Output == Self {
    /// The operation itself once it succeeded, or its `NetOpsError` once it failed or was
    /// cancelled; nil until it ended. Plain operations thus read like groups and API operations.
    public var result: Swift.Result<Self, NetOpsError>? {
        let (state, error) = withLock { (machine.state, machine.failure) }
        switch state {
        case .readyToStart, .working, .suspended: return nil
        case .successFinished: return .success(self)
        case .failedFinished, .cancelled: return .failure(error ?? NetOpsError(.cancelled, url: nil))
        }
    }
}
