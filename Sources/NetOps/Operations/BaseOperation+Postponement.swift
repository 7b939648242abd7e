import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The operations parked in `NetworkSession.shared`'s lot, first parked first.
    @available(*, deprecated, message: "parked operations belong to a session or a stage: use session.postponedOperations or a ParkingLot")
    public static var postponedOperations: [BaseOperation] {
        NetworkSession.shared.postponedOperations
    }

    /// Parks a working operation in its session's lot (`NetworkSession.parkingLot`): its
    /// transfer stops and it waits, still working, for the session's
    /// `performPostponedOperations(update:)` or `removeAllPostponedOperations(failingWith:)` (or
    /// its own `totalTimeout`: time parked counts against it).
    ///
    /// An operation parked this way belongs to the caller: an API's authentication coordinator
    /// replays and fails only the operations parked in its own lot.
    ///
    /// - Returns: false when the operation was not working (not started, suspended, or final).
    @discardableResult
    public static func postpone(_ operation: BaseOperation) -> Bool {
        var parked = false
        operation.withEffects { parked = operation.parkLocked(in: nil, effects: &$0) }
        return parked
    }

    /// Replays every operation parked in `NetworkSession.shared`'s lot.
    @available(*, deprecated, message: "replay through the session (session.performPostponedOperations) or the ParkingLot that holds them")
    @discardableResult
    public static func performPostponedOperations(update: (@Sendable (inout URLRequest) -> Void)? = nil) -> [BaseOperation] {
        NetworkSession.shared.performPostponedOperations(update: update)
    }

    /// Ends every operation parked in `NetworkSession.shared`'s lot with `error`.
    @available(*, deprecated, message: "fail through the session (session.removeAllPostponedOperations) or the ParkingLot that holds them")
    @discardableResult
    public static func removeAllPostponedOperations(failingWith error: NetOpsError) -> [BaseOperation] {
        NetworkSession.shared.removeAllPostponedOperations(failingWith: error)
    }

    /// Releases every waiter of an operation parked in `NetworkSession.shared`'s lot.
    @available(*, deprecated, message: "use session.releaseSyncWaitersOfPostponed()")
    @discardableResult
    public static func releaseSyncWaitersOfPostponed() -> [BaseOperation] {
        NetworkSession.shared.releaseSyncWaitersOfPostponed()
    }

    /// Takes `operation` out of the lot it is parked in; true when it was there (exactly one
    /// caller wins).
    @available(*, deprecated, message: "take it from its lot: operation.parkingLot?.take(operation)")
    public static func take(_ operation: BaseOperation) -> Bool {
        operation.parkingLot?.take(operation) ?? false
    }

    /// The lot the operation is parked in; nil while it is not parked.
    public var parkingLot: ParkingLot? { withLock { storage.parkedIn } }

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

    /// Hooks that prepare each request and judge each response (credentials, 401s): a stage of
    /// the operation's chain, after its session's stages and its retry policy. Prefer
    /// `middleware`, which any number of stages share.
    public var interceptor: (any OperationInterceptor)? {
        get { withLock { storage.settings.interceptor } }
        set { updateSettings { settings in settings.interceptor = newValue } }
    }

    /// The interceptor of operations that have none of their own: always nil now.
    @available(*, deprecated, message: "add a NetworkMiddleware to the session (NetworkSession.Options.middleware)")
    public static var defaultInterceptor: (any OperationInterceptor)? { nil }

    /// Values an interceptor or a caller attaches to the operation (for example the version of
    /// the credential its request carried).
    public var userInfo: [String: any Sendable] {
        get { withLock { storage.userInfo } }
        set { withLock { storage.userInfo = newValue } }
    }
}
