import Hummingbird
import NIOConcurrencyHelpers

/// A credential a DemoServer received: the `Authorization` header or the `access_token` query
/// parameter of one request, with its method and raw path.
public struct SeenCredential: Sendable, Equatable, CustomStringConvertible {
    /// The request's method.
    public var method: String
    /// The raw path, as sent (percent-encoding kept, no query).
    public var path: String
    /// The `Authorization` header's value, if any.
    public var authorization: String?
    /// The `access_token` query parameter, if any.
    public var accessToken: String?

    /// Whether `token` appears in the request, in the header or the query.
    public func carries(_ token: String) -> Bool {
        (authorization?.contains(token) ?? false) || accessToken == token
    }

    /// `METHOD path` and which credential came (never its value: test logs stay clean).
    public var description: String {
        "\(method) \(path)\(authorization == nil ? "" : " +Authorization")\(accessToken == nil ? "" : " +access_token")"
    }
}

/// Records every credential a server receives, so a test can check which tokens reached it.
/// Keeps the latest 50 000.
final class CredentialLog: Sendable {
    private let entries = NIOLockedValueBox<[SeenCredential]>([])

    func record(_ entry: SeenCredential) {
        entries.withLockedValue { entries in
            entries.append(entry)
            if entries.count > 50_000 { entries.removeFirst(entries.count - 50_000) }
        }
    }

    var all: [SeenCredential] { entries.withLockedValue { $0 } }
}

/// Notes the credentials of every request before it is routed.
struct CredentialLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: CredentialLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authorization = request.headers[.authorization]
        let accessToken = request.uri.queryParameters["access_token"].map(String.init)
        if authorization != nil || accessToken != nil {
            log.record(
                SeenCredential(
                    method: request.method.rawValue, path: request.uri.path,
                    authorization: authorization, accessToken: accessToken))
        }
        return try await next(request, context)
    }
}
