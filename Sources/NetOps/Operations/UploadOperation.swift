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
/// try form.append(fileAt: photoURL, name: "photo")  // announced as image/jpeg by its bytes
/// let upload = try await UO.multipart(form, to: uploadURL).run()
/// ```
public final class UploadOperation: BaseOperation, @unchecked Sendable {
    init(built: Result<URLRequest, NetOpsError>, body: TransferBody, ownedBodyFile: URL? = nil, deferredForm: MultipartFormData? = nil) {
        super.init(request: built, body: body, sink: MemorySink(), ownedBodyFile: ownedBodyFile, deferredForm: deferredForm)
    }

    /// Sends `data` as the body of `request`; without a `Content-Type` in `request`, the type
    /// `MIMEType.detect(_:filename:)` finds in the data's first bytes.
    public convenience init(request: URLRequest, data: Data) {
        self.init(built: Self.typed(.success(request)) { MIMEType.detect(data) }, body: .data(data))
    }

    /// Sends the file at `fileURL` as the body of `request`, streamed from disk; without a
    /// `Content-Type` in `request`, the type of the file's first bytes and name.
    public convenience init(request: URLRequest, fileURL: URL) {
        self.init(built: Self.typed(.success(request)) { MIMEType.detect(fileAt: fileURL) }, body: .file(fileURL))
    }

    /// Sends `data` to `url` (POST unless `method` says otherwise). Without a `Content-Type`
    /// in `headers`, the body is announced as the type its first bytes show
    /// (`MIMEType.detect(_:filename:)`; `application/octet-stream` when they show none).
    public static func upload(
        _ data: Data,
        to url: some URLConvertible,
        method: HTTPMethod = .post,
        headers: [String: String] = [:]
    ) -> UploadOperation {
        UploadOperation(built: typed(RequestFactory.make(method, url, headers: headers)) { MIMEType.detect(data) }, body: .data(data))
    }

    /// Sends the file at `fileURL` to `url`, streamed from disk (POST unless `method` says
    /// otherwise). Without a `Content-Type` in `headers`, the body is announced as the type of
    /// the file's first bytes and name (`MIMEType.detect(fileAt:)`).
    public static func upload(
        fileAt fileURL: URL,
        to url: some URLConvertible,
        method: HTTPMethod = .post,
        headers: [String: String] = [:]
    ) -> UploadOperation {
        UploadOperation(
            built: typed(RequestFactory.make(method, url, headers: headers)) { MIMEType.detect(fileAt: fileURL) },
            body: .file(fileURL))
    }

    /// `built` with a `Content-Type` of `type()` when it has none.
    static func typed(_ built: Result<URLRequest, NetOpsError>, _ type: () -> MIMEType) -> Result<URLRequest, NetOpsError> {
        guard case var .success(request) = built, request.value(forHTTPHeaderField: "Content-Type") == nil else { return built }
        request.setValue(type().name, forHTTPHeaderField: "Content-Type")
        return .success(request)
    }

    /// Sends `form` as multipart/form-data to `url` (POST unless `method` says otherwise).
    ///
    /// The body is assembled in a temporary file (files are copied in chunks, never loaded
    /// whole) when the operation starts its first transfer, on the thread that starts it, and
    /// deleted when the operation ends. A form whose boundary or part headers are refused makes
    /// the operation fail at start with `.invalidBody`, and so does a file of the form that
    /// cannot be read.
    public static func multipart(
        _ form: MultipartFormData,
        to url: some URLConvertible,
        method: HTTPMethod = .post,
        headers: [String: String] = [:]
    ) -> UploadOperation {
        var allHeaders = headers
        allHeaders["Content-Type"] = form.contentType
        var built = RequestFactory.make(method, url, headers: allHeaders)
        do {
            try form.check()
        } catch {
            built = .failure(NetOpsError(error.kind, url: try? built.get().url))
            return UploadOperation(built: built, body: .none)
        }
        // Written when the operation starts its first transfer (`deferredForm`), not here on
        // the caller's thread.
        let bodyFile = MultipartFormData.temporaryBodyFile()
        return UploadOperation(built: built, body: .file(bodyFile), ownedBodyFile: bodyFile, deferredForm: form)
    }
}
