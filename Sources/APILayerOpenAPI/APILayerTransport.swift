import APILayer
import Foundation
import HTTPTypes
import NetOps
import OpenAPIRuntime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `ClientTransport` of swift-openapi-runtime that sends a generated client's requests as
/// NetOps operations of one API: in the API's session (the URLSession engine or the NIO engine),
/// with its retry policy, its token on its origins, and one refresh for any number of requests
/// that meet a 401 at once.
///
/// ```swift
/// APIScope.inventory.configure { $0.baseURL = URL(string: "https://inventory.example.com/v1/")! }
/// APIScope.inventory.configureAuthentication(authenticator: …, store: …)
/// let client = Client(
///     serverURL: APIScope.inventory.configuration.baseURL!,
///     transport: APILayerTransport(scope: .inventory),
///     middlewares: [TemplateValidationMiddleware(templates: templates)])
/// let item = try await client.getItem(path: .init(id: 7)).ok.body.json
/// ```
///
/// Every response comes back to the client, whatever its status: the generated code decides
/// what a 404 means. An accepted response's body streams (`StreamingOperation`): the client
/// reads it as it arrives, and on the NIO engine the server is read no faster than the client
/// reads, and stops at the scope's `maximumResponseBodyBytes` (64 MiB unless set): a generated client
/// collects a JSON body whole (`upTo: .max`), so a server that sends one without end meets that
/// limit, and the body's read throws a `NetOpsError` naming it. A request body of up to `inMemoryRequestBodyBytes` goes from memory; a longer one, or one
/// of unknown length, is written to a temporary file as the client produces it and sent from disk,
/// so memory stays flat either way (up to `maxRequestBodyBytes`). A status the retry policy retries (a 503, say) is retried first; the client
/// sees the last answer. Transport failures (no connection, a timeout, a cancelled task) throw
/// the operation's `NetOpsError`. Cancelling the calling task cancels the operation.
public struct APILayerTransport: ClientTransport {
    /// What the transport does besides sending.
    public struct Configuration: Sendable {
        /// Where the API's token goes; nil sends requests without one.
        public var tokenPlacement: TokenPlacement?
        /// The largest request body sent.
        public var maxRequestBodyBytes: Int
        /// The largest request body kept in memory: a body of unknown length, or a longer one,
        /// is written to a temporary file (mode 0600) as the client produces it and sent from
        /// there. 1 MiB unless set.
        public var inMemoryRequestBodyBytes: Int = 1 << 20
        /// Called with each operation before it starts, and the ID of the client's operation:
        /// give it an owner, timeouts, a progress handler.
        public var prepare: (@Sendable (BaseOperation, _ operationID: String) -> Void)?

        /// A configuration: the token in the `Authorization` header, bodies up to 64 MiB, those
        /// over 1 MiB sent from a temporary file.
        public init(
            tokenPlacement: TokenPlacement? = .authorizationHeader, maxRequestBodyBytes: Int = 64 << 20,
            prepare: (@Sendable (BaseOperation, _ operationID: String) -> Void)? = nil
        ) {
            self.tokenPlacement = tokenPlacement
            self.maxRequestBodyBytes = maxRequestBodyBytes
            self.prepare = prepare
        }
    }

    /// The API whose session, retry policy and token the requests use.
    public let scope: APIScope
    /// What the transport does besides sending.
    public var configuration: Configuration

    /// A transport for the API `scope` (by default APIManager's default API).
    public init(scope: APIScope = APIManager.defaultAPI, configuration: Configuration = Configuration()) {
        self.scope = scope
        self.configuration = configuration
    }

    /// Sends `request` as an operation of the transport's API and returns the response.
    ///
    /// - Throws: `APILayerTransportError` when the request cannot be made; the operation's
    ///   `NetOpsError` when no response came.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try Self.urlRequest(for: request, baseURL: baseURL)
        // The response body streams to the generated client as it arrives (on the NIO engine,
        // no faster than the client reads it); an answer with a status the operation does not
        // accept comes whole, as the operation held it.
        let operation: StreamingOperation
        if let body {
            if case let .known(length) = body.length, length <= configuration.inMemoryRequestBodyBytes {
                urlRequest.httpBody = Data(try await collect(body, operationID: operationID))
                operation = StreamingOperation(request: urlRequest)
            } else {
                let file = try await spool(body, operationID: operationID)
                urlRequest.setValue(String(file.length), forHTTPHeaderField: "Content-Length")
                operation = StreamingOperation(request: urlRequest, bodyFile: file.url)
            }
        } else {
            operation = StreamingOperation(request: urlRequest)
        }
        scope.adopt(operation, tokenPlacement: configuration.tokenPlacement)
        configuration.prepare?(operation, operationID)
        _ = try? await operation.response()
        // The head as it arrived (on the NIO engine no `HTTPURLResponse` is made for it), read
        // once: the response and the streamed body's length come from the same head.
        guard let head = operation.responseHead, let response = head.httpResponse else {
            throw operation.error ?? NetOpsError(.cancelled, url: urlRequest.url)
        }
        if let error = operation.error {
            // A response came, but the transfer failed after it (cut short, cancelled).
            guard error.httpStatus != nil else { throw error }
            return (response, HTTPBody(operation.receivedData))
        }
        return (response, Self.streamedBody(of: operation, head: head))
    }

    /// A request body of known, small length, in memory.
    private func collect(_ body: HTTPBody, operationID: String) async throws -> ArraySlice<UInt8> {
        do {
            return try await ArraySlice(collecting: body, upTo: configuration.maxRequestBodyBytes)
        } catch {
            throw APILayerTransportError.bodyTooLarge(operationID: operationID, limit: configuration.maxRequestBodyBytes)
        }
    }

    /// A request body of unknown or large length, written chunk by chunk as the client produces
    /// it to a temporary file only this process's user can read, which the operation sends from
    /// disk and deletes when it ends. At most `maxRequestBodyBytes`.
    private func spool(_ body: HTTPBody, operationID: String) async throws -> (url: URL, length: Int) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-request-\(UUID().uuidString).body")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw NetOpsError(.file(path: url.path, reason: "cannot create the request body's temporary file"), url: nil)
        }
        var length = 0
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            for try await chunk in body {
                length += chunk.count
                guard length <= configuration.maxRequestBodyBytes else {
                    throw APILayerTransportError.bodyTooLarge(operationID: operationID, limit: configuration.maxRequestBodyBytes)
                }
                try handle.write(contentsOf: chunk)
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return (url, length)
    }

    /// The body of an accepted response, read from the operation as the client iterates it.
    private static func streamedBody(of operation: StreamingOperation, head: ResponseHead) -> HTTPBody {
        // A decoded body's length is not the announced one.
        let coded = head.value(forHTTPHeaderField: "Content-Encoding").map { !$0.isEmpty && $0.lowercased() != "identity" } ?? false
        let length: HTTPBody.Length = coded ? .unknown : head.expectedContentLength.map { .known($0) } ?? .unknown
        return HTTPBody(operation.body.map { ArraySlice($0) }, length: length, iterationBehavior: .single)
    }

    /// The Foundation request of a generated client's request.
    package static func urlRequest(for request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let path = request.path ?? "/"
        // As the recipe refuses a path value of `.` or `..` (PathTemplate): a dot segment,
        // percent-encoded or not, would climb out of the base URL on servers that normalise.
        let pathOnly = path.prefix { $0 != "?" && $0 != "#" }
        for segment in pathOnly.split(separator: "/", omittingEmptySubsequences: false) {
            let decoded = String(segment).removingPercentEncoding ?? String(segment)
            if decoded == "." || decoded == ".." {
                throw APILayerTransportError.invalidURL(
                    "\(base + path) (a path segment is \"\(decoded)\", which would change the path)")
            }
        }
        // HTTPTypes' `url` setter traps on a URL without a scheme or one URLComponents cannot
        // read: such a base URL is refused here.
        guard let url = URL(string: base + (path.hasPrefix("/") ? path : "/" + path)), url.scheme != nil,
            URLComponents(url: url, resolvingAgainstBaseURL: true)?.string != nil
        else {
            throw APILayerTransportError.invalidURL(base + path)
        }
        // The client's request with the URL's scheme, authority and path; HTTPTypesFoundation
        // makes the Foundation request of it (NetOps' `foundationRequest`: the method, each field
        // name once with repeated values joined, a value past ASCII sent as it is).
        var absolute = request
        absolute.url = url
        guard let urlRequest = absolute.foundationRequest else {
            throw APILayerTransportError.invalidURL(base + path)
        }
        return urlRequest
    }
}

/// Why `APILayerTransport` could not send a request.
public enum APILayerTransportError: Error, CustomStringConvertible, Equatable {
    /// The base URL and the request's path do not make a URL.
    case invalidURL(String)
    /// The request body is larger than the transport reads into memory.
    case bodyTooLarge(operationID: String, limit: Int)

    /// One readable line.
    public var description: String {
        switch self {
        case let .invalidURL(text): return "\(text) is not a URL"
        case let .bodyTooLarge(operationID, limit): return "the request body of \(operationID) is larger than \(limit) bytes"
        }
    }
}
