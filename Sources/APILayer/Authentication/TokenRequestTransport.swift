import Foundation
import NetOps

/// How the built-in OAuth authenticators reach their token endpoint: the session (and so the
/// engine), TLS settings, proxy and HTTP/2 choice — as an API's own calls reach the API.
///
/// An authenticator configured for an `APIScope` with no transport of its own uses the scope's
/// (`APIScope.Configuration.session`, `tls`, `proxy`, `allowsHTTP2`), read at each refresh: the
/// client secret and the refresh token then go with the API's private CA, client certificate
/// (a token endpoint that requires mutual TLS, RFC 8705) and proxy, on its engine. Set one to
/// reach a token endpoint differently from the API:
///
/// ```swift
/// var authenticator = OAuthClientCredentialsAuthenticator(tokenURL: url, clientID: id, clientSecret: secret)
/// authenticator.transport = TokenRequestTransport(session: nioSession, tlsSettings: identityProviderTLS)
/// ```
///
/// An authenticator used without a scope and without a transport posts on
/// `NetworkSession.shared` (the URLSession engine) with the system's trust.
public struct TokenRequestTransport: Sendable {
    /// The session the token request runs in; nil: `NetworkSession.shared`.
    public var session: NetworkSession?
    /// The token request's TLS settings; nil: the session's.
    public var tlsSettings: TLSSettings?
    /// The token request's proxy choice; nil: the session's.
    public var proxy: ProxyChoice?
    /// Whether the token request may use HTTP/2 (default true).
    public var allowsHTTP2: Bool

    /// A transport; every part has a default.
    public init(session: NetworkSession? = nil, tlsSettings: TLSSettings? = nil, proxy: ProxyChoice? = nil, allowsHTTP2: Bool = true) {
        self.session = session
        self.tlsSettings = tlsSettings
        self.proxy = proxy
        self.allowsHTTP2 = allowsHTTP2
    }

    /// The transport of an API's calls.
    init(scope configuration: APIScope.Configuration) {
        self.init(
            session: configuration.session, tlsSettings: configuration.tls, proxy: configuration.proxy,
            allowsHTTP2: configuration.allowsHTTP2)
    }

    /// Gives `operation` this transport.
    func apply(to operation: BaseOperation) {
        if let session { operation.privateSession = session }
        if let tlsSettings { operation.tlsSettings = tlsSettings }
        if let proxy { operation.proxy = proxy }
        if !allowsHTTP2 { operation.allowsHTTP2 = false }
    }
}

/// An authenticator that posts to a token endpoint, and can take the transport of the API it
/// refreshes for when it has none of its own.
protocol TokenEndpointAuthenticator: Authenticator {
    /// Its own transport, if any.
    var transport: TokenRequestTransport? { get set }
}

extension TokenEndpointAuthenticator {
    /// This authenticator, with `transport` when it has none of its own.
    func using(_ transport: TokenRequestTransport) -> any Authenticator {
        guard self.transport == nil else { return self }
        var copy = self
        copy.transport = transport
        return copy
    }
}
