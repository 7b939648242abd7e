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

    /// Parks an operation in its session's lot (`NetworkSession.parkingLot`) until the
    /// session's `performPostponedOperations(on:update:)` replays it or
    /// `removeAllPostponedOperations(failingWith:)` fails it.
    ///
    /// - A working operation stops its transfer and waits, still working (its `totalTimeout`
    ///   counts the time parked).
    /// - An operation that ended and is running its completion closures — the reference's way:
    ///   the completion checks the answer, finds a 401, postpones the operation and starts
    ///   getting a token — is replaced by a `successor`: a fresh copy (request, settings,
    ///   session, owner, call values, closures) parked in its place. The replay starts the
    ///   successor, whose end the closures hear again, with the successor as their argument.
    ///   Whoever waits for the ended operation (a thread in `syncStart()`, a `run()`) keeps
    ///   waiting, for the successor's end. Data, download and upload operations can be
    ///   replaced; an API's operations are its coordinator's to park.
    ///
    /// An operation parked this way belongs to the caller: an API's authentication coordinator
    /// replays and fails only the operations parked in its own lot.
    ///
    /// - Parameters:
    ///   - operation: The operation to park.
    ///   - modification: The change its request gets at the replay, instead of the `update` of
    ///     `performPostponedOperations` (the reference keeps one per operation, for a service
    ///     that places a token differently for some requests).
    /// - Returns: false when the operation can be neither parked nor replaced (not started,
    ///   suspended, cancelled, past its completion closures, or of a kind that cannot be copied).
    @discardableResult
    public static func postpone(_ operation: BaseOperation, modification: (@Sendable (inout URLRequest) -> Void)? = nil) -> Bool {
        var parked = false
        operation.withEffects { effects in
            parked = operation.parkLocked(in: nil, effects: &effects)
            if parked { operation.setModificationLocked(modification) }
        }
        return parked || operation.postponeEnded(modification: modification)
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

    /// True while the operation is parked (its `state` is `.working`), or, for a `successor`,
    /// while it waits in its lot for the replay that starts it.
    public var isPostponed: Bool { withLock { machine.isPostponed || storage.postponement?.awaitsReplayStart == true } }

    /// The ticket of a `successor` waiting in its lot for the replay that starts it: below the
    /// number of any parking of a run (those count from 1).
    static let successorTicket: UInt64 = 0

    /// The ticket of the operation's parking now (its number, counted with its runs), or
    /// `successorTicket` for a successor waiting for its replay; nil when it is not parked.
    var parkingTicket: UInt64? {
        withLock {
            if storage.postponement?.awaitsReplayStart == true { return Self.successorTicket }
            return machine.isPostponed ? storage.history.parked?.number : nil
        }
    }

    /// Whether a thread in `syncStart()` may return now: only once the operation is final,
    /// never while it is parked waiting for its replay, nor while a `successor` replacing it runs.
    public var mayReleaseSyncWaiter: Bool {
        let latest = latestSuccessor
        return latest.withLock { latest.machine.state.isFinishedOrCancelled }
    }

    /// Sends a parked operation's request again, rebuilt first through the modification it was
    /// postponed with, else through `update`; starts a `successor` waiting for its replay (on
    /// `queue` when one is given). Does nothing to an operation that is not parked (it ended
    /// meanwhile: cancelled, or its total deadline passed).
    public func replay(on queue: OperationQueue? = nil, update: (@Sendable (inout URLRequest) -> Void)? = nil) {
        if startAsSuccessor(update: update, on: queue) { return }
        withEffects { effects in
            guard machine.isPostponed else { return }
            if let change = storage.postponement?.modification ?? update, case var .success(request) = storage.request {
                change(&request)
                storage.request = .success(request)
            }
            apply({ $0.replay(newRunLocked()) }, to: &effects)
        }
    }

    /// Ends a parked operation (or a `successor` waiting for its replay) with `error`.
    public func failPostponed(with error: NetOpsError) {
        if failAsSuccessor(with: error) { return }
        withEffects { effects in
            guard machine.isPostponed else { return }
            apply({ $0.abort(error) }, to: &effects)
        }
    }

    /// Hooks that prepare each request and judge each response: a stage of the operation's
    /// chain, after its session's stages and its retry policy. An interceptor that is itself a
    /// `NetworkMiddleware` runs as that stage; any other through an adapter that translates its
    /// decisions.
    @available(*, deprecated, message: "add a NetworkMiddleware with use(_:) or middleware; it decides with PrepareDecision and Verdict")
    public var interceptor: (any OperationInterceptor)? {
        get {
            let stage = withLock { storage.settings.interceptorStage }
            if let adapter = stage as? InterceptorMiddleware { return adapter.interceptor }
            return stage as? any OperationInterceptor
        }
        set {
            let stage: (any NetworkMiddleware)? = newValue.map { $0 as? any NetworkMiddleware ?? InterceptorMiddleware(interceptor: $0) }
            updateSettings { settings in settings.interceptorStage = stage }
        }
    }

    /// The interceptor of operations that have none of their own: always nil now.
    @available(*, deprecated, message: "add a NetworkMiddleware to the session (NetworkSession.Options.middleware)")
    public static var defaultInterceptor: (any OperationInterceptor)? { nil }

    /// The values the operation's stages share (`CallValues`): set one before `start()` for a
    /// stage to read, or read one a stage wrote.
    public var values: CallValues { CallValues(operation: self) }

    /// Values a caller attaches to the operation under string keys.
    @available(*, deprecated, message: "use values with a CallValueKey: typed, and never two modules on one name")
    public var userInfo: [String: any Sendable] {
        get { values[UserInfoKey.self] ?? [:] }
        set { values[UserInfoKey.self] = newValue }
    }
}

/// Where the deprecated `BaseOperation.userInfo` keeps its dictionary among the call's values.
private enum UserInfoKey: CallValueKey {
    typealias Value = [String: any Sendable]
}
