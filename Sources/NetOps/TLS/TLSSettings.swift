import Crypto
import Foundation
import NIOSSL

/// How the requests of an API (or a session, or one operation) verify the server and prove who
/// they are: the certificate authorities trusted, a client certificate for mutual TLS, the oldest
/// TLS version accepted.
///
/// Everything is read and checked when the settings are made: a missing or unreadable file, a
/// file that is not PEM, a private key that does not belong to the certificate, a certificate
/// that expired or is not valid yet throws a `TLSSettingsError` that names the file, never its
/// content. After that the settings are a value that costs nothing to copy or hand around.
///
/// ```swift
/// let tls = try TLSSettings(
///     trustRoots: .only(.file("/etc/payments/ca.pem")),
///     clientCertificate: .file("/etc/payments/client.pem"),
///     clientKey: .file("/etc/payments/client-key.pem"))
/// APIScope.payments.configure { $0.tls = tls }
/// ```
///
/// Only the SwiftNIO engine (`NetworkSession.nio`) can use trust roots and client certificates of
/// its own: FoundationNetworking on Linux gives a URLSession no way to set them (libcurl reads
/// the system's store), so an operation whose settings are not `.standard` fails on the
/// URLSession engine with `NetOpsError.Kind.tls`, saying so, before anything is sent.
///
/// Host-name verification cannot be turned off by itself: either the chain and the name are
/// both verified, or neither is (`insecureWithoutVerification`, for test servers).
public struct TLSSettings: Sendable, CustomStringConvertible {
    /// A TLS protocol version.
    public enum Version: Int, Sendable, Comparable, CustomStringConvertible {
        /// TLS 1.0 (RFC 2246): obsolete; only for a legacy server that offers nothing newer.
        case tls10 = 10
        /// TLS 1.1 (RFC 4346): obsolete.
        case tls11 = 11
        /// TLS 1.2 (RFC 5246): the default minimum.
        case tls12 = 12
        /// TLS 1.3 (RFC 8446).
        case tls13 = 13

        /// Orders versions from the oldest.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `TLS 1.2`, say.
        public var description: String { "TLS 1.\(rawValue - 10)" }
    }

    /// Where PEM text comes from: a file, read once when the settings are made, or bytes already
    /// in memory (from a secret store, say) with a name errors can use instead of the content.
    public enum PEMSource: Sendable, Equatable {
        /// The file at this path.
        case file(String)
        /// PEM text in memory; `name` stands for it in errors and descriptions.
        case bytes(Data, name: String)

        /// The path, or the name given to the bytes.
        public var name: String {
            switch self {
            case let .file(path): path
            case let .bytes(_, name): name
            }
        }
    }

    /// Which certificate authorities a server's chain may lead to.
    public enum TrustRoots: Sendable, Equatable {
        /// The system's store (`/etc/ssl/certs` on Debian).
        case system
        /// The system's store and the certificates in this PEM (a private CA beside public ones).
        case systemAnd(PEMSource)
        /// Only the certificates in this PEM (an internal API whose CA is the only one to trust).
        case only(PEMSource)
    }

    /// The checked settings, behind one reference: copying the settings copies a pointer, and two
    /// copies of one `TLSSettings` are known to be the same.
    final class Storage: Sendable {
        let configuration: TLSConfiguration
        let trustRoots: TrustRoots
        let clientCertificate: PEMSource?
        let minimumVersion: Version
        let verifiesCertificates: Bool
        /// What the settings present and trust, as a digest (see `TLSSettings.fingerprint`).
        let fingerprint: String

        init(
            configuration: TLSConfiguration, trustRoots: TrustRoots, clientCertificate: PEMSource?, minimumVersion: Version,
            verifiesCertificates: Bool, fingerprint: String
        ) {
            self.configuration = configuration
            self.trustRoots = trustRoots
            self.clientCertificate = clientCertificate
            self.minimumVersion = minimumVersion
            self.verifiesCertificates = verifiesCertificates
            self.fingerprint = fingerprint
        }
    }

    let storage: Storage

    /// Settings read and checked from these sources.
    ///
    /// - Parameters:
    ///   - trustRoots: the authorities a server's chain may lead to (default: the system's).
    ///   - clientCertificate: the client's certificate chain, leaf first, for a server that asks
    ///     for one (mutual TLS); give `clientKey` with it.
    ///   - clientKey: the certificate's private key (PKCS#8 or the algorithm's own PEM,
    ///     unencrypted).
    ///   - minimumVersion: the oldest protocol accepted (default: TLS 1.2).
    /// A private key's file is read as a secret is: a regular file others may not read and only
    /// its owner may write, owned by this process's user or root, at most 1 MiB; certificate
    /// files at most 8 MiB.
    ///
    /// - Throws: `TLSSettingsError` naming the file (or the bytes' name) that could not be used.
    public init(
        trustRoots: TrustRoots = .system, clientCertificate: PEMSource? = nil, clientKey: PEMSource? = nil,
        minimumVersion: Version = .tls12
    ) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = minimumVersion.nioVersion
        // The fingerprint: the version, the trust and the client's chain, by their DER bytes.
        var digest = SHA256()
        digest.update(data: Data("tls \(minimumVersion.rawValue) verified\n".utf8))
        func add(_ label: String, _ certificates: [NIOSSLCertificate]) throws {
            digest.update(data: Data(label.utf8))
            for certificate in certificates { digest.update(data: try certificate.toDERBytes()) }
        }
        switch trustRoots {
        case .system:
            digest.update(data: Data("system".utf8))
        case let .systemAnd(source):
            let roots = try TLSMaterial.certificates(from: source)
            try add("system and", roots)
            configuration.additionalTrustRoots = [.certificates(roots)]
        case let .only(source):
            let roots = try TLSMaterial.certificates(from: source)
            try add("only", roots)
            configuration.trustRoots = .certificates(roots)
        }
        switch (clientCertificate, clientKey) {
        case (nil, nil):
            break
        case let (certificate?, nil):
            throw TLSSettingsError(source: certificate.name, reason: .missingPartner("a client certificate needs its private key (clientKey)"))
        case let (nil, key?):
            throw TLSSettingsError(source: key.name, reason: .missingPartner("a private key needs its certificate (clientCertificate)"))
        case let (certificate?, key?):
            let chain = try TLSMaterial.certificates(from: certificate)
            try add("client", chain)
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(try TLSMaterial.privateKey(from: key))
            try TLSMaterial.checkKey(key, matches: certificate, in: configuration)
        }
        self.storage = Storage(
            configuration: configuration, trustRoots: trustRoots, clientCertificate: clientCertificate, minimumVersion: minimumVersion,
            verifiesCertificates: true, fingerprint: HTTPCache.hex(digest.finalize()))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The system's trust roots, no client certificate, TLS 1.2 or newer, chain and host name
    /// verified: what a request gets when nothing says otherwise.
    public static let standard: TLSSettings = {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = Version.tls12.nioVersion
        return TLSSettings(
            storage: Storage(
                configuration: configuration, trustRoots: .system, clientCertificate: nil, minimumVersion: .tls12, verifiesCertificates: true,
                fingerprint: "standard"))
    }()

    /// Settings that verify **nothing**: neither the chain nor the host name. For test servers
    /// only; an engine that uses them logs a warning.
    public static func insecureWithoutVerification(minimumVersion: Version = .tls12) -> TLSSettings {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = minimumVersion.nioVersion
        configuration.certificateVerification = .none
        return TLSSettings(
            storage: Storage(
                configuration: configuration, trustRoots: .system, clientCertificate: nil, minimumVersion: minimumVersion,
                verifiesCertificates: false, fingerprint: "insecure \(minimumVersion.rawValue)"))
    }

    /// The authorities a server's chain may lead to.
    public var trustRoots: TrustRoots { storage.trustRoots }
    /// The client certificate's source, when the settings carry one.
    public var clientCertificate: PEMSource? { storage.clientCertificate }
    /// The oldest protocol version accepted.
    public var minimumVersion: Version { storage.minimumVersion }
    /// False only for `insecureWithoutVerification`: chain and host name are verified together.
    public var verifiesCertificates: Bool { storage.verifiesCertificates }

    /// True for settings that ask nothing of an engine beyond the system's defaults and TLS 1.2:
    /// `standard`, or settings made with the same choices.
    public var isStandard: Bool {
        storage === Self.standard.storage
            || (trustRoots == .system && clientCertificate == nil && minimumVersion == .tls12 && verifiesCertificates)
    }

    /// The same trust, version and verification, without the client certificate: what a
    /// redirect to another origin than the API's is sent with.
    package func withoutClientCertificate() -> TLSSettings {
        guard clientCertificate != nil else { return self }
        var configuration = storage.configuration
        configuration.certificateChain = []
        configuration.privateKey = nil
        return TLSSettings(
            storage: Storage(
                configuration: configuration, trustRoots: trustRoots, clientCertificate: nil, minimumVersion: minimumVersion,
                verifiesCertificates: verifiesCertificates, fingerprint: storage.fingerprint + " without client certificate"))
    }

    /// Whether both are the same settings (made once and copied), which engines can share
    /// connections for without comparing certificates.
    package func isIdentical(to other: TLSSettings) -> Bool { storage === other.storage }

    /// The identity of the settings made once (copies share it).
    package var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// What the settings present and trust — the client's certificate chain, the trust roots,
    /// the oldest version, whether anything is verified — as a digest: equal for settings made
    /// from the same certificates, different for another client certificate. The same across
    /// restarts, so an `HTTPCache` folder keys by it; never the key's content.
    package var fingerprint: String { isStandard ? "standard" : storage.fingerprint }

    /// The settings in NIOSSL's terms, for the SwiftNIO engine.
    package var configuration: TLSConfiguration { storage.configuration }

    /// One line naming what the settings use, e.g. `TLS 1.2+, trusting only ca.pem, client
    /// certificate client.pem`: file names, never their content.
    public var description: String {
        var parts = ["\(minimumVersion)+"]
        if !verifiesCertificates { return parts[0] + ", verifying nothing (insecure)" }
        switch trustRoots {
        case .system: parts.append("trusting the system's roots")
        case let .systemAnd(source): parts.append("trusting the system's roots and \(source.name)")
        case let .only(source): parts.append("trusting only \(source.name)")
        }
        if let clientCertificate { parts.append("client certificate \(clientCertificate.name)") }
        return parts.joined(separator: ", ")
    }
}

extension TLSSettings.Version {
    var nioVersion: TLSVersion {
        switch self {
        case .tls10: .tlsv1
        case .tls11: .tlsv11
        case .tls12: .tlsv12
        case .tls13: .tlsv13
        }
    }
}
