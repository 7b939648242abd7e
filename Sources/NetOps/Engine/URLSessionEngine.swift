import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default engine: FoundationNetworking's URLSession (libcurl on Linux).
///
/// Every task is delegate-style so that progress is reported, and every task is a data or upload
/// task: downloads stream into the operation's own file, so FoundationNetworking's download temp
/// files (which it never deletes on Linux) are never created.
///
/// FoundationNetworking has no backpressure: libcurl reads as fast as the connection delivers and
/// every chunk waits on the callback queue until the delegate takes it. A transfer whose body goes
/// to a file is therefore fetched in bounded `Range` segments (`SegmentedDownload`), so no more
/// than one segment can pile up; a server without Range support sends the body in one response.
final class URLSessionEngine: TransferEngine {
    /// The length of a download segment when nothing else is asked for: 2 MiB. What is alive at
    /// once is at most two segments (the current one and the one read ahead); the rest of the
    /// peak `bench netops` measures is what the allocator keeps of freed chunks, bounded by
    /// `defaultGiveBackEvery`; see `Docs/operations.md`, "Segment size, and memory given back".
    static let defaultSegmentLength: Int64 = 2 << 20

    /// After how many segments a download gives the memory its chunks left free back to the
    /// system when nothing else is asked for: 8 (16 MiB of body at the default length). After
    /// every segment it halves a 1 GiB download's throughput; after 16 the peak reached 21 MiB;
    /// after 8 it stays at 8–14 MiB (`bench netops --give-back-every N`, see `FreedMemory`).
    static let defaultGiveBackEvery = 8

    /// How many URLSessions this process made for engines: a diagnostic, read by the check that a
    /// service whose operations all run on the NIO engine makes none (`apilayer engine-check`).
    /// Never read on a request's path.
    package static let sessionsMade = Locked(0)

    /// The session every transfer of this engine runs in.
    let session: URLSession
    private let router: SessionDelegateRouter
    /// The queue callbacks run on (an OperationQueue holds its underlying queue unowned).
    private let callbackQueue = DispatchQueue(label: "NetOps.URLSessionEngine.callbacks")
    /// The length of a download segment; nil fetches every body in one request.
    let segmentLength: Int64?
    /// After how many segments a download gives its freed memory back (0: never).
    let giveBackEvery: Int
    /// The proxies libcurl will follow, read from the environment when the engine is made.
    private let environmentProxies = EnvironmentProxies(ProcessInfo.processInfo.environment)
    /// Set by `shutdown()`: later transfers fail at once (a task made on an invalidated
    /// URLSession would stop the process). An atomic, not a lock: every transfer reads it, from
    /// whichever thread starts it, and a lock's word would move between the cores each time.
    private let shutDown = Atomic<Bool>(false)

    /// An engine with its own URLSession made from `configuration`, fetching downloads in
    /// segments of `segmentLength` bytes (nil: in one request); a body of unannounced encoded
    /// size is decoded up to `unannouncedDecodedLimit` bytes.
    init(
        configuration: URLSessionConfiguration, segmentLength: Int64? = URLSessionEngine.defaultSegmentLength,
        giveBackEvery: Int = URLSessionEngine.defaultGiveBackEvery, unannouncedDecodedLimit: Int64 = ContentDecoding.unannouncedLimit
    ) {
        self.segmentLength = segmentLength.map { max(1, $0) }
        self.giveBackEvery = giveBackEvery
        Self.sessionsMade.withLock { $0 += 1 }
        let router = SessionDelegateRouter(unannouncedLimit: unannouncedDecodedLimit)
        self.router = router
        // Callbacks run serially on a plain dispatch queue: cheaper per callback than an
        // OperationQueue's own scheduling, and a delegate-style task makes three or more.
        let callbacks = OperationQueue()
        callbacks.name = "NetOps.URLSessionEngine.callbacks"
        callbacks.maxConcurrentOperationCount = 1
        callbacks.underlyingQueue = callbackQueue
        self.session = URLSession(configuration: Self.withoutCookies(configuration), delegate: router, delegateQueue: callbacks)
    }

    /// A copy of `configuration` that neither sends nor stores cookies: FoundationNetworking's
    /// default is the process-wide `HTTPCookieStorage.shared`, persisted under the home folder,
    /// whose cookies would go from one API to another. Cookies are an operation's `cookieJar`.
    static func withoutCookies(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        copy.httpCookieStorage = nil
        copy.httpShouldSetCookies = false
        copy.httpCookieAcceptPolicy = .never
        return copy
    }

    func startTransfer(_ request: URLRequest, body: TransferBody, events operationEvents: any EngineEvents) -> any TransferHandle {
        let events = CompletionHandOff(operationEvents)
        if shutDown.load(ordering: .sequentiallyConsistent) {
            callbackQueue.async { events.transferDidComplete(failure: .cannotConnect("the URLSession engine of this session was shut down")) }
            return NoTransferHandle()
        }
        if let refusal = refusal(of: operationEvents.transport, for: request.url) {
            callbackQueue.async { events.transferDidComplete(failure: refusal) }
            return NoTransferHandle()
        }
        let task: URLSessionTask
        switch body {
        case .none:
            // A body for a file, or for a reader (`StreamingOperation`), comes in segments: the
            // next one is asked for only when the reader caught up.
            if let segmentLength, events.bodyGoesToFile || events.bodyDemand != nil, SegmentedDownload.canSegment(request) {
                let download = SegmentedDownload(
                    request: request, segmentLength: segmentLength, giveBackEvery: giveBackEvery, events: events
                ) {
                    [session, router] request, events in
                    let task = session.dataTask(with: request)
                    let handle = URLSessionTransferHandle(task: task)
                    router.register(task, events: events, body: .none, handle: handle)
                    task.resume()
                    return handle
                }
                download.begin()
                return download
            }
            task = session.dataTask(with: request)
        case let .data(data):
            task = session.uploadTask(with: request, from: data)
        case let .file(url):
            guard let streamed = Self.streaming(request, from: url) else {
                callbackQueue.async { events.transferDidComplete(failure: .file("cannot read \(url.path)")) }
                return NoTransferHandle()
            }
            // Not `uploadTask(fromFile:)`: FoundationNetworking reads such a file asynchronously
            // and un-pauses the curl handle when a chunk arrives; if the task was cancelled in
            // between, the un-pause fails inside a `try!` and the process dies (found by
            // `apilayer chaos`). A stream body is read synchronously in curl's own callback.
            task = session.dataTask(with: streamed)
        }
        let handle = URLSessionTransferHandle(task: task)
        router.register(task, events: events, body: body, handle: handle)
        task.resume()
        return handle
    }

    /// Why this engine cannot run a transfer to `url` that asks for `transport`, or nil when it
    /// can.
    ///
    /// FoundationNetworking on Linux gives a URLSession no trust roots, client certificate,
    /// TLS version or verification switch of its own (its `URLSessionConfiguration` has no such
    /// property, and its authentication challenges never carry a server trust): libcurl reads
    /// the system's store and verifies as it was built to. Nor can it keep a request off HTTP/2:
    /// Debian's libcurl (7.88, with nghttp2) offers h2 by ALPN on every TLS connection, and
    /// FoundationNetworking never sets `CURLOPT_HTTP_VERSION` (measured: `Docs/engines.md`).
    /// What it cannot apply is refused rather than ignored.
    func refusal(of transport: TransportChoice, for url: URL?) -> TransferFailure? {
        if let tls = transport.tls, !tls.isStandard {
            return .tls(
                "the URLSession engine cannot use these TLS settings (\(tls)): FoundationNetworking on Linux has no "
                    + "per-session trust roots, client certificates, TLS version or verification switch; run this API on the "
                    + "SwiftNIO engine (NetworkSession.nio)")
        }
        if !transport.allowsHTTP2, url?.scheme?.lowercased() == "https" {
            return .tls(
                "the URLSession engine cannot keep an https request on HTTP/1.1 (libcurl offers HTTP/2 by ALPN and "
                    + "FoundationNetworking has no switch for it); run this API on the SwiftNIO engine (NetworkSession.nio)")
        }
        return proxyRefusal(of: transport.proxy, for: url)
    }

    /// Why this engine cannot honour `proxy` for `url`: FoundationNetworking on Linux ignores
    /// `connectionProxyDictionary`, and libcurl follows the environment's proxy variables by
    /// itself (measured: `Docs/engines.md`). So `.environment` is what it does anyway, a given
    /// proxy cannot be set, and going direct cannot be had for a URL the environment sends
    /// through a proxy.
    private func proxyRefusal(of proxy: ProxyChoice?, for url: URL?) -> TransferFailure? {
        switch proxy {
        case nil:
            return nil
        case let .environment(variables):
            // The process's own variables: libcurl does what they say (it can use an https proxy).
            guard let url, variables != environmentProxies else { return nil }
            if let refusal = variables.refusal(for: url) { return .cannotConnect(refusal) }
            guard variables.proxy(for: url) != environmentProxies.proxy(for: url) else { return nil }
            return .cannotConnect(
                "the URLSession engine follows this process's proxy variables, which send \(url.host ?? "the host") "
                    + "\(environmentProxies.proxy(for: url).map { "through \($0)" } ?? "directly"), not as the variables given; "
                    + "run this API on the SwiftNIO engine (NetworkSession.nio)")
        case let .through(settings):
            return .cannotConnect(
                "the URLSession engine cannot send requests through a proxy of its own (\(settings)): FoundationNetworking "
                    + "on Linux ignores connectionProxyDictionary; run this API on the SwiftNIO engine (NetworkSession.nio)")
        case .direct:
            guard let url, let named = environmentProxies.proxy(for: url) else { return nil }
            return .cannotConnect(
                "the URLSession engine cannot connect directly to \(url.host ?? "the host"): libcurl follows the "
                    + "environment's proxy variables (\(named)) and FoundationNetworking cannot turn them off; unset them, "
                    + "add the host to NO_PROXY, or run this API on the SwiftNIO engine (NetworkSession.nio)")
        }
    }

    /// `request` with the readable file at `url` as a streamed body (sent chunked: libcurl
    /// would otherwise send both `Content-Length` and chunked framing); nil when the file
    /// cannot be read.
    static func streaming(_ request: URLRequest, from url: URL) -> URLRequest? {
        guard FileManager.default.isReadableFile(atPath: url.path), let stream = InputStream(url: url) else { return nil }
        var streamed = request
        streamed.httpBody = nil
        streamed.httpBodyStream = stream
        return streamed
    }

    /// Cancels the transfers still running and invalidates the URLSession; later transfers
    /// fail at once. Calling it again does nothing.
    func shutdown() async throws {
        guard !shutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
        session.invalidateAndCancel()
    }

    /// A released engine (its `NetworkSession` released, and with it every operation that ran
    /// in it) invalidates its URLSession, which would otherwise keep its delegate and libcurl's
    /// handles for the life of the process.
    deinit {
        if !shutDown.load(ordering: .sequentiallyConsistent) { session.finishTasksAndInvalidate() }
    }
}

/// Hands the end of a transfer off the session's one serial delegate queue: what an operation
/// does when it ends (completion handlers that wait for another operation of the same session,
/// APILayer's parse, validate and map) must not hold up every other transfer of the session.
/// Every other event is passed on in place, in order; the end comes after all of them.
///
/// Only the operation's end is handed off: the events of a segmented download's requests stay on
/// the queue, whose order `SegmentedDownload` relies on. An end that an awaiting task carries
/// out (`endRelay`: an awaited operation or APILayer call) goes to that task; another one nobody
/// who may block listens to (`completesInPlace`) is delivered right there, with no hop.
final class CompletionHandOff: EngineEvents, @unchecked Sendable {
    private let events: any EngineEvents

    init(_ events: any EngineEvents) {
        self.events = events
    }

    func transferDidReceive(head: ResponseHead) { events.transferDidReceive(head: head) }
    func transferDidReceive(data: Data) { events.transferDidReceive(data: data) }
    func transferDidSend(sent: Int64, expected: Int64?) { events.transferDidSend(sent: sent, expected: expected) }

    func transferDidComplete(failure: TransferFailure?) {
        CompletionQueue.deliverEnd(of: events, failure: failure)
    }

    var bodyGoesToFile: Bool { events.bodyGoesToFile }
    var bodyDemand: (any BodyDemand)? { events.bodyDemand }
    var redirectRules: RedirectRules { events.redirectRules }
    var transport: TransportChoice { events.transport }
    var completesInPlace: Bool { events.completesInPlace }
    var endRelay: EndRelay? { events.endRelay }
}

/// The handle of a transfer that never started (its failure is already on its way).
struct NoTransferHandle: TransferHandle {
    func cancel() {}
}

/// Cancels a transfer's URLSession task: the first one, or the one the router started to follow
/// a redirect with its body.
final class URLSessionTransferHandle: TransferHandle {
    private struct State {
        var task: URLSessionTask
        var cancelled = false
    }

    private let state: Locked<State>

    init(task: URLSessionTask) {
        state = Locked(State(task: task))
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionTask in
            state.cancelled = true
            return state.task
        }
        task.cancel()
    }

    /// Makes `task` the one `cancel()` stops; false when the transfer was cancelled already.
    func replace(with task: URLSessionTask) -> Bool {
        state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.task = task
            return true
        }
    }
}
