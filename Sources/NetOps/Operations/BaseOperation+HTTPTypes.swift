import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// swift-http-types at the edge: an operation made from an `HTTPRequest` (the type
// AsyncHTTPClient, Hummingbird and swift-openapi-runtime share) and its response read as an
// `HTTPResponse`. Inside, the operation runs on a `URLRequest` as every other operation does.

extension BaseOperation {
    /// The response head as swift-http-types' `HTTPResponse`, once it arrived; nil before, and
    /// for a status outside 0...999.
    ///
    /// On the NIO engine (and for an answer from a response cache) the fields are the ones that
    /// arrived, in their order, a repeated field as often as the server sent it; no
    /// `HTTPURLResponse` is made for it. On the URLSession engine they are its
    /// `HTTPURLResponse`'s: each name once, repeated values joined with ", ", in no set order.
    /// Made on first use and kept.
    ///
    /// ```swift
    /// let operation = try await DataTaskOperation.get("http://127.0.0.1:8080/json").run()
    /// if let response = operation.httpResponse, response.status == .ok {
    ///     print(response.headerFields[.contentType] ?? "")
    /// }
    /// ```
    public var httpResponse: HTTPResponse? { withLock { storage.response }?.httpResponse }
}

extension DataTaskOperation {
    /// An operation that sends `httpRequest` with `body` and keeps the response body in memory.
    ///
    /// The request's scheme, authority and path make the URL; its fields go as they are, a
    /// repeated field joined into one. A request from which no URL can be made (no scheme or no
    /// authority, a `CONNECT`) does not trap: the operation fails at start with
    /// `NetOpsError.Kind.invalidURL`.
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/items")
    /// request.headerFields[.contentType] = "application/json"
    /// let operation = try await DataTaskOperation(httpRequest: request, body: Data(#"{"name":"pen"}"#.utf8)).run()
    /// print(operation.httpResponse?.status.code ?? 0, operation.receivedData.count)
    /// ```
    ///
    /// - Parameters:
    ///   - httpRequest: The method, the URL's parts and the header fields.
    ///   - body: The request body, or nil to send none.
    public convenience init(httpRequest: HTTPRequest, body: Data? = nil) {
        self.init(built: RequestFactory.make(httpRequest, body: body))
    }
}

extension StreamingOperation {
    /// An operation that sends `httpRequest` with `body` and hands the response body to its
    /// reader as it arrives; the engine reads ahead of the reader by at most `bufferedBytes`.
    ///
    /// A request from which no URL can be made fails at start with `NetOpsError.Kind.invalidURL`.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/export.ndjson")
    /// let export = StreamingOperation(httpRequest: request)
    /// let head = try await export.response()
    /// for try await line in export.body.lines { handle(line) }
    /// ```
    ///
    /// - Parameters:
    ///   - httpRequest: The method, the URL's parts and the header fields.
    ///   - body: The request body, or nil to send none.
    ///   - bufferedBytes: Bytes waiting for the reader at which the engine stops reading.
    public convenience init(httpRequest: HTTPRequest, body: Data? = nil, bufferedBytes: Int = StreamingOperation.defaultBufferedBytes) {
        self.init(built: RequestFactory.make(httpRequest, body: body), bufferedBytes: bufferedBytes)
    }
}

extension UploadOperation {
    /// An operation that sends `data` as the body of `httpRequest`, with upload progress; without
    /// a `Content-Type` field in the request, the type `MIMEType.detect(_:filename:)` finds in
    /// the data's first bytes.
    ///
    /// A request from which no URL can be made fails at start with `NetOpsError.Kind.invalidURL`.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .put, scheme: "https", authority: "files.example.com", path: "/photos/1")
    /// let upload = try await UploadOperation(httpRequest: request, data: jpegData).run()
    /// ```
    ///
    /// - Parameters:
    ///   - httpRequest: The method, the URL's parts and the header fields.
    ///   - data: The request body.
    public convenience init(httpRequest: HTTPRequest, data: Data) {
        self.init(built: Self.typed(RequestFactory.make(httpRequest, body: nil)) { MIMEType.detect(data) }, body: .data(data))
    }

    /// An operation that sends the file at `fileURL` as the body of `httpRequest`, streamed from
    /// disk; without a `Content-Type` field in the request, the type of the file's first bytes
    /// and name.
    ///
    /// A request from which no URL can be made fails at start with `NetOpsError.Kind.invalidURL`.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .post, scheme: "https", authority: "files.example.com", path: "/uploads")
    /// let upload = try await UploadOperation(httpRequest: request, fileURL: archiveURL).run()
    /// ```
    ///
    /// - Parameters:
    ///   - httpRequest: The method, the URL's parts and the header fields.
    ///   - fileURL: The file whose bytes are the request body.
    public convenience init(httpRequest: HTTPRequest, fileURL: URL) {
        self.init(
            built: Self.typed(RequestFactory.make(httpRequest, body: nil)) { MIMEType.detect(fileAt: fileURL) }, body: .file(fileURL))
    }
}

extension DownloadOperation {
    /// An operation that saves the response to `httpRequest` at `destination` (replacing a file
    /// there).
    ///
    /// A request from which no URL can be made fails at start with `NetOpsError.Kind.invalidURL`,
    /// and `destination` is left as it was.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "https", authority: "files.example.com", path: "/blob")
    /// try await DownloadOperation(httpRequest: request, destination: URL(fileURLWithPath: "/var/data/blob")).run()
    /// ```
    ///
    /// - Parameters:
    ///   - httpRequest: The method, the URL's parts and the header fields.
    ///   - destination: Where the file ends up.
    public convenience init(httpRequest: HTTPRequest, destination: URL) {
        self.init(built: RequestFactory.make(httpRequest, body: nil), destination: destination)
    }
}
