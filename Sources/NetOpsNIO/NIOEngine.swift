import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NetOps
import Synchronization
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// NetOps' engine on AsyncHTTPClient: one `HTTPClient` per session, on NIO's shared event loops.
///
/// Each transfer's events come from its own event loop (response head, body chunks and upload
/// progress in order, on that loop) and its completion from a dispatch queue of its own, so there
/// is no queue every transfer of the process must pass through.
final class NIOEngine: TransferEngine {
    /// The client of direct cleartext transfers, and of direct TLS transfers kept on HTTP/1.1.
    let client: HTTPClient
    /// The other clients, each made the first time a transfer needs it (`ClientKey`): TLS
    /// transfers that may use HTTP/2 (ALPN offers `h2` and `http/1.1`), and transfers through a
    /// proxy, one client per proxy (AsyncHTTPClient sets a proxy per client). Cleartext never
    /// goes to an HTTP/2 client: AsyncHTTPClient's pool for a client that may speak HTTP/2 opens
    /// one connection to a new host and queues every request behind it until it knows the
    /// protocol, which an HTTP/1.1-only pool does not.
    private let otherClients = NIOLockedValueBox<[ClientKey: HTTPClient]>([:])
    /// The origins that answered the HTTP/2 clients over HTTP/2: their requests run on one
    /// event loop each (`HTTP2Pinning`).
    private let http2Pinning = HTTP2Pinning()
    /// The loops HTTP/1.1 requests started off the loops prefer (`LoopBalance`).
    let loopBalance = LoopBalance()
    /// Whether TLS transfers may use HTTP/2 at all.
    private let offersHTTP2: Bool
    /// The session's proxy choice, for transfers that make none of their own.
    private let proxy: ProxyChoice
    /// The settings `client` was made with, for the other clients.
    private let settings: HTTPClient.Configuration
    /// The session's TLS settings: a transfer with these needs no TLS configuration of its own.
    private let tls: TLSSettings
    /// Why the session's TLS settings cannot be used (a client key of another certificate), if
    /// they cannot: every transfer on them fails with it, naming the file.
    private let defaultTLSFailure: TLSSettingsError?

    /// The session's TLS settings, for a transfer that asks for none of its own.
    var defaultTLS: TLSSettings { tls }
    private let logger: Logger
    private let completionDelivery: NIOEngineConfiguration.CompletionDelivery
    private let decompressionRatio: Int
    /// Whether redirects are followed at all, and how many at most.
    private let followsRedirects: Bool
    let maximumRedirects: Int
    /// Set once by `shutdown()`. An atomic, not a lock: every transfer reads it twice, from
    /// whichever thread starts it, and a lock's word would move between the cores each time.
    private let shutDown = Atomic<Bool>(false)
    /// The unverifying TLS settings transfers used so far: each is warned of once.
    private let insecureSettingsSeen = NIOLockedValueBox<Set<ObjectIdentifier>>([])

    /// An engine with its own client made from `configuration`.
    init(configuration: NIOEngineConfiguration) {
        var settings = HTTPClient.Configuration()
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.maximumConnectionsPerHost
        pool.idleTimeout = .nanoseconds(Int64(configuration.idleConnectionTimeout * 1e9))
        pool.retryConnectionEstablishment = configuration.retriesConnectionEstablishment
        pool.preWarmedHTTP1ConnectionCount = max(0, configuration.preWarmedConnectionsPerHost)
        settings.connectionPool = pool
        settings.maximumUsesPerConnection = configuration.maximumUsesPerConnection.map { max(1, $0) }
        settings.dnsOverride = configuration.dnsOverride
        if configuration.randomizesResolution { settings.dnsResolver = .randomized }
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: .nanoseconds(Int64(configuration.connectTimeout * 1e9)), read: nil)
        // The engine follows redirects itself (`NIOTransferDelegate`), as the URLSession engine
        // does: AsyncHTTPClient would strip only `Authorization`, not the other headers an API
        // declares secret, and has no hook to tell it which.
        settings.redirectConfiguration = .disallow
        // HTTP/2 is negotiated by ALPN on TLS connections only, in the second client.
        settings.httpVersion = .http1Only
        // The engine offers gzip and deflate in `Accept-Encoding` when a request names none, and
        // its delegate decodes them (`BodyInflater`) and refuses any other coding; AsyncHTTPClient's
        // own decompression would put a handler into every connection that every request pays.
        settings.decompression = .disabled
        let tls = configuration.insecureSkipCertificateVerification ? TLSSettings.insecureWithoutVerification() : configuration.tls
        if !tls.verifiesCertificates {
            configuration.logger.warning(
                "NetOpsNIO: TLS certificate verification is OFF (insecureSkipCertificateVerification); use only against test servers")
        }
        switch tls.nioBuild.configuration {
        case let .success(configuration):
            settings.tlsConfiguration = configuration
            defaultTLSFailure = nil
        case let .failure(error):
            settings.tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            defaultTLSFailure = error
        }
        self.tls = tls
        if !configuration.makesClientSpans {
            // Operations and APILayer report their own spans; AsyncHTTPClient's would duplicate
            // them, and cost a no-op span's work per request when no tracer is bootstrapped.
            settings.tracing.tracer = nil
        }
        self.logger = configuration.logger
        self.followsRedirects = configuration.followsRedirects
        self.maximumRedirects = configuration.maximumRedirects
        self.completionDelivery = configuration.completionDelivery
        self.decompressionRatio = configuration.decompressionRatioLimit
        self.offersHTTP2 = configuration.allowsHTTP2
        self.proxy = configuration.proxy
        self.settings = settings
        self.client = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: settings,
            backgroundActivityLogger: configuration.logger)
    }

    deinit {
        // A dropped session still releases its connections (AsyncHTTPClient traps in debug
        // builds when a running client is deallocated).
        if !shutDown.load(ordering: .sequentiallyConsistent) {
            client.shutdown { _ in }
            for other in otherClients.withLockedValue({ Array($0.values) }) { other.shutdown { _ in } }
        }
    }

    /// Closes every connection and shuts the clients down; later transfers fail at once.
    func shutdown() async throws {
        let first = !shutDown.exchange(true, ordering: .sequentiallyConsistent)
        guard first else { return }
        // Read after the flag: no other client is made once the flag shows (`client(for:)`).
        let others = otherClients.withLockedValue { Array($0.values) }
        try await client.shutdown()
        for other in others {
            do {
                try await other.shutdown()
            } catch let error as HTTPClientError where error == .alreadyShutdown {
                // The transfer that made it saw the flag and shut it down itself.
            }
        }
    }

    /// Which client a transfer runs in: through which proxy, and whether it may use HTTP/2.
    private struct ClientKey: Hashable {
        var proxy: ProxySettings?
        var http2: Bool
    }

    /// The client for a transfer to `url` asking for `transport`, and the key it was made for.
    private func client(for url: URL?, transport: TransportChoice) -> (HTTPClient, ClientKey) {
        let key = ClientKey(
            proxy: (transport.proxy ?? proxy).proxy(for: url),
            http2: offersHTTP2 && transport.allowsHTTP2 && url?.scheme?.lowercased() == "https")
        if key.proxy == nil, !key.http2 { return (client, key) }
        if let made = otherClients.withLockedValue({ $0[key] }) { return (made, key) }
        var settings = settings
        if key.http2 { settings.httpVersion = .automatic }
        if let proxy = key.proxy { settings.proxy = Self.proxy(proxy) }
        // Made outside the lock; a client made by a transfer that lost the race is shut down.
        let made = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: settings,
            backgroundActivityLogger: logger)
        let (chosen, spare) = otherClients.withLockedValue { clients -> (HTTPClient, HTTPClient?) in
            if let existing = clients[key] { return (existing, made) }
            clients[key] = made
            return (made, nil)
        }
        spare?.shutdown { _ in }
        // A shutdown that read the slot before this transfer filled it would leave it running.
        if spare == nil, shutDown.load(ordering: .sequentiallyConsistent) { chosen.shutdown { _ in } }
        return (chosen, key)
    }

    /// `nio`, the TLS settings' fingerprint (the transfer's, else the session's) and the proxy
    /// the transfer goes through.
    func transportIdentity(for transport: TransportChoice, url: URL?) -> String {
        let tls = (transport.tls ?? self.tls).fingerprint
        let proxy = (transport.proxy ?? self.proxy).proxy(for: url)?.fingerprint ?? "direct"
        return "nio tls=\(tls) proxy=\(proxy)"
    }

    func startTransfer(_ request: URLRequest, body: TransferBody, events: any EngineEvents) -> any TransferHandle {
        let handle = NIOTransferHandle()
        launch(request, body: body, events: events, trail: NIORedirectTrail(first: request.url), handle: handle)
        return handle
    }

    /// Starts one hop of a transfer: its first request, or the one a redirect leads to.
    func launch(_ request: URLRequest, body: TransferBody, events: any EngineEvents, trail: NIORedirectTrail, handle: NIOTransferHandle) {
        let transport = events.transport
        if case let .environment(variables) = transport.proxy ?? proxy, let url = request.url, let refusal = variables.refusal(for: url) {
            // A proxy variable NetOps cannot use: going direct would bypass what it asks for.
            let delegate = NIOTransferDelegate(events: events, url: request.url)
            if handle.adopt(delegate) { delegate.failBeforeStart(.cannotConnect(refusal)) } else { delegate.failBeforeStart(.cancelled) }
            return
        }
        let (chosenClient, key) = client(for: request.url, transport: transport)
        let origin = request.url.flatMap(Origin.init)
        // A request that may go over HTTP/2 watches which protocol its origin answers with.
        let watch =
            key.http2
            ? origin.map { origin in HTTP2Watch(pinning: http2Pinning, origin: origin, pinned: http2Pinning.pins(origin)) } : nil
        let hop = NIORedirectFollower(engine: self, request: request, body: body, trail: trail, handle: handle)
        let delegate = NIOTransferDelegate(
            events: events, url: request.url, method: request.httpMethod ?? "GET", decompressionRatio: decompressionRatio,
            completesOnEventLoop: completionDelivery == .eventLoop, redirects: followsRedirects ? hop : nil,
            resend: !trail.resent && Self.maySendTwice(request) ? hop : nil, http2Watch: watch)
        guard handle.adopt(delegate) else {
            delegate.failBeforeStart(.cancelled)
            return
        }
        let built: HTTPClient.Request
        do {
            // A redirect to another origin presents no client certificate: it identifies the
            // service to the API it was made for, not to whatever host a redirect names.
            let crossOrigin = trail.count > 0 && origin != trail.firstOrigin
            built = try Self.makeRequest(
                request, body: body, delegate: delegate, tls: tlsConfiguration(for: transport, withoutClientCertificate: crossOrigin))
        } catch let error as TLSSettingsError {
            // Settings whose key does not belong to their certificate: nothing is sent.
            delegate.failBeforeStart(.tls(error.description))
            return
        } catch {
            delegate.failBeforeStart(NIOFailureMapping.failure(from: error, connected: false))
            return
        }
        if shutDown.load(ordering: .sequentiallyConsistent) {
            delegate.failBeforeStart(.cannotConnect("the NIO engine of this session was shut down"))
            return
        }
        // HTTP/2 origins known as such run pinned to a loop; the others prefer a balanced one.
        let pinned = watch?.pinned == true
        let claim = pinned ? nil : origin.map(loopBalance.claim)
        if let claim { delegate.hold(claim, of: loopBalance) }
        let preference = claim.map { .delegate(on: $0.loop) } ?? HTTP2Pinning.preference(pinned: pinned)
        let task = chosenClient.execute(request: built, delegate: delegate, eventLoop: preference, deadline: nil, logger: nil)
        // The delegate watches the task's future from its first callback on. A client shut down
        // since the check above fails the task before any callback, without telling the
        // delegate: `shutdown()` sets the flag before it shuts the client down, so it shows here.
        if shutDown.load(ordering: .sequentiallyConsistent) {
            task.futureResult.whenFailure { error in delegate.taskDidFail(error) }
        }
        if !handle.attach(task) { task.cancel() }
    }

    /// Whether the engine may send `request` a second time when a kept-alive connection is
    /// dropped under it before an answer: an idempotent method (RFC 9110 §9.2.2), or a request
    /// that carries an idempotency key (the server recognises it as sent before).
    static func maySendTwice(_ request: URLRequest) -> Bool {
        let method = request.httpMethod.map(\.uppercasedASCII) ?? "GET"
        if RetryPolicy.idempotentMethods.contains(method) { return true }
        return request.value(forHTTPHeaderField: "Idempotency-Key") != nil || request.value(forHTTPHeaderField: "X-Idempotency-Key") != nil
    }

    /// A proxy in AsyncHTTPClient's terms.
    private static func proxy(_ proxy: ProxySettings) -> HTTPClient.Configuration.Proxy {
        switch proxy.kind {
        case .httpConnect:
            let authorization = proxy.credentials.map { HTTPClient.Authorization.basic(username: $0.username, password: $0.password) }
            return .server(host: proxy.host, port: proxy.port, authorization: authorization)
        case .socks5:
            return .socksServer(host: proxy.host, port: proxy.port)
        }
    }

    /// The TLS configuration a transfer asking for `transport` needs of its own; nil when the
    /// session's serves (AsyncHTTPClient then pools its connections with the session's). A hop
    /// `withoutClientCertificate` (a redirect to another origin) gets the same settings without
    /// the client certificate.
    private func tlsConfiguration(
        for transport: TransportChoice, withoutClientCertificate: Bool = false
    ) throws(TLSSettingsError) -> TLSConfiguration? {
        let chosen = transport.tls ?? tls
        if withoutClientCertificate, chosen.clientCertificate != nil {
            return try chosen.withoutClientCertificate().nioBuild.configuration.get()
        }
        guard let own = transport.tls, !own.isIdentical(to: tls) else {
            if let defaultTLSFailure { throw defaultTLSFailure }
            return nil
        }
        if !own.verifiesCertificates, insecureSettingsSeen.withLockedValue({ $0.insert(own.identity).inserted }) {
            logger.warning(
                "NetOpsNIO: transfers run with TLS certificate verification OFF (TLSSettings.insecureWithoutVerification); use only against test servers"
            )
        }
        return try own.nioBuild.configuration.get()
    }

    /// Translates a `URLRequest` and a NetOps body into AsyncHTTPClient's request, with TLS
    /// settings of its own when `tls` is given.
    static func makeRequest(
        _ request: URLRequest, body: TransferBody, delegate: NIOTransferDelegate, tls: TLSConfiguration? = nil
    ) throws -> HTTPClient.Request {
        guard let url = request.url else { throw HTTPClientError.invalidURL }
        var headers = HTTPHeaders()
        var namesCodings = false
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            // AsyncHTTPClient frames the body itself.
            if name.isFraming { continue }
            if !namesCodings, name.caseInsensitiveEquals("Accept-Encoding") { namesCodings = true }
            headers.add(name: name, value: value)
        }
        if !namesCodings { headers.add(name: "Accept-Encoding", value: NIOTransferDelegate.acceptEncoding) }
        let method = NIOHTTP1.HTTPMethod(rawValue: request.httpMethod.map(\.uppercasedASCII) ?? "GET")
        let payload: HTTPClient.Body?
        switch body {
        case .none:
            if let data = request.httpBody {
                delegate.expectUpload(Int64(data.count))
                payload = .bytes(data)
            } else {
                payload = nil
            }
        case let .data(data):
            delegate.expectUpload(Int64(data.count))
            payload = .bytes(data)
        case let .file(fileURL):
            let size = try NIOFileBody.size(of: fileURL)
            delegate.expectUpload(size)
            payload = NIOFileBody.stream(fileURL, size: size)
        }
        return try HTTPClient.Request(url: url, method: method, headers: headers, body: payload, tlsConfiguration: tls)
    }
}

/// Cancels a transfer's AsyncHTTPClient task: the first one, or the one a followed redirect
/// started.
final class NIOTransferHandle: TransferHandle {
    private struct State {
        var task: HTTPClient.Task<Void>?
        var delegate: NIOTransferDelegate?
        var cancelled = false
    }

    private let state = NIOLockedValueBox(State())

    func cancel() {
        let (task, delegate) = state.withLockedValue { state in
            state.cancelled = true
            return (state.task, state.delegate)
        }
        delegate?.noteCancelRequested()
        task?.cancel()
    }

    /// Makes `delegate` the hop in progress; false when the transfer was cancelled already.
    func adopt(_ delegate: NIOTransferDelegate) -> Bool {
        state.withLockedValue { state in
            guard !state.cancelled else { return false }
            state.delegate = delegate
            state.task = nil
            return true
        }
    }

    /// Forgets `delegate` once its transfer ended: a delegate that follows redirects holds the
    /// handle, and the handle must not hold it past the end.
    func release(_ delegate: NIOTransferDelegate) {
        state.withLockedValue { state in
            guard state.delegate === delegate else { return }
            state.delegate = nil
            state.task = nil
        }
    }

    /// Keeps the task of the hop in progress; false when the transfer was cancelled meanwhile
    /// (the caller cancels the task).
    func attach(_ task: HTTPClient.Task<Void>) -> Bool {
        state.withLockedValue { state in
            state.task = task
            return !state.cancelled
        }
    }
}

/// The redirects a transfer followed so far: a redirect back to a URL requested before is a loop.
struct NIORedirectTrail: Sendable {
    var count = 0
    var visited: Set<String> = []
    /// The origin of the transfer's first request: its client certificate is for it alone.
    let firstOrigin: Origin?
    /// The request was sent again already after a dropped keep-alive connection.
    var resent = false

    init(first url: URL?) {
        if let url { visited.insert(url.absoluteString) }
        firstOrigin = url.flatMap(Origin.init)
    }
}

/// What a hop's delegate needs to follow a redirect: the engine that starts the next hop, the
/// request and body of this one, and the transfer's handle.
struct NIORedirectFollower: Sendable {
    let engine: NIOEngine
    let request: URLRequest
    let body: TransferBody
    let trail: NIORedirectTrail
    let handle: NIOTransferHandle
}

extension String {
    /// Whether this is `Content-Length` or `Transfer-Encoding` in any case, the fields
    /// AsyncHTTPClient writes itself.
    fileprivate var isFraming: Bool {
        caseInsensitiveEquals("Content-Length") || caseInsensitiveEquals("Transfer-Encoding")
    }

    /// The string with ASCII letters uppercased; the string itself when it has no lowercase
    /// letter (a method name usually), so nothing is copied then.
    fileprivate var uppercasedASCII: String {
        utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) ? uppercased() : self
    }
}
