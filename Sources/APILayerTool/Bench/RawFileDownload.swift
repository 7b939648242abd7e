import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download candidate measured beside the segmented one: URLSession's own download task, which
/// writes the body to a temporary file of its own (in libcurl's write callback), then moves it
/// into place.
final class RawFileDownload: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    private let destination: URL
    private let done = DispatchSemaphore(value: 0)
    private let failure = NSLock()
    private var error: (any Error)?

    private init(destination: URL) {
        self.destination = destination
    }

    /// Downloads `url` into `file` with a download task and returns when it is in place.
    static func run(_ url: URL, to file: URL, configuration: URLSessionConfiguration) throws {
        let delegate = RawFileDownload(destination: file)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        session.downloadTask(with: url).resume()
        delegate.done.wait()
        session.finishTasksAndInvalidate()
        if let error = delegate.failure.withLock({ delegate.error }) { throw error }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        do {
            // FoundationNetworking never deletes its temporary file: moving it is the clean-up.
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: location, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: location)
            failure.withLock { self.error = error }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { failure.withLock { self.error = error } }
        done.signal()
    }
}
