import Foundation

/// Why `TLSSettings` could not be made. The description names the file (or the name given to
/// bytes in memory) and what is wrong with it; it never quotes the file's content.
public struct TLSSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// No file at the path.
        case missingFile
        /// The file exists but could not be read (permissions, a folder, …).
        case unreadable(String)
        /// The content is not PEM (no `-----BEGIN` block).
        case notPEM
        /// PEM, but no certificate could be read from it.
        case noCertificate
        /// PEM, but no private key could be read from it (an encrypted key is not supported).
        case unusableKey
        /// The private key does not belong to the client certificate.
        case keyDoesNotMatchCertificate(certificate: String)
        /// A certificate's validity ended at this date.
        case expired(Date)
        /// A certificate is valid only from this date.
        case notYetValid(Date)
        /// A client certificate without its key, or a key without its certificate.
        case missingPartner(String)
    }

    /// The path of the file, or the name of the bytes, that could not be used.
    public let source: String
    /// What is wrong with it.
    public let reason: Reason

    /// An error about `source`.
    public init(source: String, reason: Reason) {
        self.source = source
        self.reason = reason
    }

    /// e.g. `TLS settings: /etc/api/client.pem: the certificate expired on 2021-01-01T00:00:00Z`.
    public var description: String {
        let what: String
        switch reason {
        case .missingFile: what = "no such file"
        case let .unreadable(why): what = "cannot be read (\(why))"
        case .notPEM: what = "not PEM (no -----BEGIN block)"
        case .noCertificate: what = "no certificate could be read from it"
        case .unusableKey: what = "no private key could be read from it (encrypted keys are not supported)"
        case let .keyDoesNotMatchCertificate(certificate): what = "the private key does not belong to the certificate in \(certificate)"
        case let .expired(date): what = "the certificate expired on \(Self.format(date))"
        case let .notYetValid(date): what = "the certificate is not valid before \(Self.format(date))"
        case let .missingPartner(why): what = why
        }
        return "TLS settings: \(source): \(what)"
    }

    private static func format(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
