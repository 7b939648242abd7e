import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a call did not go: the API belongs to an `APIService` that is shutting down.
public struct ServiceStoppingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The API whose call was refused.
    public let api: String

    /// One readable line.
    public var description: String { "API \(api) takes no new calls: its service is shutting down" }
}

/// The calls of one API in flight, and whether the API takes new ones: the stage through which
/// `APIService` drains an API on shutdown.
///
/// An operation is admitted when it first starts while the API is open, and counted until it
/// is final (it ends once: succeeded, failed or cancelled). Once closed, an operation that
/// starts is refused in `prepare` with `ServiceStoppingError`; one admitted before may still
/// retry, be replayed after a refresh or resume after a suspension until it ends or is
/// cancelled.
final class CallAdmission: NetworkMiddleware, Sendable {
    private struct State {
        var accepting = true
        /// Held strongly until each ends: whoever drains may cancel what is left.
        var inFlight: [ObjectIdentifier: BaseOperation] = [:]
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The API's name, for the refusal.
    let api: String
    private let state = Locked(State())

    init(api: String) {
        self.api = api
    }

    /// Whether the API still takes new calls.
    var isAccepting: Bool { state.withLock { $0.accepting } }

    /// How many of the API's operations are in flight.
    var inFlightCount: Int { state.withLock { $0.inFlight.count } }

    // MARK: NetworkMiddleware

    func operationWillStart(_ operation: BaseOperation) {
        let id = ObjectIdentifier(operation)
        state.withLock { state in
            guard state.accepting, state.inFlight[id] == nil else { return }
            state.inFlight[id] = operation
        }
    }

    /// An operation ended: it is no longer in flight.
    func operationDidFinish(_ operation: BaseOperation) {
        ended(ObjectIdentifier(operation))
    }

    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        let id = ObjectIdentifier(context.operation)
        guard state.withLock({ $0.inFlight[id] != nil }) else { throw ServiceStoppingError(api: api) }
        return .proceed
    }

    // MARK: Draining

    /// Stops taking new calls.
    func close() {
        state.withLock { $0.accepting = false }
    }

    /// Returns once no operation of the API is in flight (at once if none is), or when the
    /// calling task is cancelled.
    func drained() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    guard !state.inFlight.isEmpty, !Task.isCancelled else { return true }
                    state.drainWaiters.append(waiter)
                    return false
                }
                if done { waiter.resume() }
            }
        } onCancel: {
            releaseWaiters()
        }
    }

    /// Cancels every operation still in flight; returns how many.
    @discardableResult
    func cancelAll() -> Int {
        let operations = state.withLock { Array($0.inFlight.values) }
        for operation in operations { operation.cancel() }
        return operations.count
    }

    private func ended(_ id: ObjectIdentifier) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight[id] = nil
            guard state.inFlight.isEmpty else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func releaseWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
