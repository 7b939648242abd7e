import Dispatch
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Short name of `BaseOperation`.
public typealias BO = BaseOperation

/// A network operation: a Foundation `Operation` that runs one HTTP exchange with a state you
/// can read, pause, resume and cancel.
///
/// Use one of its kinds — `DataTaskOperation`, `DownloadOperation`, `UploadOperation` — in any
/// `OperationQueue` (dependencies and `maxConcurrentOperationCount` work as usual), start it by
/// hand, run it synchronously with `syncStart()`, or `await` it with `run()`.
///
/// ```swift
/// let operation = DataTaskOperation.get("http://127.0.0.1:8080/json")
///     .onProgress { _, progress in print(progress.bytesReceived) }
///     .onCompletion { operation in print(operation.state, operation.receivedData.count) }
/// queue.addOperation(operation)
/// ```
///
/// Everything mutable is guarded by one lock per operation; callbacks (closures, delegate,
/// `isExecuting`/`isFinished` notifications) are always made outside it. Suspending really
/// pauses: the transfer stops, what arrived is kept, and `resume()` asks for the rest with a
/// `Range` request (see `Docs/linux-notes.md`).
///
/// The class is `open` so that other modules of this package build typed operations on it
/// (APILayer's `APIOperation`); its initialisers are internal or `package`, so code outside the
/// package cannot subclass it.
open class BaseOperation: Operation, @unchecked Sendable {
    /// 200–299, built once: a set of a hundred codes made for every operation cost a fifth of
    /// what making the operation costs.
    package static let successStatusCodes = Set(200..<300)

    /// An operation's machine: its runs carry their transfer, its end the error.
    typealias Machine = OperationStateMachine<TransferRun, NetOpsError>

    /// Work decided under the lock and carried out after leaving it.
    struct Effects {
        /// The key-value notifications, completions and waiters due.
        var lifecycle = LifecycleChange()
        var newState: OperationState?
        var progress: ProgressReport?
        var stopHandle: (any TransferHandle)?
        var begin: PreparedTransfer?
        /// The operation started working with an owner: list it for owners (outside the lock).
        var track = false
        /// The deadline to forget: the transfer it was armed for is over.
        var disarm: (scheduler: DeadlineScheduler, before: UInt64)?
        /// A deadline to arm for a run that waits to retry (its transfer arms its own at launch).
        var arm: (scheduler: DeadlineScheduler, run: UInt64, at: DispatchTime)?
        /// The `timeLimitBetweenRuns` slot to free (outside the lock: `RunLimits` has a lock of its own).
        var runLimitRelease: (limits: RunLimits, key: String, until: Date)?
        /// The lot the operation just parked in, the parking's ticket, and the stages to tell.
        var parkedIn: (lot: ParkingLot, ticket: UInt64, chain: [any NetworkMiddleware])?
        /// The lot the operation just left.
        var unparkedFrom: ParkingLot?
        /// A run ended: the stages of this chain hear of it (`operationDidStopRunning`).
        var runStopped: [any NetworkMiddleware]?
        /// Partial files let go of, to close and delete outside the lock.
        var cleanups: [SinkCleanup] = []
        /// Where the state, progress and completion closures run (`callbackQueue`), read in the
        /// same hold when any of them is due; nil: where the event arrived.
        var callbackQueue: DispatchQueue?

        /// Notes the file work a sink handed back, if any.
        mutating func cleanUp(_ cleanup: SinkCleanup?) {
            if let cleanup { cleanups.append(cleanup) }
        }
    }

    /// Progress and who to tell, taken under the lock in the same hold that recorded it, so the
    /// per-chunk path takes the lock once.
    struct ProgressReport {
        let progress: TransferProgress
        let handlers: [@Sendable (BaseOperation, TransferProgress) -> Void]
        let delegate: (any NetworkOperationDelegate)?
    }

    /// A transfer ready to hand to the engine.
    struct PreparedTransfer {
        let request: URLRequest
        /// What the engine does on a redirect (and the cookies it keeps).
        let rules: RedirectRules
        /// The operation's TLS settings and HTTP/2 switch.
        let transport: TransportChoice
        let body: TransferBody
        let session: NetworkSession
        let chain: [any NetworkMiddleware]
        /// The chain's stages that take part in the transfer itself, outermost first.
        let transferStages: [any TransferStage]
        let attempt: UInt64
        /// Requests sent before this one.
        let attemptsBefore: Int
        let deadline: DispatchTime
    }

    let lock = NIOLock()
    #if DEBUG
    /// The operation's life, with the data of the run in progress and the error it ended with.
    var machine = Machine()
    /// Everything else the operation keeps, guarded by `lock`.
    var storage: Storage
    #else
    // Both are read and written under `lock` only, so two accesses never overlap: release
    // builds skip the run-time exclusivity check of each access (about 24 per request, each a
    // look-up in the thread's access set); debug builds, where the tests run, keep it.
    /// The operation's life, with the data of the run in progress and the error it ended with.
    @exclusivity(unchecked) var machine = Machine()
    /// Everything else the operation keeps, guarded by `lock`.
    @exclusivity(unchecked) var storage: Storage
    #endif
    /// The delegate, guarded by `lock` like `storage`. Kept out of `Storage`: reading a weak
    /// field nested in it made Swift copy the whole storage, four times per request.
    weak var lockedDelegate: (any NetworkOperationDelegate)?
    let sink: any ResponseSink
    /// A temporary body file this operation made (a multipart form) and deletes when it ends,
    /// or when it is released without having run.
    package let ownedBodyFile: URL?
    /// The form written to `ownedBodyFile` when the operation first starts a transfer, not when
    /// it is made (the caller's thread does no file I/O); nil when the file is written already.
    package let deferredForm: MultipartFormData?

    /// An operation for `request` whose body comes from `body` and whose response goes to `sink`.
    init(
        request: Result<URLRequest, NetOpsError>, body: TransferBody, sink: any ResponseSink, ownedBodyFile: URL? = nil,
        deferredForm: MultipartFormData? = nil
    ) {
        storage = Self.initialStorage(request: request, body: body)
        self.sink = sink
        self.ownedBodyFile = ownedBodyFile
        self.deferredForm = deferredForm
        super.init()
        deleteOwnedBodyFileWhenFinal()
    }

    /// An operation for `request` whose body travels as `body` and whose response is kept in
    /// memory, or saved at `destination` as a `DownloadOperation` saves it: what other modules
    /// of this package build their typed operations on. With a `deferredForm`, `body` is
    /// `.file(ownedBodyFile)` and the form is written there when the first transfer starts.
    package init(
        request: Result<URLRequest, NetOpsError>, body: TransferBody, ownedBodyFile: URL? = nil, deferredForm: MultipartFormData? = nil,
        destination: URL? = nil
    ) {
        storage = Self.initialStorage(request: request, body: body)
        sink = destination.map { FileSink(destination: $0) } ?? MemorySink()
        self.ownedBodyFile = ownedBodyFile
        self.deferredForm = deferredForm
        super.init()
        deleteOwnedBodyFileWhenFinal()
    }

    deinit {
        if let ownedBodyFile { try? FileManager.default.removeItem(at: ownedBodyFile) }
    }

    private func deleteOwnedBodyFileWhenFinal() {
        guard let ownedBodyFile else { return }
        whenFinal { try? FileManager.default.removeItem(at: ownedBodyFile) }
    }

    private static func initialStorage(request: Result<URLRequest, NetOpsError>, body: TransferBody) -> Storage {
        let idle = (try? request.get().timeoutInterval).flatMap { $0 > 0 ? $0 : nil } ?? 60
        return Storage(request: request, body: body, settings: Settings(idleTimeout: idle))
    }

    /// Runs `body` under the operation's lock.
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Operation

    /// Always true: the operation runs its transfer without holding a thread.
    public override var isAsynchronous: Bool { true }

    /// True while working or suspended.
    public override var isExecuting: Bool { withLock { machine.isExecuting } }

    /// True once the operation ended, `start()` has run (a queue always calls it) and its
    /// completion closures ran: the value changes between the `isFinished` change notifications,
    /// as key-value observing requires, so a queue never sees a slot free before the
    /// operation's completions are done.
    public override var isFinished: Bool { withLock { storage.postedFinished } }

    /// Starts the operation; on a suspended operation, resumes it.
    ///
    /// A queue calls this for you. An operation cancelled before it started finishes at once.
    public override func start() {
        let group = GroupScope.current
        group?.adopt(self)
        // The first start fixes the session and the chain in the same hold that starts the
        // machine; they are made before it, outside the lock.
        let fixing = freezing()
        for stage in fixing.frozen.chain { stage.operationWillStart(self) }
        var fixedHere = true
        withEffects { effects in
            if fixing.isNew { fixedHere = fixLocked(fixing) }
            apply({ $0.start(newRunLocked()) }, to: &effects)
        }
        // Another thread started the operation first: the run slot claimed here is not needed.
        if !fixedHere, let key = fixing.runKey { fixing.frozen.session.runLimits.release(key, until: Date()) }
        // Started while its group is suspended: suspended at once.
        group?.memberStarted(self)
    }

    /// Cancels the operation: the transfer stops, partial data is discarded, the state becomes
    /// `.cancelled` and the completion runs (once). Cancelling a finished operation does nothing.
    public override func cancel() {
        super.cancel()
        withEffects { effects in
            let url = currentURL
            apply({ $0.cancel(NetOpsError(.cancelled, url: url)) }, to: &effects)
        }
    }

    // MARK: State

    /// Where the operation is in its life.
    public var state: OperationState { withLock { machine.state } }

    /// The state in words, e.g. "suspended".
    public var stateDescription: String { state.description }

    /// True until the operation reaches a final state.
    public var isWorkingOrInProcess: Bool { state.isWorkingOrInProcess }

    /// True once the operation succeeded, failed or was cancelled.
    public var isFinishedOrCancelled: Bool { state.isFinishedOrCancelled }

    /// Pauses a working operation: the transfer stops and what arrived is kept.
    ///
    /// - Returns: true when the operation was working and is now suspended.
    @discardableResult
    public func suspend() -> Bool {
        var suspended = false
        withEffects { effects in
            apply(
                { machine in
                    let action = machine.suspend()
                    suspended = action != .none
                    return action
                }, to: &effects)
        }
        return suspended
    }

    /// Continues a suspended operation where it stopped.
    ///
    /// - Returns: true when the operation was suspended and is working again.
    @discardableResult
    public func resume() -> Bool {
        var resumed = false
        withEffects { effects in
            apply(
                { machine in
                    let action = machine.resume(newRunLocked())
                    resumed = action != .none
                    return action
                }, to: &effects)
        }
        return resumed
    }

    // MARK: Transitions

    /// Runs `body` under the lock, then carries out the effects it collected.
    func withEffects(_ body: (inout Effects) -> Void) {
        var effects = Effects()
        lock.lock()
        body(&effects)
        if effects.newState != nil || effects.progress != nil || effects.lifecycle.becameFinal {
            effects.callbackQueue = storage.settings.callbackQueue
        }
        lock.unlock()
        perform(effects)
    }

    /// Asks the machine for `event` under the lock and performs everything it implies.
    func transition(_ event: (inout Machine) -> Machine.Action) {
        withEffects { apply(event, to: &$0) }
    }

    /// Applies `event` to the machine and records its effects. Call with the lock held.
    func apply(_ event: (inout Machine) -> Machine.Action, to effects: inout Effects) {
        let before = machine.snapshot
        let action = event(&machine)
        // Out of the parked state: its time is counted before a replay's deadline is set.
        if before.isPostponed, !machine.isPostponed { unparkedLocked(in: &effects) }
        switch action {
        case .none:
            break
        case .beginTransfer:
            if before.phase == .idle { effects.track = listIfOwnedLocked() }
            switch prepareTransfer(firstRun: before.phase == .idle, effects: &effects) {
            case let .success(prepared):
                effects.begin = prepared
            case let .failure(error):
                _ = machine.transferFinished(failure: error)
                finishLocked(&effects)
            }
        case .stopTransfer:
            break
        case .complete:
            finishLocked(&effects)
        case .stopTransferAndDiscard, .discard, .unpark:
            effects.cleanUp(sink.discard())
            finishLocked(&effects)
        case .park:
            effects.cleanUp(sink.discard())
            storage.response = nil
            storage.progress = TransferProgress()
        }
        record(from: before, to: machine.snapshot, in: &effects)
        if let ended = machine.takeEndedRun() { end(ended, stopping: action != .complete, in: &effects) }
        if action == .park {
            // The parking's number, counted after the run ended, is its ticket in the lot.
            let ticket = parkedLocked(in: &effects)
            if let frozen = storage.frozen {
                let lot = storage.parkedIn ?? frozen.session.parkingLot
                storage.parkedIn = lot
                effects.parkedIn = (lot, ticket, frozen.chain)
            }
        }
    }

    /// The operation just parked: its parked time starts, and counts against its total
    /// deadline, which is armed for the time left. Call with the lock held (after `end`).
    /// - Returns: the parking's number, its ticket in the lot.
    private func parkedLocked(in effects: inout Effects) -> UInt64 {
        let number = newRunLocked().number
        let now = DispatchTime.now()
        storage.history.parked = (now, number)
        guard let total = storage.settings.totalTimeout else { return number }
        let left = max(0, total - storage.history.workedSeconds)
        if let session = sessionInEffectLocked { effects.arm = (session.deadlines, number, now + left) }
        return number
    }

    /// The operation left the parked state (replayed, failed, cancelled): its parked time is
    /// counted as worked, and its parked deadline forgotten. Call with the lock held.
    private func unparkedLocked(in effects: inout Effects) {
        guard let parked = storage.history.parked else { return }
        storage.history.parked = nil
        storage.history.workedSeconds += Self.seconds(since: parked.since)
        if let session = sessionInEffectLocked { effects.disarm = (session.deadlines, parked.number &+ 1) }
    }

    /// Notes what changed between two snapshots of the machine.
    private func record(from before: LifecycleSnapshot, to after: LifecycleSnapshot, in effects: inout Effects) {
        let change = LifecycleChange(from: before, to: after)
        effects.lifecycle.postExecuting = effects.lifecycle.postExecuting || change.postExecuting
        effects.lifecycle.postFinished = effects.lifecycle.postFinished || change.postFinished
        effects.lifecycle.becameFinal = effects.lifecycle.becameFinal || change.becameFinal
        if before.state != after.state { effects.newState = after.state }
        // Any way out of the parked state (replay, abort, cancel) leaves the lot; so does the end
        // of a successor waiting there for its replay (cancelled).
        if before.isPostponed && !after.isPostponed || after.state.isFinishedOrCancelled, let lot = storage.parkedIn {
            storage.parkedIn = nil
            effects.unparkedFrom = lot
        }
    }

    /// A run is over: a file sink writes none of its chunks any more, its working time is
    /// counted, its retry timer cancelled, its deadline forgotten and, unless it completed by
    /// itself, its transfer stopped (after the lock). Call with the lock held.
    func end(_ run: consuming TransferRun, stopping: Bool, in effects: inout Effects) {
        // A chunk of this run may be on its way to the file (written outside this lock): from
        // here on none lands, and the progress counts what the file holds, where a suspended
        // download resumes. (The file's lock is held only for one chunk's write.)
        if let file = sink as? FileSink { storage.progress.bytesReceived = file.stopAdmitting() }
        run.cancelRetryTimer()
        storage.history.workedSeconds += Self.seconds(since: run.startedAt)
        if let session = sessionInEffectLocked { effects.disarm = (session.deadlines, run.number &+ 1) }
        if stopping, let handle = run.handle { effects.stopHandle = handle }
        if let chain = storage.frozen?.chain { effects.runStopped = chain }
    }

    /// Bookkeeping when the operation reaches a final state. Call with the lock held.
    private func finishLocked(_ effects: inout Effects) {
        if let release = releaseRunSlotLocked(), let session = sessionInEffectLocked {
            effects.runLimitRelease = (session.runLimits, release.key, release.until)
        }
    }

    /// The next run: numbered here and nowhere else. Call with the lock held.
    func newRunLocked() -> TransferRun {
        storage.history.runsNumbered &+= 1
        return TransferRun(number: storage.history.runsNumbered)
    }

    /// Seconds from `start` until now.
    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds &- start.uptimeNanoseconds) / 1e9
    }

    /// Carries out effects, outside the lock, in a fixed order: stop the old transfer, start the
    /// new one, report state and progress, and on the final state run the completions, post
    /// `isFinished`, and release every waiter.
    func perform(_ effects: Effects) {
        effects.stopHandle?.cancel()
        if let release = effects.runLimitRelease { release.limits.release(release.key, until: release.until) }
        for cleanup in effects.cleanups { cleanup.run() }
        if let disarm = effects.disarm { disarm.scheduler.disarm(self, before: disarm.before) }
        if let arm = effects.arm { arm.scheduler.arm(self, attempt: arm.run, at: arm.at) }
        // Listed before its transfer starts, so owners find it from then on.
        if effects.track { listForOwners() }
        if let lot = effects.unparkedFrom { lot.remove(self) }
        if let chain = effects.runStopped {
            for stage in chain { stage.operationDidStopRunning(self) }
        }
        if let parked = effects.parkedIn {
            // The stages hear of a parking that still lasts: one a replay or a cancel ended
            // meanwhile is over for them too (a slot it would free is held by the next run).
            if parked.lot.add(self, ticket: parked.ticket) {
                for stage in parked.chain { stage.operationDidPark(self, in: parked.lot) }
            }
        }
        publishExecuting(effects.lifecycle)
        if let state = effects.newState { deliver(on: effects.callbackQueue) { self.notifyState(state) } }
        if let begin = effects.begin { launch(begin) }
        if let report = effects.progress {
            deliver(on: effects.callbackQueue) {
                for handler in report.handlers { handler(self, report.progress) }
                report.delegate?.operation(self, didUpdate: report.progress)
            }
        }
        if effects.lifecycle.becameFinal, let queue = effects.callbackQueue {
            // The completions run on the caller's queue, and the end is posted after them there.
            let lifecycle = effects.lifecycle
            queue.async { self.publishEnd(lifecycle) }
        } else {
            publishEnd(effects.lifecycle)
        }
    }

    /// Runs `work` on `queue`, or here when there is none.
    private func deliver(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        if let queue { queue.async(execute: work) } else { work() }
    }

    /// True when events of the run numbered `number` still matter. Call with the lock held.
    func isCurrent(_ number: UInt64) -> Bool {
        machine.runNumber == number
    }

    func recordPostedFinished() {
        withLock { storage.postedFinished = machine.isFinished }
    }

    /// The URL of the request, when it could be built.
    var currentURL: URL? { try? storage.request.get().url }
}
