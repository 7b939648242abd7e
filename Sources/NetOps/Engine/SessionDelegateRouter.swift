import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one delegate of every URLSession NetOps creates: it routes each task's callbacks to the
/// transfer that started the task.
///
/// Delegate-style tasks are the only kind that report progress on Linux, so every NetOps task is
/// delegate-style and this router is what turns session-wide callbacks into per-transfer events.
/// It also absorbs FoundationNetworking defects and makes the engine answer as the NIO engine does:
/// - a 401 carrying `WWW-Authenticate` hangs its task forever unless the delegate answers the
///   challenge; the router cancels the challenge and reports the 401 response it already
///   delivered as an ordinary, complete response;
/// - answering `.useCredential` with a nil credential crashes the process: the router never does;
/// - a redirect that keeps the method (307, 308, …) loses the body: the router follows it itself;
/// - libcurl decodes gzip, deflate, brotli and zstd without any limit and would hand on a body in
///   a coding it does not know: the router bounds the decoded size (`ContentDecoding`) and fails
///   an unknown coding with a clear error.
final class SessionDelegateRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Route {
        let events: any EngineEvents
        /// The body the transfer was started with (a redirect that keeps the body sends it again).
        let body: TransferBody
        /// The caller's handle: a transfer the router continues itself moves it to the new task.
        let handle: URLSessionTransferHandle
        var challengeCancelled = false
        var sawResponse = false
        /// Redirects followed so far, and every URL requested (a redirect back to one is a loop).
        var redirects = 0
        var visited: Set<String> = []
        /// The request of the hop in progress, as sent (a redirect is built from it).
        var lastRequest: URLRequest?
        /// The router ended the transfer itself: this is reported instead of the task's error.
        var failure: TransferFailure?
        /// The task's remaining events are not passed on (a failure was decided, or the router
        /// follows a redirect itself).
        var muted = false
        /// A redirect the router follows itself once this task has ended.
        var followUp: URLRequest?
        /// The body is decoded by libcurl: the decoded bytes so far, and the encoded size.
        var decoding = false
        var encodedLength: Int64?
        var decodedBytes: Int64 = 0
    }

    /// The content codings this machine's libcurl decodes (7.88.1: built with zlib, brotli and
    /// zstd). A libcurl without one of them fails such a body itself (`CURLE_BAD_CONTENT_ENCODING`).
    static let decodableCodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]
    /// The most redirects one request follows (the NIO engine's default as well).
    static let maximumRedirects = 10
    /// Foundation's code for "too many redirects", which both engines report for a loop.
    static let tooManyRedirectsCode = -1007

    private let routes = Locked<[Int: Route]>([:])
    /// The most bytes decoded from a body whose encoded size was not announced.
    private let unannouncedLimit: Int64

    /// A router that stops decoding a body of unannounced encoded size after `unannouncedLimit`
    /// bytes (`ContentDecoding.unannouncedLimit`; tests take a smaller one).
    init(unannouncedLimit: Int64 = ContentDecoding.unannouncedLimit) {
        self.unannouncedLimit = unannouncedLimit
    }

    /// Sends the events of `task` to `events` from now on.
    ///
    /// - Parameters:
    ///   - body: the body the task sends, sent again when a redirect keeps the method and body.
    ///   - handle: the handle the caller cancels the transfer with.
    func register(_ task: URLSessionTask, events: any EngineEvents, body: TransferBody, handle: URLSessionTransferHandle) {
        var route = Route(events: events, body: body, handle: handle)
        route.lastRequest = task.originalRequest
        if let url = task.originalRequest?.url { route.visited.insert(url.absoluteString) }
        routes.withLock { $0[task.taskIdentifier] = route }
    }

    private func events(for task: URLSessionTask) -> (any EngineEvents)? {
        routes.withLock { $0[task.taskIdentifier]?.events }
    }

    // MARK: Response and body

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        enum Step {
            case deliver(any EngineEvents, HTTPURLResponse)
            case refuse
            case ignore
        }
        let method = dataTask.currentRequest?.httpMethod
        let step = routes.withLock { routes -> Step in
            guard var route = routes[dataTask.taskIdentifier], !route.muted else { return .ignore }
            route.sawResponse = true
            guard let http = response as? HTTPURLResponse else {
                routes[dataTask.taskIdentifier] = route
                return .ignore
            }
            // FoundationNetworking passes each informational head (102, 103) on as a response:
            // it is not the answer, and no sign of progress either.
            if http.statusCode < 200, http.statusCode != 101 { return .ignore }
            if let conflict = Self.conflictingContentLength(http) {
                // libcurl takes the last value; AsyncHTTPClient, as RFC 9112 §6.3 asks, fails.
                route.failure = .connectionLost("conflicting Content-Length values (\(conflict)): the response framing is invalid")
                route.muted = true
                routes[dataTask.taskIdentifier] = route
                return .refuse
            }
            var delivered = http
            let codings = ContentDecoding.codings(http.value(forHTTPHeaderField: "Content-Encoding"))
            if !codings.isEmpty, ContentDecoding.mayHaveBody(status: http.statusCode, method: method) {
                if let refusal = ContentDecoding.refusal(of: codings, decodable: Self.decodableCodings, stacked: true, engine: "URLSession") {
                    route.failure = refusal
                    route.muted = true
                    routes[dataTask.taskIdentifier] = route
                    return .refuse
                }
                route.decoding = true
                route.encodedLength = http.expectedContentLength >= 0 ? http.expectedContentLength : nil
                delivered = ContentDecoding.decoded(http)
            }
            routes[dataTask.taskIdentifier] = route
            return .deliver(route.events, delivered)
        }
        switch step {
        case let .deliver(events, http):
            events.transferDidReceive(response: http)
        case .refuse:
            // FoundationNetworking ignores a `.cancel` disposition for delegate tasks on Linux.
            dataTask.cancel()
        case .ignore:
            break
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (events, overflowed) = routes.withLock { routes -> ((any EngineEvents)?, Bool) in
            guard var route = routes[dataTask.taskIdentifier], !route.muted else { return (nil, false) }
            guard route.decoding else { return (route.events, false) }
            route.decodedBytes += Int64(data.count)
            // Bounded by decoded bytes whatever the server announces: a huge `Content-Length`
            // raises the ratio's limit, never past the absolute one.
            let announced = route.encodedLength.map {
                min($0.multipliedReportingOverflow(by: Int64(ContentDecoding.ratioLimit)).partialValue, unannouncedLimit)
            }
            let limit = announced.map { $0 >= 0 ? $0 : unannouncedLimit } ?? unannouncedLimit
            if route.decodedBytes > limit {
                let limit =
                    route.encodedLength.map {
                        "\(ContentDecoding.ratioLimit) times its encoded size of \($0) bytes, and at most \(unannouncedLimit) bytes"
                    }
                    ?? "\(unannouncedLimit) bytes (its encoded size was not announced)"
                route.failure = ContentDecoding.bomb(decoded: route.decodedBytes, limit: limit)
                route.muted = true
            }
            routes[dataTask.taskIdentifier] = route
            return route.muted ? (nil, true) : (route.events, false)
        }
        if overflowed { dataTask.cancel() }
        events?.transferDidReceive(data: data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let expected = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil
        events(for: task)?.transferDidSend(sent: totalBytesSent, expected: expected)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let route = routes.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let next = route.followUp, error == nil {
            follow(next, after: route, in: session)
            return
        }
        let failure: TransferFailure?
        if let decided = route.failure {
            failure = decided
        } else if route.challengeCancelled, route.sawResponse {
            // The 401 and its body were delivered before the challenge: that is the answer.
            failure = nil
        } else {
            failure = error.map(Self.failure(from:))
        }
        route.events.transferDidComplete(failure: failure)
    }

    /// The `Content-Length` field of `response` when it holds values that disagree (FoundationNetworking
    /// joins repeated fields with commas), nil otherwise.
    static func conflictingContentLength(_ response: HTTPURLResponse) -> String? {
        guard let value = response.value(forHTTPHeaderField: "Content-Length"), value.contains(",") else { return nil }
        let values = Set(value.split(separator: ",").map { $0.trimmingHTTPWhitespace() })
        return values.count > 1 ? value : nil
    }

    // MARK: Redirects

    /// Follows a redirect as both engines do (`RedirectPolicy`): 303 (except for HEAD), and 301
    /// or 302 after a POST, become a GET without a body; every other redirect keeps the method
    /// and the body; a redirect to another origin drops the credentials the transfer's
    /// `RedirectRules` name; https to http, a body to another origin, or a transfer that follows
    /// no redirect, ends with the 3xx answer as the response. FoundationNetworking on Linux sends
    /// no body after any redirect, so a redirect that keeps the body is refused here and followed
    /// by a new task the router starts itself once this one ended. A loop or more than
    /// `maximumRedirects` ends the transfer.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        enum Decision {
            case follow(URLRequest)
            case deliver
            case refuse
        }
        let decision = routes.withLock { routes -> Decision in
            guard var route = routes[task.taskIdentifier], let sent = route.lastRequest ?? task.originalRequest,
                let target = request.url
            else { return .deliver }
            defer { routes[task.taskIdentifier] = route }
            let hasBody: Bool
            if case .none = route.body { hasBody = sent.httpBody != nil || sent.httpBodyStream != nil } else { hasBody = true }
            let fields = response.allHeaderFields.compactMap { name, value -> (name: String, value: String)? in
                guard let name = name as? String, let value = value as? String else { return nil }
                return (name, value)
            }
            let step = RedirectPolicy.step(
                after: sent, status: response.statusCode, target: target, hasBody: hasBody, rules: route.events.redirectRules,
                responseFields: fields)
            guard case let .follow(next, keepsBody) = step else { return .deliver }
            route.redirects += 1
            let loop = !route.visited.insert(target.absoluteString).inserted
            if loop || route.redirects > Self.maximumRedirects {
                let shown = Redaction.standard.urlWithoutQuery(target)
                let reason =
                    loop
                    ? "redirect loop: \(shown) was requested before"
                    : "too many redirects: more than \(Self.maximumRedirects), the last to \(shown)"
                route.failure = .other(code: Self.tooManyRedirectsCode, reason: reason)
                route.muted = true
                return .refuse
            }
            route.lastRequest = next
            if keepsBody {
                route.followUp = next
                route.muted = true
                return .refuse
            }
            return .follow(next)
        }
        switch decision {
        case let .follow(next):
            completionHandler(next)
        case .deliver, .refuse:
            // Refused, FoundationNetworking completes the task with the 3xx response: the
            // response of the transfer (`.deliver`), or muted (`.refuse`).
            completionHandler(nil)
        }
    }

    /// Starts the task that follows a redirect with the method and body of the one that ended.
    private func follow(_ request: URLRequest, after route: Route, in session: URLSession) {
        let task: URLSessionTask
        switch route.body {
        case .none:
            // The request was built from the one sent, its body included.
            task = session.dataTask(with: request)
        case let .data(data):
            task = session.uploadTask(with: request, from: data)
        case let .file(url):
            guard let streamed = URLSessionEngine.streaming(request, from: url) else {
                route.events.transferDidComplete(failure: .file("cannot read \(url.path)"))
                return
            }
            task = session.dataTask(with: streamed)
        }
        var next = Route(events: route.events, body: route.body, handle: route.handle)
        next.redirects = route.redirects
        next.visited = route.visited
        next.lastRequest = request
        routes.withLock { $0[task.taskIdentifier] = next }
        guard route.handle.replace(with: task) else {
            // Cancelled while the redirect was being followed.
            routes.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
            task.cancel()
            route.events.transferDidComplete(failure: .cancelled)
            return
        }
        task.resume()
    }

    // MARK: Authentication challenges

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // On Linux TLS verification happens inside libcurl and never reaches the delegate: every
        // challenge here is an HTTP authentication scheme (Basic, Digest, …). NetOps sends its
        // credentials itself, so the 401 is the answer the caller wants to see.
        routes.withLock { $0[task.taskIdentifier]?.challengeCancelled = true }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        completionHandler(.performDefaultHandling, nil)
    }

    // MARK: Errors

    /// libcurl's texts for "no connection could be made", as FoundationNetworking passes them on.
    private static let curlConnectFailures = ["Couldn't connect to server", "Could not resolve host", "Couldn't resolve host"]
    /// libcurl's texts for a response whose framing broke (FoundationNetworking reports them with
    /// code -1): the same failure the NIO engine's HTTP parser reports as a lost connection.
    /// "Connection died" is libcurl giving up after the connections it retried on closed before
    /// an answer (a server that closes before the headers, under load, reads so).
    private static let curlFramingFailures = [
        "transfer closed with", "chunked-encoding", "Content-Length", "Empty reply from server", "Weird server reply",
        "Recv failure", "Received HTTP/0.9", "Unsupported HTTP version", "Header without colon", "Connection died",
    ]
    /// libcurl's texts for a failed TLS handshake or certificate check, when FoundationNetworking
    /// passes them on without a TLS code.
    private static let curlTLSFailures = ["SSL certificate", "SSL peer", "SSL connect error", "SSL: ", "OpenSSL", "TLS "]
    /// FoundationNetworking's codes for a failed TLS handshake or certificate check.
    private static let tlsCodes: Set<URLError.Code> = [
        .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
        .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired,
    ]
    /// libcurl's texts for a body it could not decode.
    private static let curlDecodingFailures = ["content unencoding", "Unrecognized content encoding"]

    /// Maps a FoundationNetworking error onto the engine-neutral failure.
    static func failure(from error: any Error) -> TransferFailure {
        guard let urlError = error as? URLError else {
            let nsError = error as NSError
            return .other(code: nsError.code, reason: nsError.localizedDescription)
        }
        let reason = urlError.localizedDescription
        if tlsCodes.contains(urlError.code) { return .tls(reason) }
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return .cannotConnect(reason)
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse:
            return .connectionLost(reason)
        case .unsupportedURL, .badURL: return .unsupportedURL(reason)
        case .fileDoesNotExist, .noPermissionsToReadFile, .cannotOpenFile: return .file(reason)
        case .cannotDecodeContentData, .cannotDecodeRawData: return ContentDecoding.corrupt(reason)
        default:
            // FoundationNetworking reports some of libcurl's connect failures (no route, the
            // network down) as `.unknown`, with curl's own text.
            if curlTLSFailures.contains(where: { reason.contains($0) }) { return .tls(reason) }
            if curlConnectFailures.contains(where: { reason.contains($0) }) { return .cannotConnect(reason) }
            if curlDecodingFailures.contains(where: { reason.contains($0) }) { return ContentDecoding.corrupt(reason) }
            if curlFramingFailures.contains(where: { reason.contains($0) }) { return .connectionLost(reason) }
            return .other(code: urlError.errorCode, reason: reason)
        }
    }
}
