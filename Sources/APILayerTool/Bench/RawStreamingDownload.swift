import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline of the download memory figure: a plain URLSession data task whose delegate
/// streams each chunk into a file, with nothing of NetOps in between.
final class RawStreamingDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var handle: FileHandle?
    private let done = DispatchSemaphore(value: 0)
    private var failure: (any Error)?

    /// Downloads `url` into `file` and returns when it is complete.
    static func run(_ url: URL, to file: URL, configuration: URLSessionConfiguration) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let delegate = RawStreamingDownload()
        delegate.handle = try FileHandle(forWritingTo: file)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        session.dataTask(with: url).resume()
        delegate.done.wait()
        session.finishTasksAndInvalidate()
        try delegate.lock.withLock { try delegate.handle?.close() }
        if let failure = delegate.failure { throw failure }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { try? handle?.write(contentsOf: data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { failure = error }
        done.signal()
    }
}
