import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The operations a session makes: each is the operation the static of the same name makes
/// (`DTO.get`, `DO.get`, `UO.upload`, `UO.multipart`, `SO.get` …), with this session as its
/// `privateSession`. The statics make the same operations for `NetworkSession.shared`.
///
/// ```swift
/// let api = NetworkSession.nio()
/// let user = try await api.get("https://api.example.com/users.get", parameters: ["user_ids": 1]).run()
/// let saved = try await api.download("https://cdn.example.com/big.bin", to: destination).run()
/// ```
///
/// The operation is unstarted: queue it, give it an owner or an interceptor, nest it in a group.
/// Like every setting, its session is read when it starts; an API scope that adopts it gives it
/// the scope's session instead. A URL, a parameter or a header the static refuses is refused
/// the same way: the operation fails at start with the same `NetOpsError`.
extension NetworkSession {
    /// A `method` request to `url` in this session, parameters encoded as `encoding` says (by
    /// default in the query for GET/HEAD/DELETE, as JSON otherwise): `DTO.request` in this session.
    public func request(
        _ method: HTTPMethod,
        _ url: some URLConvertible,
        parameters: Parameters = [:],
        encoding: ParameterEncoding? = nil,
        headers: [String: String] = [:]
    ) -> DataTaskOperation {
        bound(DataTaskOperation.request(method, url, parameters: parameters, encoding: encoding, headers: headers))
    }

    /// A GET in this session, parameters in the query: `DTO.get` in this session.
    public func get(_ url: some URLConvertible, parameters: Parameters = [:], headers: [String: String] = [:]) -> DataTaskOperation {
        bound(DataTaskOperation.get(url, parameters: parameters, headers: headers))
    }

    /// A POST in this session, parameters as a JSON body unless `encoding` says otherwise:
    /// `DTO.post` in this session.
    public func post(
        _ url: some URLConvertible, parameters: Parameters = [:], encoding: ParameterEncoding = .json, headers: [String: String] = [:]
    ) -> DataTaskOperation {
        bound(DataTaskOperation.post(url, parameters: parameters, encoding: encoding, headers: headers))
    }

    /// A PUT in this session, parameters as a JSON body unless `encoding` says otherwise:
    /// `DTO.put` in this session.
    public func put(
        _ url: some URLConvertible, parameters: Parameters = [:], encoding: ParameterEncoding = .json, headers: [String: String] = [:]
    ) -> DataTaskOperation {
        bound(DataTaskOperation.put(url, parameters: parameters, encoding: encoding, headers: headers))
    }

    /// A PATCH in this session, parameters as a JSON body unless `encoding` says otherwise:
    /// `DTO.patch` in this session.
    public func patch(
        _ url: some URLConvertible, parameters: Parameters = [:], encoding: ParameterEncoding = .json, headers: [String: String] = [:]
    ) -> DataTaskOperation {
        bound(DataTaskOperation.patch(url, parameters: parameters, encoding: encoding, headers: headers))
    }

    /// A DELETE in this session, parameters in the query: `DTO.delete` in this session.
    public func delete(_ url: some URLConvertible, parameters: Parameters = [:], headers: [String: String] = [:]) -> DataTaskOperation {
        bound(DataTaskOperation.delete(url, parameters: parameters, headers: headers))
    }

    /// A GET of `url` saved at `destination` in this session, parameters in the query:
    /// `DO.get(_:to:)` in this session.
    public func download(
        _ url: some URLConvertible, to destination: URL, parameters: Parameters = [:], headers: [String: String] = [:]
    ) -> DownloadOperation {
        bound(DownloadOperation.get(url, to: destination, parameters: parameters, headers: headers))
    }

    /// Sends `data` to `url` in this session (POST unless `method` says otherwise), announced as
    /// the type its first bytes show unless `headers` has a `Content-Type`: `UO.upload(_:to:)` in
    /// this session.
    public func upload(
        _ data: Data, to url: some URLConvertible, method: HTTPMethod = .post, headers: [String: String] = [:]
    ) -> UploadOperation {
        bound(UploadOperation.upload(data, to: url, method: method, headers: headers))
    }

    /// Sends the file at `fileURL` to `url` in this session, streamed from disk (POST unless
    /// `method` says otherwise): `UO.upload(fileAt:to:)` in this session.
    public func upload(
        fileAt fileURL: URL, to url: some URLConvertible, method: HTTPMethod = .post, headers: [String: String] = [:]
    ) -> UploadOperation {
        bound(UploadOperation.upload(fileAt: fileURL, to: url, method: method, headers: headers))
    }

    /// Sends `form` as multipart/form-data to `url` in this session (POST unless `method` says
    /// otherwise): `UO.multipart(_:to:)` in this session. A form whose boundary, part headers or
    /// files are refused fails the operation at start with `.invalidBody`.
    public func multipart(
        _ form: MultipartFormData, to url: some URLConvertible, method: HTTPMethod = .post, headers: [String: String] = [:]
    ) -> UploadOperation {
        bound(UploadOperation.multipart(form, to: url, method: method, headers: headers))
    }

    /// A GET whose body is read as it arrives, in this session: `SO.get` in this session.
    public func stream(
        _ url: some URLConvertible, parameters: Parameters = [:], headers: [String: String] = [:],
        bufferedBytes: Int = StreamingOperation.defaultBufferedBytes
    ) -> StreamingOperation {
        bound(StreamingOperation.get(url, parameters: parameters, headers: headers, bufferedBytes: bufferedBytes))
    }

    /// A `method` request whose body is read as it arrives, in this session, parameters encoded
    /// as `encoding` says: `SO.request` in this session.
    public func stream(
        _ method: HTTPMethod,
        _ url: some URLConvertible,
        parameters: Parameters = [:],
        encoding: ParameterEncoding? = nil,
        headers: [String: String] = [:],
        bufferedBytes: Int = StreamingOperation.defaultBufferedBytes
    ) -> StreamingOperation {
        bound(
            StreamingOperation.request(
                method, url, parameters: parameters, encoding: encoding, headers: headers, bufferedBytes: bufferedBytes))
    }

    /// `operation` with this session as its `privateSession`.
    private func bound<Operation: BaseOperation>(_ operation: Operation) -> Operation {
        operation.privateSession = self
        return operation
    }
}
