import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default engine: FoundationNetworking's URLSession (libcurl on Linux).
///
/// Every task is delegate-style so that progress is reported, and every task is a data or upload
/// task: downloads stream into the operation's own file, so FoundationNetworking's download temp
/// files (which it never deletes on Linux) are never created.
final class URLSessionEngine: TransferEngine {
    /// The session every transfer of this engine runs in.
    let session: URLSession
    private let router: SessionDelegateRouter
    /// The queue callbacks run on (an OperationQueue holds its underlying queue unowned).
    private let callbackQueue = DispatchQueue(label: "NetOps.URLSessionEngine.callbacks")

    /// An engine with its own URLSession made from `configuration`.
    init(configuration: URLSessionConfiguration) {
        let router = SessionDelegateRouter()
        self.router = router
        // Callbacks run serially on a plain dispatch queue: cheaper per callback than an
        // OperationQueue's own scheduling, and a delegate-style task makes three or more.
        let callbacks = OperationQueue()
        callbacks.name = "NetOps.URLSessionEngine.callbacks"
        callbacks.maxConcurrentOperationCount = 1
        callbacks.underlyingQueue = callbackQueue
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: callbacks)
    }

    func startTransfer(_ request: URLRequest, body: TransferBody, events: any TransferEvents) -> any TransferHandle {
        let task: URLSessionTask
        switch body {
        case .none:
            task = session.dataTask(with: request)
        case let .data(data):
            task = session.uploadTask(with: request, from: data)
        case let .file(url):
            task = session.uploadTask(with: request, fromFile: url)
        }
        router.register(task, events: events)
        task.resume()
        return URLSessionTransferHandle(task: task)
    }

    /// Ends the session once its tasks are done.
    func shutdown() {
        session.finishTasksAndInvalidate()
    }
}

/// Cancels one URLSession task.
struct URLSessionTransferHandle: TransferHandle {
    let task: URLSessionTask

    func cancel() {
        task.cancel()
    }
}
