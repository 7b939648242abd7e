import Configuration
import Foundation
import NetOps
import NetOpsHTTP

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension OAuthClientCredentialsAuthenticator {
    /// An authenticator read from `configReader`, scoped by the caller (by convention the API's
    /// `auth` section: `tracker.auth.clientSecret`, `TRACKER_AUTH_CLIENT_SECRET`).
    ///
    /// ## Configuration keys
    /// - `tokenURL` (absolute https URL, required): the token endpoint; `http://` only to a
    ///   loopback host, unless the code passes `allowsInsecureHTTP: true`.
    /// - `clientID` (string, required).
    /// - `clientSecret` (string, **secret**), or `clientSecretFile` (string): the path of a file
    ///   holding it (a mounted secret), read now and trimmed; one of the two is required, and
    ///   `clientSecret` wins when both are given.
    /// - `scope` (string, optional): the scope asked for.
    /// - `timeout` (seconds, more than 0, default 15).
    ///
    /// The secret is read as one (`isSecret: true`: swift-configuration's access loggers redact
    /// it); no error and no description of the authenticator carries it.
    ///
    /// - Parameters:
    ///   - configReader: The section to read.
    ///   - allowsInsecureHTTP: Whether an `http://` `tokenURL` of a host other than loopback is
    ///     accepted (see `allowsInsecureHTTP`); given in code, never read from configuration.
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong, or the secret file's
    ///   key when the file cannot be read.
    public init(configReader: ConfigReader, allowsInsecureHTTP: Bool = false) throws {
        let settings = ConfigSettingsReader(configReader)
        let tokenURL = try OAuthClientCredentialsAuthenticator.readTokenURL(settings, allowsInsecureHTTP: allowsInsecureHTTP)
        let clientID = try settings.required("clientID", try settings.string("clientID"))
        let secret = try settings.required("clientSecret", try Self.readSecret(settings))
        let scope = try settings.string("scope")
        let timeout = try settings.seconds("timeout", positive: true) ?? 15
        self.init(tokenURL: tokenURL, clientID: clientID, clientSecret: secret, scope: scope, timeout: timeout)
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// `tokenURL`: an https URL, or http to a loopback host, or any http URL when the code says
    /// `allowsInsecureHTTP`.
    static func readTokenURL(_ settings: ConfigSettingsReader, allowsInsecureHTTP: Bool) throws -> URL {
        let url = try settings.required("tokenURL", try settings.url("tokenURL"))
        if Loopback.isCleartextOffMachine(url), !allowsInsecureHTTP {
            let accepted =
                "an https URL (http only to a loopback host, or with allowsInsecureHTTP given in code): "
                + "its credentials would travel in clear"
            throw settings.error("tokenURL", .invalid(accepted))
        }
        return url
    }

    /// `clientSecret`, else the content of the file `clientSecretFile` names; nil when neither is given.
    static func readSecret(_ settings: ConfigSettingsReader) throws -> String? {
        if let secret = try settings.string("clientSecret", isSecret: true) { return secret }
        return try settings.secretFile("clientSecretFile")
    }
}

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension OAuthRefreshTokenAuthenticator {
    /// An authenticator read from `configReader`, scoped by the caller (by convention the API's
    /// `auth` section).
    ///
    /// ## Configuration keys
    /// - `tokenURL` (absolute https URL, required): the token endpoint; `http://` only to a
    ///   loopback host, unless the code passes `allowsInsecureHTTP: true`.
    /// - `clientID` (string, optional).
    /// - `clientSecret` (string, **secret**, optional), or `clientSecretFile` (string): the path of
    ///   a file holding it, read now; `clientSecret` wins when both are given.
    /// - `timeout` (seconds, more than 0, default 15).
    ///
    /// - Parameters:
    ///   - configReader: The section to read.
    ///   - allowsInsecureHTTP: Whether an `http://` `tokenURL` of a host other than loopback is
    ///     accepted (see `allowsInsecureHTTP`); given in code, never read from configuration.
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong, or the secret file's
    ///   key when the file cannot be read.
    public init(configReader: ConfigReader, allowsInsecureHTTP: Bool = false) throws {
        let settings = ConfigSettingsReader(configReader)
        let tokenURL = try OAuthClientCredentialsAuthenticator.readTokenURL(settings, allowsInsecureHTTP: allowsInsecureHTTP)
        let clientID = try settings.string("clientID")
        let secret = try OAuthClientCredentialsAuthenticator.readSecret(settings)
        let timeout = try settings.seconds("timeout", positive: true) ?? 15
        self.init(tokenURL: tokenURL, clientID: clientID, clientSecret: secret, timeout: timeout)
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }
}

extension OAuthClientCredentialsAuthenticator: CustomStringConvertible {
    /// `OAuth client credentials of demo-client at https://…/oauth/token`: never the secret.
    public var description: String {
        "OAuth client credentials of \(clientID) at \(tokenURL.absoluteString)\(scope.map { ", scope \($0)" } ?? ""), secret <redacted>"
    }
}

extension OAuthRefreshTokenAuthenticator: CustomStringConvertible {
    /// `OAuth refresh token grant at https://…/oauth/token`: never the client's secret.
    public var description: String {
        let client = clientID.map { " for \($0)" } ?? ""
        return "OAuth refresh token grant at \(tokenURL.absoluteString)\(client)\(clientSecret == nil ? "" : ", secret <redacted>")"
    }
}

extension OAuthClientCredentialsAuthenticator: CustomReflectable {
    /// Every setting, the secret `<redacted>`: `dump()` and debuggers never show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenURL": tokenURL, "clientID": clientID, "clientSecret": "<redacted>", "scope": scope as Any, "timeout": timeout,
                "allowsInsecureHTTP": allowsInsecureHTTP, "transport": transport as Any,
            ])
    }
}

extension OAuthRefreshTokenAuthenticator: CustomReflectable {
    /// Every setting, the secret `<redacted>`: `dump()` and debuggers never show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenURL": tokenURL, "clientID": clientID as Any, "clientSecret": clientSecret == nil ? "none" : "<redacted>",
                "timeout": timeout, "allowsInsecureHTTP": allowsInsecureHTTP, "transport": transport as Any,
            ])
    }
}
