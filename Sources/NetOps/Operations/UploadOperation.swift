import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Short name of `UploadOperation`.
public typealias UO = UploadOperation

/// An operation that sends a body — from memory, from a file, or as multipart/form-data — and
/// keeps the response body in memory.
///
/// A file body is streamed from disk, never loaded whole. Upload progress is reported in
/// `progress.bytesSent`. Suspending stops the upload; resuming sends the body again from its
/// start (HTTP has no way to continue a request body).
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("holiday", name: "caption")
/// try form.append(fileAt: photoURL, name: "photo", contentType: "image/jpeg")
/// let upload = try await UO.multipart(form, to: uploadURL).run()
/// ```
public final class UploadOperation: BaseOperation, @unchecked Sendable {
    init(built: Result<URLRequest, NetOpsError>, body: TransferBody, ownedBodyFile: URL? = nil) {
        super.init(request: built, body: body, sink: MemorySink(), ownedBodyFile: ownedBodyFile)
    }

    /// Sends `data` as the body of `request`.
    public convenience init(request: URLRequest, data: Data) {
        self.init(built: .success(request), body: .data(data))
    }

    /// Sends the file at `fileURL` as the body of `request`, streamed from disk.
    public convenience init(request: URLRequest, fileURL: URL) {
        self.init(built: .success(request), body: .file(fileURL))
    }

    /// Sends `data` to `url` (POST unless `method` says otherwise).
    public static func upload(
        _ data: Data,
        to url: some URLConvertible,
        method: HTTPMethod = .post,
        headers: [String: String] = [:]
    ) -> UploadOperation {
        UploadOperation(built: RequestFactory.make(method, url, headers: headers), body: .data(data))
    }

    /// Sends the file at `fileURL` to `url`, streamed from disk (POST unless `method` says otherwise).
    public static func upload(
        fileAt fileURL: URL,
        to url: some URLConvertible,
        method: HTTPMethod = .post,
        headers: [String: String] = [:]
    ) -> UploadOperation {
        UploadOperation(built: RequestFactory.make(method, url, headers: headers), body: .file(fileURL))
    }

    /// Sends `form` as multipart/form-data to `url` (POST unless `method` says otherwise).
    ///
    /// The body is assembled in a temporary file (files are copied in chunks, never loaded
    /// whole), which is deleted when the operation ends. A file of the form that cannot be read
    /// makes the operation fail at start with `.invalidBody`.
    public static func multipart(
        _ form: MultipartFormData,
        to url: some URLConvertible,
        method: HTTPMethod = .post,
        headers: [String: String] = [:]
    ) -> UploadOperation {
        var allHeaders = headers
        allHeaders["Content-Type"] = form.contentType
        var built = RequestFactory.make(method, url, headers: allHeaders)
        let bodyFile: URL
        do {
            bodyFile = try form.writeToTemporaryFile()
        } catch {
            let target = try? built.get().url
            built = .failure(NetOpsError(.invalidBody(reason: "multipart body: \(error)"), url: target))
            return UploadOperation(built: built, body: .none)
        }
        return UploadOperation(built: built, body: .file(bodyFile), ownedBodyFile: bodyFile)
    }
}
