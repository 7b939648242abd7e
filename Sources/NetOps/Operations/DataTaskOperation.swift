import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Short name of `DataTaskOperation`.
public typealias DTO = DataTaskOperation

/// An operation that sends a request and keeps the response body in memory (`receivedData`).
///
/// The everyday operation: fetch JSON, post a form, delete a resource.
///
/// ```swift
/// let user = try await DTO.get("http://127.0.0.1:8080/users.get", parameters: ["user_ids": 1]).run()
/// print(user.statusCode ?? 0, user.json ?? "")
/// ```
///
/// The body is collected in one buffer sized from `Content-Length`, so memory peaks at the
/// body's size. Suspending keeps what arrived; a GET resumes with a `Range` request.
public final class DataTaskOperation: BaseOperation, @unchecked Sendable {
    /// An operation for `request`.
    public convenience init(request: URLRequest) {
        self.init(built: .success(request))
    }

    init(built: Result<URLRequest, NetOpsError>) {
        super.init(request: built, body: .none, sink: MemorySink())
    }

    /// An operation sending `method` to `url`, with `parameters` encoded as `encoding` says (by
    /// default in the query for GET/HEAD/DELETE, as JSON otherwise) and `headers`.
    ///
    /// An invalid URL or unencodable parameters do not trap: the operation fails at start with
    /// the reason.
    public static func request(
        _ method: HTTPMethod,
        _ url: some URLConvertible,
        parameters: Parameters = [:],
        encoding: ParameterEncoding? = nil,
        headers: [String: String] = [:]
    ) -> DataTaskOperation {
        DataTaskOperation(built: RequestFactory.make(method, url, parameters: parameters, encoding: encoding, headers: headers))
    }

    /// A GET, parameters in the query.
    public static func get(_ url: some URLConvertible, parameters: Parameters = [:], headers: [String: String] = [:]) -> DataTaskOperation {
        request(.get, url, parameters: parameters, headers: headers)
    }

    /// A POST, parameters as a JSON body unless `encoding` says otherwise.
    public static func post(
        _ url: some URLConvertible, parameters: Parameters = [:], encoding: ParameterEncoding = .json, headers: [String: String] = [:]
    ) -> DataTaskOperation {
        request(.post, url, parameters: parameters, encoding: encoding, headers: headers)
    }

    /// A PUT, parameters as a JSON body unless `encoding` says otherwise.
    public static func put(
        _ url: some URLConvertible, parameters: Parameters = [:], encoding: ParameterEncoding = .json, headers: [String: String] = [:]
    ) -> DataTaskOperation {
        request(.put, url, parameters: parameters, encoding: encoding, headers: headers)
    }

    /// A PATCH, parameters as a JSON body unless `encoding` says otherwise.
    public static func patch(
        _ url: some URLConvertible, parameters: Parameters = [:], encoding: ParameterEncoding = .json, headers: [String: String] = [:]
    ) -> DataTaskOperation {
        request(.patch, url, parameters: parameters, encoding: encoding, headers: headers)
    }

    /// A DELETE, parameters in the query.
    public static func delete(_ url: some URLConvertible, parameters: Parameters = [:], headers: [String: String] = [:]) -> DataTaskOperation {
        request(.delete, url, parameters: parameters, headers: headers)
    }
}
