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

    /// FoundationNetworking copies every header onto a redirected request: credentials would
    /// reach whatever host a `Location` names. A redirect to another origin drops them.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(RedirectPolicy.request(request, redirectedFrom: task.originalRequest?.url ?? response.url))
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
        default:
            // FoundationNetworking reports some of libcurl's connect failures (no route, the
            // network down) as `.unknown`, with curl's own text.
            if curlConnectFailures.contains(where: { reason.contains($0) }) { return .cannotConnect(reason) }
            return .other(code: urlError.errorCode, reason: reason)
        }
    }
}
