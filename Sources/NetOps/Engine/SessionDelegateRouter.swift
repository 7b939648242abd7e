import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one delegate of every URLSession NetOps creates: it routes each task's callbacks to the
/// transfer that started the task.
///
/// Delegate-style tasks are the only kind that report progress on Linux, so every NetOps task is
/// delegate-style and this router is what turns session-wide callbacks into per-transfer events.
/// It also absorbs two FoundationNetworking defects:
/// - a 401 carrying `WWW-Authenticate` hangs its task forever unless the delegate answers the
///   challenge; the router cancels the challenge and reports the 401 response it already
///   delivered as an ordinary, complete response;
/// - answering `.useCredential` with a nil credential crashes the process: the router never does.
final class SessionDelegateRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Route {
        let events: any TransferEvents
        var challengeCancelled = false
        var sawResponse = false
    }

    private let routes = Locked<[Int: Route]>([:])

    /// Sends the events of `task` to `events` from now on.
    func register(_ task: URLSessionTask, events: any TransferEvents) {
        routes.withLock { $0[task.taskIdentifier] = Route(events: events) }
    }

    private func events(for task: URLSessionTask) -> (any TransferEvents)? {
        routes.withLock { $0[task.taskIdentifier]?.events }
    }

    // MARK: Response and body

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let events = routes.withLock { routes -> (any TransferEvents)? in
            routes[dataTask.taskIdentifier]?.sawResponse = true
            return routes[dataTask.taskIdentifier]?.events
        }
        if let http = response as? HTTPURLResponse {
            events?.transferDidReceive(response: http)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        events(for: dataTask)?.transferDidReceive(data: data)
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
        if route.challengeCancelled, route.sawResponse {
            // The 401 and its body were delivered before the challenge: that is the answer.
            route.events.transferDidComplete(failure: nil)
            return
        }
        route.events.transferDidComplete(failure: error.map(Self.failure(from:)))
    }

    // MARK: Redirects

    /// Follows a redirect, but never carries credentials to another origin: when the scheme,
    /// host or port changes, `Authorization`, `Proxy-Authorization` and `Cookie` are dropped, as
    /// are `access_token` parameters a server may have copied into the new URL.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let original = task.originalRequest?.url ?? response.url
        completionHandler(Self.redirect(request, from: original))
    }

    /// `request` as it may be sent after a redirect from `origin`.
    static func redirect(_ request: URLRequest, from origin: URL?) -> URLRequest {
        guard let target = request.url, !sameOrigin(origin, target) else { return request }
        var stripped = request
        for header in ["Authorization", "Proxy-Authorization", "Cookie"] {
            stripped.setValue(nil, forHTTPHeaderField: header)
        }
        if var components = URLComponents(url: target, resolvingAgainstBaseURL: false),
           let items = components.queryItems, items.contains(where: { $0.name == "access_token" }) {
            let kept = items.filter { $0.name != "access_token" }
            components.queryItems = kept.isEmpty ? nil : kept
            stripped.url = components.url ?? target
        }
        return stripped
    }

    /// Whether two URLs share scheme, host and (effective) port.
    static func sameOrigin(_ first: URL?, _ second: URL) -> Bool {
        guard let first else { return false }
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return first.scheme?.lowercased() == second.scheme?.lowercased()
            && first.host?.lowercased() == second.host?.lowercased()
            && port(first) == port(second)
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

    /// Maps a FoundationNetworking error onto the engine-neutral failure.
    static func failure(from error: any Error) -> TransferFailure {
        guard let urlError = error as? URLError else {
            let nsError = error as NSError
            return .other(code: nsError.code, reason: nsError.localizedDescription)
        }
        let reason = urlError.localizedDescription
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return .cannotConnect(reason)
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse:
            return .connectionLost(reason)
        case .unsupportedURL, .badURL: return .unsupportedURL(reason)
        case .fileDoesNotExist, .noPermissionsToReadFile, .cannotOpenFile: return .file(reason)
        default: return .other(code: urlError.errorCode, reason: reason)
        }
    }
}
