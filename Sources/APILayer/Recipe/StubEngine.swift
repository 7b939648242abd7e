import Dispatch
import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether calls go to the network or answer from templates.
public enum StubMode: Sendable, Equatable {
    /// Calls go to the network.
    case off
    /// Calls answer at once from their method's template, without touching the network.
    case immediate
    /// Calls answer from their method's template after this many seconds.
    case delayed(TimeInterval)

    /// The delay before a stub answers; nil when calls go to the network.
    var delay: TimeInterval? {
        switch self {
        case .off: return nil
        case .immediate: return 0
        case let .delayed(seconds): return max(0, seconds)
        }
    }
}

/// The engine of a stubbed operation: it answers every request with `status` (a status the
/// method accepts) and `body` (a template without its rules, or nothing) after `delay`, and never
/// touches the network. The operation around it keeps every control — owner, timeouts, cancel,
/// suspend — as on a real engine.
struct StubEngine: TransferEngine {
    let status: Int
    let body: Data
    let delay: TimeInterval

    func startTransfer(_ request: URLRequest, body _: TransferBody, events: any EngineEvents) -> any TransferHandle {
        let transfer = StubTransfer(
            url: request.url ?? URL(string: "http://stub.invalid/")!, status: status, body: body,
            events: events)
        CompletionQueue.timers.asyncAfter(deadline: .now() + delay) { CompletionQueue.async { transfer.deliver() } }
        return transfer
    }
}

/// One stubbed answer: delivered whole or cancelled, exactly once.
private final class StubTransfer: TransferHandle, Sendable {
    let url: URL
    let status: Int
    let body: Data
    let events: any EngineEvents
    private let settled = Locked(false)

    init(url: URL, status: Int, body: Data, events: any EngineEvents) {
        self.url = url
        self.status = status
        self.body = body
        self.events = events
    }

    /// True for the first caller only.
    private func settle() -> Bool {
        settled.withLock { done in
            defer { done = true }
            return !done
        }
    }

    func deliver() {
        guard settle() else { return }
        var headers = ["Content-Length": String(body.count)]
        if !body.isEmpty { headers["Content-Type"] = "application/json" }
        if let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers) {
            events.transferDidReceive(response: response)
        }
        events.transferDidReceive(data: body)
        events.transferDidComplete(failure: nil)
    }

    func cancel() {
        guard settle() else { return }
        let events = self.events
        CompletionQueue.async { events.transferDidComplete(failure: .cancelled) }
    }
}
