import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download on the URLSession engine fetched as bounded `Range` segments, one request after
/// another, and reported to the operation as one response.
///
/// The operation sees a single transfer: one response head (a 200 with the whole length, or a 206
/// from its own `Range` offset to the end), the body chunks in order, one completion. What each
/// answer of the server means is `SegmentPlan`'s decision; this class holds the plan under a lock,
/// starts and cancels the URLSession tasks outside it, and forwards events. Every event arrives on
/// the engine's serial callback queue, so forwarding keeps their order.
///
/// While the next segment is read ahead, its events are kept here (at most one segment's bytes)
/// and fed back through the plan when it becomes the current request.
final class SegmentedDownload: TransferHandle, @unchecked Sendable {
    /// Starts a data task for a request whose events go to the given handler.
    typealias TaskStarter = @Sendable (URLRequest, any EngineEvents) -> any TransferHandle

    /// An event of the request read ahead, kept until it becomes the current request.
    private enum HeldEvent {
        case response(HTTPURLResponse)
        case data(Data)
        case completion(TransferFailure?)
    }

    private struct State {
        var plan: SegmentPlan
        /// The tasks made and not yet known to be over or dropped (the current request's and the
        /// one read ahead), by request number.
        var tasks: [(number: UInt64, task: any TransferHandle)] = []
        /// The events of the request read ahead, in order.
        var held: [HeldEvent] = []
        /// Segments whose body was handed on whole, since the freed memory was last given back.
        var segmentsSinceGiveBack = 0
    }

    private let request: URLRequest
    private let events: any EngineEvents
    private let startTask: TaskStarter
    private let state: Locked<State>
    /// After how many segments the memory their chunks left free is given back (0: never).
    private let giveBackEvery: Int

    /// A download of `request` (a body-less GET, with at most a `Range: bytes=N-` of its own) in
    /// segments of `segmentLength` bytes, giving the memory freed by its chunks back to the
    /// system every `giveBackEvery` segments (`FreedMemory`; 0: never).
    init(
        request: URLRequest, segmentLength: Int64, giveBackEvery: Int = 0, events: any EngineEvents,
        startTask: @escaping TaskStarter
    ) {
        self.request = request
        self.events = events
        self.startTask = startTask
        self.giveBackEvery = max(0, giveBackEvery)
        let plan = SegmentPlan(
            segmentLength: segmentLength, callerOffset: Self.openRangeStart(of: request),
            callerValidator: request.value(forHTTPHeaderField: "If-Range"))
        state = Locked(State(plan: plan))
    }

    /// True when `request` may be fetched in segments: a GET without a body whose only `Range`,
    /// if any, asks for everything from one offset on (what a resumed operation sends).
    static func canSegment(_ request: URLRequest) -> Bool {
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard method == "GET", request.httpBody == nil, request.httpBodyStream == nil else { return false }
        guard request.value(forHTTPHeaderField: "Range") != nil else { return true }
        return openRangeStart(of: request) != nil
    }

    /// N of a `Range: bytes=N-` header; nil without one or for any other range.
    static func openRangeStart(of request: URLRequest) -> Int64? {
        guard let header = request.value(forHTTPHeaderField: "Range")?.trimmingHTTPWhitespace(),
            header.lowercased().hasPrefix("bytes="), header.hasSuffix("-")
        else { return nil }
        let digits = header.dropFirst("bytes=".count).dropLast()
        guard let first = Int64(digits), first >= 0 else { return nil }
        return first
    }

    /// Sends the first segment's request.
    func begin() {
        let first = state.withLock { $0.plan.firstRequest }
        send(first, number: 0)
    }

    func cancel() {
        let tasks = state.withLock { state -> [any TransferHandle] in
            guard state.plan.cancel() else { return [] }
            state.held = []
            return state.tasks.map(\.task)
        }
        // A task still being made is cancelled by `send` when it sees the plan cancelled.
        for task in tasks { task.cancel() }
    }

    // MARK: Events of the segments' tasks

    fileprivate func segment(_ number: UInt64, didReceive response: HTTPURLResponse) {
        perform(receive(.response(response), of: number), data: nil)
    }

    fileprivate func segment(_ number: UInt64, didReceive data: Data) {
        perform(receive(.data(data), of: number), data: data)
    }

    fileprivate func segment(_ number: UInt64, didCompleteWith failure: TransferFailure?) {
        perform(receive(.completion(failure), of: number), data: nil)
    }

    /// Hands `event` of request `number` to the plan, and keeps it when the plan says to hold it.
    private func receive(_ event: HeldEvent, of number: UInt64) -> SegmentPlan.Action {
        state.withLock { state in
            let action: SegmentPlan.Action
            switch event {
            case let .response(response): action = state.plan.received(response: response, of: number)
            case let .data(data): action = state.plan.received(count: data.count, of: number)
            case let .completion(failure): action = state.plan.completed(failure, of: number)
            }
            if action == .hold { state.held.append(event) }
            return action
        }
    }

    // MARK: Actions

    private func perform(_ action: SegmentPlan.Action, data: Data?) {
        switch action {
        case .none, .hold:
            return
        case let .forwardResponse(response):
            events.transferDidReceive(response: response)
        case .forwardData:
            if let data { events.transferDidReceive(data: data) }
        case let .forwardDataAndSendAhead(next, number):
            if let data { events.transferDidReceive(data: data) }
            // A reader that is behind is waited for: no more than the segment in progress and
            // the reader's buffer pile up.
            if let demand = events.bodyDemand, !demand.whenReady({ [self] in send(next, number: number) }) { return }
            send(next, number: number)
        case let .replayHeld(number):
            segmentEnded()
            replay(number)
        case let .send(next, number, cancelCurrent):
            if cancelCurrent { cancelTasks(before: number) } else { segmentEnded() }
            send(next, number: number)
        case let .complete(failure, _):
            // The request read ahead, if any, is not wanted any more either.
            cancelTasks(before: .max)
            events.transferDidComplete(failure: failure)
        }
    }

    /// Counts a segment handed on whole, and every `giveBackEvery` segments gives the memory its
    /// chunks left free back to the system.
    private func segmentEnded() {
        guard giveBackEvery > 0 else { return }
        let due = state.withLock { state -> Bool in
            state.segmentsSinceGiveBack += 1
            guard state.segmentsSinceGiveBack >= giveBackEvery else { return false }
            state.segmentsSinceGiveBack = 0
            return true
        }
        if due { FreedMemory.giveBack() }
    }

    /// Feeds the held events of request `number`, now the current one, back through the plan, in
    /// order, as if they arrived now (they arrived on the same serial queue, so no newer event
    /// of that request can overtake them).
    private func replay(_ number: UInt64) {
        let held = state.withLock { state -> [HeldEvent] in
            defer { state.held = [] }
            return state.held
        }
        for event in held {
            switch event {
            case let .response(response): segment(number, didReceive: response)
            case let .data(data): segment(number, didReceive: data)
            case let .completion(failure): segment(number, didCompleteWith: failure)
            }
        }
    }

    /// Cancels the tasks of requests older than `number` (their late events are ignored) and
    /// drops what was held of them.
    private func cancelTasks(before number: UInt64) {
        let tasks = state.withLock { state -> [any TransferHandle] in
            let old = state.tasks.filter { $0.number < number }.map(\.task)
            state.tasks.removeAll { $0.number < number }
            state.held = []
            return old
        }
        for task in tasks { task.cancel() }
    }

    /// Makes and starts the task of request `number` (outside the lock: making a task waits for
    /// FoundationNetworking's shared queue), then records it, or cancels it when the caller
    /// cancelled meanwhile or the plan no longer wants it.
    private func send(_ next: SegmentPlan.Request, number: UInt64) {
        let task = startTask(urlRequest(for: next), SegmentEvents(download: self, number: number))
        let cancelNow = state.withLock { state -> Bool in
            guard state.plan.current == number || state.plan.ahead == number else { return true }
            // Requests older than the current one are over: forget their tasks.
            state.tasks.removeAll { $0.number < state.plan.current }
            state.tasks.append((number, task))
            return state.plan.isCancelled
        }
        if cancelNow { task.cancel() }
    }

    private func urlRequest(for next: SegmentPlan.Request) -> URLRequest {
        var made = request
        switch next {
        case let .range(first, last, ifRange):
            made.setValue("bytes=\(first)-\(last)", forHTTPHeaderField: "Range")
            made.setValue(ifRange, forHTTPHeaderField: "If-Range")
        case let .whole(withoutRange):
            if withoutRange {
                made.setValue(nil, forHTTPHeaderField: "Range")
                made.setValue(nil, forHTTPHeaderField: "If-Range")
            }
        }
        return made
    }

    /// The redirect rules of the operation the download belongs to, for each segment's request.
    var redirectRules: RedirectRules { events.redirectRules }
    var transport: TransportChoice { events.transport }

    /// How many requests the download sent so far, and how often it started over (for tests).
    var counts: (requests: Int, restarts: Int) {
        state.withLock { ($0.plan.requestsSent, $0.plan.restarts) }
    }
}

/// Forwards one segment request's events to its download, tagged with the request's number.
private final class SegmentEvents: EngineEvents, @unchecked Sendable {
    let download: SegmentedDownload
    let number: UInt64

    init(download: SegmentedDownload, number: UInt64) {
        self.download = download
        self.number = number
    }

    func transferDidReceive(head: ResponseHead) {
        download.segment(number, didReceive: head.httpURLResponse)
    }

    func transferDidReceive(data: Data) {
        download.segment(number, didReceive: data)
    }

    func transferDidSend(sent: Int64, expected: Int64?) {}

    var redirectRules: RedirectRules { download.redirectRules }
    var transport: TransportChoice { download.transport }

    func transferDidComplete(failure: TransferFailure?) {
        download.segment(number, didCompleteWith: failure)
    }
}
