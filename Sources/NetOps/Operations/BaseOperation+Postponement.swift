import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The operations parked until a fresh credential exists, first parked first.
    public static var postponedOperations: [BaseOperation] {
        PostponedOperations.shared.all
    }

    /// Parks a working operation: its transfer stops and it waits, still working, for
    /// `performPostponedOperations(update:)` or `removeAllPostponedOperations(failingWith:)`
    /// (or its own `totalTimeout`: time parked counts against it).
    ///
    /// An operation parked this way belongs to the caller: an `AuthenticationCoordinator`
    /// replays and fails only the operations it parked itself.
    ///
    /// - Returns: false when the operation was not working (not started, suspended, or final).
    @discardableResult
    public static func postpone(_ operation: BaseOperation) -> Bool {
        var parked = false
        operation.withEffects { effects in
            operation.apply(
                { machine in
                    let action = machine.postpone()
                    parked = action != .none
                    return action
                }, to: &effects)
        }
        return parked
    }

    /// Replays every parked operation, first parked first: each request is rebuilt through
    /// `update` (for example to put a fresh token in), then through the operation's
    /// interceptor, and sent again.
    ///
    /// It acts on **all** parked operations of the process, whoever parked them: every API's
    /// (an `update` that adds a token would put one API's token on another API's requests) and
    /// those of every interceptor. A service with more than one API, or with a token
    /// coordinator, replays through the coordinator instead, which replays only its own; take
    /// single operations with `take(_:)` and `replay(update:)`.
    ///
    /// - Returns: the operations replayed.
    @discardableResult
    public static func performPostponedOperations(update: (@Sendable (inout URLRequest) -> Void)? = nil) -> [BaseOperation] {
        let operations = PostponedOperations.shared.takeAll()
        for operation in operations { operation.replay(update: update) }
        return operations
    }

    /// Ends every parked operation with `error` (`.failedFinished`), first parked first, on the
    /// calling thread: their completions run in that order, and every thread in `syncStart()`
    /// and every `run()` waiting on them returns.
    ///
    /// It acts on **all** parked operations of the process, whoever parked them (every API's,
    /// every interceptor's); to end one, `take(_:)` it and call `failPostponed(with:)`.
    ///
    /// - Returns: the operations ended.
    @discardableResult
    public static func removeAllPostponedOperations(failingWith error: NetOpsError) -> [BaseOperation] {
        let operations = PostponedOperations.shared.takeAll()
        for operation in operations { operation.failPostponed(with: error) }
        return operations
    }

    /// Releases everything that waits on a parked operation, for good: every parked operation
    /// ends `.failedFinished` with `.authenticationFailed` ("parked operations released"), first
    /// parked first, so each thread blocked in its `syncStart()` and each `run()` awaiting it
    /// returns, and its completion runs. Nothing is replayed; a service calls this when it gives
    /// up on the credential (a logout, a shutdown). Like `removeAllPostponedOperations`, it acts
    /// on every API's parked operations.
    ///
    /// A waiter is never released while its operation stays parked (`mayReleaseSyncWaiter` is
    /// false until the operation is final): that would hand it an operation without a result.
    ///
    /// - Returns: the operations ended.
    @discardableResult
    public static func releaseSyncWaitersOfPostponed() -> [BaseOperation] {
        removeAllPostponedOperations(failingWith: NetOpsError(.authenticationFailed(reason: "parked operations released"), url: nil))
    }

    /// Takes `operation` out of the parked set; true when it was there (exactly one caller wins).
    /// An interceptor's `didPostpone` uses it to replay or fail an operation that parked after
    /// the others were replayed.
    public static func take(_ operation: BaseOperation) -> Bool {
        PostponedOperations.shared.take(operation)
    }

    /// True while the operation is parked (its `state` is `.working`).
    public var isPostponed: Bool { withLock { machine.isPostponed } }

    /// Whether a thread in `syncStart()` may return now: only once the operation is final,
    /// never while it is parked waiting for its replay.
    public var mayReleaseSyncWaiter: Bool {
        withLock { machine.state.isFinishedOrCancelled }
    }

    /// Sends a parked operation's request again, rebuilt through `update` first. Does nothing
    /// to an operation that is not parked (it ended meanwhile: cancelled, or its total deadline
    /// passed).
    public func replay(update: (@Sendable (inout URLRequest) -> Void)? = nil) {
        withEffects { effects in
            guard machine.isPostponed else { return }
            if let update, case var .success(request) = storage.request {
                update(&request)
                storage.request = .success(request)
            }
            apply({ $0.replay(newRunLocked()) }, to: &effects)
        }
    }

    /// Ends a parked operation with `error`.
    public func failPostponed(with error: NetOpsError) {
        withEffects { effects in
            guard machine.isPostponed else { return }
            apply({ $0.abort(error) }, to: &effects)
        }
    }

    /// Hooks that prepare each request and judge each response (credentials, 401s); nil uses
    /// `BaseOperation.defaultInterceptor`.
    public var interceptor: (any OperationInterceptor)? {
        get { withLock { storage.settings.interceptor } }
        set { withLock { storage.settings.interceptor = newValue } }
    }

    private static let sharedInterceptor = Locked<(any OperationInterceptor)?>(nil)

    /// The interceptor of operations that have none of their own; nil by default. An operation
    /// reads it when it is made. APILayer never sets it: an API's token goes on its own
    /// operations only.
    public static var defaultInterceptor: (any OperationInterceptor)? {
        get { sharedInterceptor.withLock { $0 } }
        set { sharedInterceptor.withLock { $0 = newValue } }
    }

    /// The interceptor that judges this operation: its own, else the default it was made with.
    package var effectiveInterceptor: (any OperationInterceptor)? {
        withLock { interceptorInEffectLocked }
    }

    /// Values an interceptor or a caller attaches to the operation (for example the version of
    /// the credential its request carried).
    public var userInfo: [String: any Sendable] {
        get { withLock { storage.userInfo } }
        set { withLock { storage.userInfo = newValue } }
    }
}
