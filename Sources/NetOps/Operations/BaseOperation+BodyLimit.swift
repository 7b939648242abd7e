import Foundation

extension BaseOperation {
    /// The code of the error an operation ends with when its response body is longer than
    /// `maximumResponseBodyBytes`: Foundation's "data length exceeds maximum"
    /// (`NSURLErrorDataLengthExceedsMaximum`).
    public static let responseBodyTooLargeCode = -1103

    /// The default of `maximumResponseBodyBytes`: 64 MiB, for an operation, a session's options
    /// and an API scope alike.
    public static let defaultMaximumResponseBodyBytes: Int64 = 64 << 20

    /// The most bytes of response body the operation keeps in memory: 64 MiB unless set
    /// (`defaultMaximumResponseBodyBytes`); nil for no limit.
    ///
    /// A body announced longer (`Content-Length`) or found longer as it arrives ends the operation
    /// at once with `NetOpsError.Kind.transport(code: BaseOperation.responseBodyTooLargeCode, …)`:
    /// the transfer is cancelled, what arrived is dropped, and the operation is not retried.
    /// Memory stays bounded by the limit whatever the server sends. A `DownloadOperation` writes
    /// to a file and is not limited. A `StreamingOperation` keeps nothing, and is limited only
    /// when this is set on it (as an API scope's `adopt` does with the scope's limit): its
    /// reader then gets at most this many bytes, and the stream's read throws that error — what
    /// a reader that collects the whole body (a generated OpenAPI client) needs.
    public var maximumResponseBodyBytes: Int64? {
        get { withLock { storage.settings.maximumResponseBodyBytes } }
        set {
            updateSettings { settings in
                settings.maximumResponseBodyBytes = newValue.map { max(0, $0) }
                settings.overrides.insert(.maximumResponseBodyBytes)
            }
        }
    }

    /// The error for a body of at least `length` bytes when it exceeds the limit kept in memory,
    /// else nil. Call with the lock held.
    func bodyLimitErrorLocked(forLength length: Int64) -> NetOpsError? {
        guard let limit = storage.settings.maximumResponseBodyBytes, length > limit else { return nil }
        // A stream keeps nothing: only a limit set on it explicitly bounds what it delivers.
        let bounded = sink is MemorySink || (sink is StreamSink && storage.settings.overrides.contains(.maximumResponseBodyBytes))
        guard bounded else { return nil }
        return NetOpsError(
            .transport(code: Self.responseBodyTooLargeCode, reason: "the response body is longer than the limit of \(limit) bytes"),
            url: currentURL)
    }
}
