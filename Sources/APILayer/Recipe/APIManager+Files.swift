import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIManager {
    /// The unstarted operation that calls `method` and saves the answer's body at `destination`:
    /// a download under the method's API, whose model is the saved file.
    ///
    /// It is what a `DownloadOperation` is — the body streams to a hidden partial file beside
    /// `destination` and replaces it only when complete, memory stays flat whatever the size,
    /// `suspend()` and `resume()` continue with a `Range` request — and it is an API call: the
    /// request is built by the recipe, the API's token goes to its origins only (a 401 parks it
    /// for the one refresh), its retries, stages, deadlines and telemetry apply, and it fails
    /// with the typed `APIError`. An answer with a status the method does not accept leaves
    /// `destination` untouched and becomes `APIError.Stage.server`, its body decoded into the
    /// method's `errorModel` when it fits. The body is neither validated nor mapped, and the
    /// API's `maximumResponseBodyBytes` (a bound on memory) does not apply to it.
    ///
    /// ```swift
    /// let file = try await APIManager.download(TrackerAPI.exportIssues,
    ///                                          properties: ["owner": "octo-org", "repo": "hello-world"],
    ///                                          to: URL(fileURLWithPath: "/var/data/issues.csv")).run()
    /// ```
    /// - Parameters:
    ///   - method: The API method.
    ///   - properties: Parameters merged over the method's defaults, encoded as the method says.
    ///   - headers: Headers of this call, over the method's.
    ///   - destination: Where the file ends up (replacing a file there).
    /// - Returns: The operation, not started; its model is `destination`.
    public static func download<Method: APIMethod>(
        _ method: Method, properties: Parameters = [:], headers: [String: String] = [:], to destination: URL
    ) -> APIOperation<URL> {
        operation(method, properties: properties, headers: headers, as: URL.self, at: nil, parser: nil, shape: .download(destination))
    }

    /// The unstarted operation that calls `method` with the file at `fileURL` as the request's
    /// body, streamed from disk (never loaded whole), and makes `Model` of the answer as
    /// `operation(…)` does.
    ///
    /// The method's path placeholders are filled from `properties`; the other properties go in
    /// the query string, whatever the method's `encoding` (the body is the file). The body is
    /// announced as the method's or the call's `Content-Type`, else as the type of the file's
    /// first bytes and name. A file that cannot be read fails the call at stage
    /// `construction`, naming its path. A retry, or a replay after a token refresh, sends the
    /// file again from its start.
    ///
    /// ```swift
    /// let asset = try await APIManager.upload(TrackerAPI.uploadAsset, fileAt: archiveURL,
    ///                                         properties: ["release": 7, "name": "build.zip"],
    ///                                         as: Asset.self).run()
    /// ```
    /// - Parameters:
    ///   - method: The API method.
    ///   - fileURL: The file sent as the body.
    ///   - properties: Path placeholders, and query parameters, merged over the method's defaults.
    ///   - headers: Headers of this call, over the method's.
    ///   - type: The model decoded from the answer.
    ///   - keyPath: Dot-separated keys to the model in the response (`nil`: the whole response).
    ///   - parser: An optional step before mapping.
    /// - Returns: The operation, not started.
    public static func upload<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, fileAt fileURL: URL, properties: Parameters = [:], headers: [String: String] = [:],
        as type: Model.Type, at keyPath: String? = nil, parser: ParseStep? = nil
    ) -> APIOperation<Model> {
        operation(method, properties: properties, headers: headers, as: type, at: keyPath, parser: parser, shape: .upload(fileURL))
    }

    /// `request` with the file at `fileURL` announced as its body's type, when the method and
    /// the call gave none.
    static func uploadRequest<Method: APIMethod>(_ request: URLRequest, sending fileURL: URL, method: Method) throws(APIError)
        -> RequestConstructor.Built
    {
        guard FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw APIError(.construction("no readable file to upload at \(fileURL.path)"), method: method.rawValue)
        }
        var request = request
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(MIMEType.detect(fileAt: fileURL).name, forHTTPHeaderField: "Content-Type")
        }
        return .plain(request)
    }
}

/// What an API call sends and where its answer goes.
enum CallShape<Model: Sendable>: Sendable {
    /// Parameters encoded as the method says; the answer parsed, validated and mapped.
    case data
    /// The answer's body saved at the file the model names (`Model` is `URL`).
    case download(Model)
    /// The file at the URL as the body, the parameters in the query.
    case upload(URL)

    /// The file a download saves.
    var destination: URL? { savedFile as? URL }

    /// A download's model, known before it starts: its destination.
    var savedFile: Model? {
        if case let .download(file) = self { return file }
        return nil
    }

    /// How the call's parameters travel.
    func encoding<Method: APIMethod>(of method: Method) -> RequestEncoding {
        if case .upload = self { return .query }
        return method.encoding
    }

    /// The request body: the uploaded file, unless the call is answered by a stub.
    func body(sent: Bool) -> TransferBody {
        if case let .upload(file) = self, sent { return .file(file) }
        return .none
    }
}
