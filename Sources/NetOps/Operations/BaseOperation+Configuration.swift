import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    private static let sharedSession = Locked<NetworkSession?>(nil)

    /// The session operations run in unless they have a `privateSession`.
    ///
    /// Made on first use with `NetworkSession.defaultConfiguration()`; replace it before making
    /// operations to change limits or headers for all of them (an operation reads it when it is
    /// made).
    public static var defaultSession: NetworkSession {
        get {
            if let session = sharedSession.withLock({ $0 }) { return session }
            // Made outside the lock (making a URLSession is slow); a thread that raced this one
            // and stored its session first wins, and this one is invalidated unused.
            let made = NetworkSession()
            let kept = sharedSession.withLock { session in
                if let session { return session }
                session = made
                return made
            }
            if kept !== made { (made.engine as? URLSessionEngine)?.session.finishTasksAndInvalidate() }
            return kept
        }
        set { sharedSession.withLock { $0 = newValue } }
    }

    /// A session for this operation only; nil (the default) uses `defaultSession`.
    public var privateSession: NetworkSession? {
        get { withLock { storage.settings.privateSession } }
        set { withLock { storage.settings.privateSession = newValue } }
    }

    /// The statuses that count as success; others end the operation `.failedFinished` with
    /// `.httpStatus` (the body is still available). Default: 200–299.
    public var acceptableStatusCodes: Set<Int> {
        get { withLock { storage.settings.acceptableStatusCodes } }
        set { withLock { storage.settings.acceptableStatusCodes = newValue } }
    }

    /// The request as the operation will send it (before any `Range` header of a resumption).
    public var request: URLRequest? {
        withLock { try? storage.request.get() }
    }

    /// Replaces the request of an operation that has not started yet.
    ///
    /// - Returns: false when the operation already started (the request is then unchanged).
    @discardableResult
    public func updateRequest(_ update: (inout URLRequest) -> Void) -> Bool {
        withLock {
            guard machine.phase == .idle, case var .success(request) = storage.request else { return false }
            update(&request)
            storage.request = .success(request)
            return true
        }
    }
}
