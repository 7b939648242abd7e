import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt's transfer through the chain's transfer stages (`TransferStage`): each stage
/// wrapped around the ones after it, the engine innermost.
///
/// It is the events receiver the outermost stage reports to (it passes everything on to the
/// operation's attempt, noting that something arrived) and the handle the operation keeps (a
/// cancel goes to what the outermost stage returned). It holds the stages to their rules: a
/// stage's `next` starts one transfer at a time and nothing once the attempt ended, and a stage
/// that throws or breaks that rule ends the attempt once, with an error naming it, after
/// everything started below it is stopped.
final class StagedTransfer: EngineEvents, TransferHandle, @unchecked Sendable {
    // @unchecked: the mutable state is in `state`; the rest is immutable.

    private struct State {
        /// Per stage, the transfers its `next` started that have not ended.
        var running: [Int]
        /// Per stage, whether it handed the request on at all.
        var handedOn: [Bool]
        /// The innermost stage the request reached.
        var reached = 0
        /// Whatever the stages' `next` started, to stop when a stage breaks a rule.
        var started: [any TransferHandle] = []
        /// The handle the outermost stage returned, once it returned.
        var outer: (any TransferHandle)?
        var cancelled = false
        /// A stage broke a rule: the attempt ended; nothing more is started.
        var faulted = false
        /// A head, an end or upload progress reached the operation.
        var heard = false
        /// The end reached the operation.
        var ended = false
    }

    private let operation: BaseOperation
    /// The number of the operation's run this attempt belongs to.
    private let runNumber: UInt64
    /// The operation's side of the transfer.
    private let attemptEvents: any EngineEvents
    private let stages: [any TransferStage]
    private let context: TransferContext
    /// The chain and the context the stages judge the attempt in when a stage broke a rule.
    private let chain: [any NetworkMiddleware]
    private let middlewareContext: MiddlewareContext
    private let request: URLRequest
    private let state: Locked<State>

    init(
        operation: BaseOperation, runNumber: UInt64, attempt: Int, request: URLRequest, body: TransferBody, attemptEvents: any EngineEvents,
        stages: [any TransferStage], chain: [any NetworkMiddleware], session: NetworkSession
    ) {
        self.operation = operation
        self.runNumber = runNumber
        self.attemptEvents = attemptEvents
        self.stages = stages
        self.chain = chain
        self.request = request
        context = TransferContext(operation: operation, attempt: attempt, session: session, body: body, attemptEvents: attemptEvents)
        middlewareContext = MiddlewareContext(operation: operation, attempt: attempt, session: session)
        state = Locked(State(running: Array(repeating: 0, count: stages.count), handedOn: Array(repeating: false, count: stages.count)))
    }

    /// Hands the request to the outermost stage; returns the handle the operation keeps (this).
    func start() -> any TransferHandle {
        let outer = enter(0, request, events: self)
        let cancelNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            // An answer given at once ended the attempt already: nothing is left to stop.
            if !state.ended { state.outer = outer }
            return false
        }
        if cancelNow { outer.cancel() }
        return self
    }

    /// Starts stage `index` on `request` (the engine past the last stage).
    private func enter(_ index: Int, _ request: URLRequest, events: any EngineEvents) -> any TransferHandle {
        guard index < stages.count else { return context.session.engine.startTransfer(request, body: context.body, events: events) }
        state.withLock { $0.reached = max($0.reached, index) }
        let stage = stages[index]
        do {
            return try stage.startTransfer(request, context: context, events: events, next: TransferNext(run: self, index: index + 1))
        } catch {
            fault(operation.operationError(error))
            return AnsweredTransfer()
        }
    }

    /// `next` of the stage before `index` was called: starts stage `index` (or the engine),
    /// unless that stage has a transfer running already or the attempt is over.
    func passOn(_ request: URLRequest, events: any TransferEvents, to index: Int) -> any TransferHandle {
        let caller = index - 1
        enum Admission {
            case over
            case twice
            case admitted
        }
        let admission = state.withLock { state -> Admission in
            // Once the end reached the operation, the attempt is over: nothing more is sent.
            if state.faulted || state.cancelled || state.ended { return .over }
            if state.running[caller] > 0 { return .twice }
            state.running[caller] += 1
            state.handedOn[caller] = true
            return .admitted
        }
        switch admission {
        case .over:
            events.transferDidComplete(failure: .cancelled)
            return AnsweredTransfer()
        case .twice:
            fault(NetOpsError(rejecting: TransferStageMisuse(stage: Self.name(of: stages[caller]), problem: .handedOnTwice), url: request.url))
            return AnsweredTransfer()
        case .admitted:
            let link = StageLink(run: self, stage: caller, events: events, attributes: events as? any EngineEvents ?? attemptEvents)
            let handle = enter(index, request, events: link)
            let stop = state.withLock { state -> Bool in
                guard !state.faulted else { return true }
                if !state.ended { state.started.append(handle) }
                return false
            }
            if stop { handle.cancel() }
            return handle
        }
    }

    /// A transfer the `next` of stage `index` started ended.
    fileprivate func innerEnded(_ index: Int) {
        state.withLock { $0.running[index] = max(0, $0.running[index] - 1) }
    }

    /// A stage broke a rule: the attempt ends with `error` (once), and whatever the stages
    /// started is stopped.
    private func fault(_ error: NetOpsError) {
        let started = state.withLock { state -> [any TransferHandle]? in
            guard !state.faulted else { return nil }
            state.faulted = true
            defer { state.started = [] }
            return state.started
        }
        guard let started else { return }
        operation.refuseAttempt(runNumber, request: request, error: error, chain: chain, context: middlewareContext, counted: true)
        for handle in started { handle.cancel() }
    }

    /// The stage the request was last with, when nothing reached the operation and that stage
    /// neither answered nor handed it on: what an idle timeout names.
    var keeper: TransferStageMisuse? {
        state.withLock { state -> TransferStageMisuse? in
            guard !state.heard, !state.handedOn[state.reached] else { return nil }
            return TransferStageMisuse(stage: Self.name(of: stages[state.reached]), problem: .keptRequest)
        }
    }

    private static func name(of stage: any TransferStage) -> String {
        String(describing: type(of: stage))
    }

    // MARK: TransferHandle

    func cancel() {
        let outer = state.withLock { state -> (any TransferHandle)? in
            state.cancelled = true
            return state.outer
        }
        outer?.cancel()
    }

    // MARK: EngineEvents (what the outermost stage reports)

    func transferDidReceive(head: ResponseHead) {
        noteHeard()
        attemptEvents.transferDidReceive(head: head)
    }

    func transferDidReceive(data: Data) {
        attemptEvents.transferDidReceive(data: data)
    }

    func transferDidSend(sent: Int64, expected: Int64?) {
        noteHeard()
        attemptEvents.transferDidSend(sent: sent, expected: expected)
    }

    func transferDidComplete(failure: TransferFailure?) {
        // The attempt is over: what the stages started is let go, so that no handle (an engine's,
        // a shared transfer's part) that reports to this run keeps it, and the operation, alive.
        let released = state.withLock { state -> (started: [any TransferHandle], outer: (any TransferHandle)?) in
            state.heard = true
            state.ended = true
            defer {
                state.started = []
                state.outer = nil
            }
            return (state.started, state.outer)
        }
        attemptEvents.transferDidComplete(failure: failure)
        withExtendedLifetime(released) {}
    }

    private func noteHeard() {
        state.withLock { $0.heard = true }
    }

    var bodyGoesToFile: Bool { attemptEvents.bodyGoesToFile }
    var bodyDemand: (any BodyDemand)? { attemptEvents.bodyDemand }
    var redirectRules: RedirectRules { attemptEvents.redirectRules }
    var transport: TransportChoice { attemptEvents.transport }
    var completesInPlace: Bool { attemptEvents.completesInPlace }
    var endRelay: EndRelay? { attemptEvents.endRelay }
}

/// The events receiver a stage's `next` hands to what it starts: passes every event to the
/// receiver the stage gave, notes the end (so the stage may hand the request on again), and
/// answers the engine's questions from that receiver when it can, else from the operation.
private final class StageLink: EngineEvents, @unchecked Sendable {
    // @unchecked: immutable; the run is Sendable by its lock.
    private let run: StagedTransfer
    private let stage: Int
    private let events: any TransferEvents
    private let attributes: any EngineEvents

    init(run: StagedTransfer, stage: Int, events: any TransferEvents, attributes: any EngineEvents) {
        self.run = run
        self.stage = stage
        self.events = events
        self.attributes = attributes
    }

    func transferDidReceive(head: ResponseHead) { events.transferDidReceive(head: head) }
    func transferDidReceive(data: Data) { events.transferDidReceive(data: data) }
    func transferDidSend(sent: Int64, expected: Int64?) { events.transferDidSend(sent: sent, expected: expected) }

    func transferDidComplete(failure: TransferFailure?) {
        run.innerEnded(stage)
        events.transferDidComplete(failure: failure)
    }

    var bodyGoesToFile: Bool { attributes.bodyGoesToFile }
    var bodyDemand: (any BodyDemand)? { attributes.bodyDemand }
    var redirectRules: RedirectRules { attributes.redirectRules }
    var transport: TransportChoice { attributes.transport }
    var completesInPlace: Bool { attributes.completesInPlace }
    var endRelay: EndRelay? { attributes.endRelay }
}

/// The handle of a transfer a stage answered itself, at once: there is nothing to stop.
public struct AnsweredTransfer: TransferHandle {
    /// A handle that stops nothing.
    public init() {}

    /// Does nothing: the answer was given.
    public func cancel() {}
}
