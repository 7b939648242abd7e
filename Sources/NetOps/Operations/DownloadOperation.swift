import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Short name of `DownloadOperation`.
public typealias DO = DownloadOperation

/// An operation that streams a response body into a file.
///
/// The body goes to a hidden partial file beside `destination` and is renamed onto it when the
/// whole body arrived with an accepted status, so `destination` is never seen half-written and a
/// failed download leaves it untouched. Memory stays flat whatever the size: on the URLSession
/// engine, which cannot slow libcurl down, the body comes in bounded `Range` segments one request
/// after another (in one request when the server does not support ranges). Nothing is written
/// to the temporary directory.
///
/// ```swift
/// let download = DO.get("http://127.0.0.1:8080/bytes/1048576", to: URL(fileURLWithPath: "/var/data/blob"))
/// download.onProgress { _, progress in print(progress.fractionCompleted ?? 0) }
/// try await download.run()
/// ```
public final class DownloadOperation: BaseOperation, @unchecked Sendable {
    /// Where the file ends up.
    public let destination: URL

    /// An operation that saves the response to `request` at `destination` (replacing a file there).
    public convenience init(request: URLRequest, destination: URL) {
        self.init(built: .success(request), destination: destination)
    }

    init(built: Result<URLRequest, NetOpsError>, destination: URL) {
        self.destination = destination
        super.init(request: built, body: .none, sink: FileSink(destination: destination))
    }

    /// A GET of `url` saved at `destination`, parameters in the query.
    public static func get(
        _ url: some URLConvertible,
        to destination: URL,
        parameters: Parameters = [:],
        headers: [String: String] = [:]
    ) -> DownloadOperation {
        DownloadOperation(built: RequestFactory.make(.get, url, parameters: parameters, headers: headers), destination: destination)
    }

    /// The downloaded file, once the operation succeeded.
    public var fileURL: URL? {
        state == .successFinished ? destination : nil
    }
}
