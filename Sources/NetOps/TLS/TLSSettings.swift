import Foundation

/// How the requests of an API (or a session, or one operation) verify the server and prove who
/// they are: the certificate authorities trusted, a client certificate for mutual TLS, the oldest
/// TLS version accepted.
///
/// Every file is read and checked when the settings are made: a missing or unreadable file, a
/// file that is not PEM, a certificate file without a certificate, a key file without a private
/// key, a certificate that expired or is not valid yet throws a `TLSSettingsError` that names
/// the file, never its content. After that the settings are a value that costs nothing to copy
/// or hand around. Whether the private key belongs to the certificate is checked by the engine
/// that uses them (`NetworkSession.nio`), with the TLS library it links, once per settings: a
/// key of another certificate fails the first request with a `.tls` error naming the key.
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

    /// The PEM text the settings were read from, once, for an engine to build its TLS
    /// configuration of (and to fingerprint): nil where the settings name none.
    package struct Material: Sendable {
        /// The trust roots' PEM (`.systemAnd` or `.only`).
        package let trustRoots: [UInt8]?
        /// The client's certificate chain, leaf first.
        package let certificateChain: [UInt8]?
        /// The chain's private key.
        package let privateKey: [UInt8]?
        /// Where the key came from, for the error of a key that does not match the chain.
        package let privateKeySource: PEMSource?

        /// No PEM: the system's trust, no client certificate.
        static let none = Material(trustRoots: nil, certificateChain: nil, privateKey: nil, privateKeySource: nil)
    }

    /// The checked settings, behind one reference: copying the settings copies a pointer, and two
    /// copies of one `TLSSettings` are known to be the same.
    final class Storage: Sendable {
        let trustRoots: TrustRoots
        let clientCertificate: PEMSource?
        let minimumVersion: Version
        let verifiesCertificates: Bool
        let material: Material
        /// What an engine built of the settings (its TLS library's configuration), made the first
        /// time it needs it and kept: every copy shares it.
        let engineBuild = Locked<(any Sendable)?>(nil)
        /// The same settings without the client certificate, made once (`withoutClientCertificate()`).
        let withoutClientCertificate = Locked<TLSSettings?>(nil)

        init(trustRoots: TrustRoots, clientCertificate: PEMSource?, minimumVersion: Version, verifiesCertificates: Bool, material: Material) {
            self.trustRoots = trustRoots
            self.clientCertificate = clientCertificate
            self.minimumVersion = minimumVersion
            self.verifiesCertificates = verifiesCertificates
            self.material = material
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
        var trustPEM: [UInt8]?
        switch trustRoots {
        case .system: break
        case let .systemAnd(source), let .only(source): trustPEM = try TLSMaterial.certificates(from: source)
        }
        var chainPEM: [UInt8]?
        var keyPEM: [UInt8]?
        switch (clientCertificate, clientKey) {
        case (nil, nil):
            break
        case let (certificate?, nil):
            throw TLSSettingsError(source: certificate.name, reason: .missingPartner("a client certificate needs its private key (clientKey)"))
        case let (nil, key?):
            throw TLSSettingsError(source: key.name, reason: .missingPartner("a private key needs its certificate (clientCertificate)"))
        case let (certificate?, key?):
            chainPEM = try TLSMaterial.certificates(from: certificate)
            keyPEM = try TLSMaterial.privateKey(from: key)
        }
        self.storage = Storage(
            trustRoots: trustRoots, clientCertificate: clientCertificate, minimumVersion: minimumVersion, verifiesCertificates: true,
            material: Material(trustRoots: trustPEM, certificateChain: chainPEM, privateKey: keyPEM, privateKeySource: clientKey))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The system's trust roots, no client certificate, TLS 1.2 or newer, chain and host name
    /// verified: what a request gets when nothing says otherwise.
    public static let standard = TLSSettings(
        storage: Storage(trustRoots: .system, clientCertificate: nil, minimumVersion: .tls12, verifiesCertificates: true, material: .none))

    /// Settings that verify **nothing**: neither the chain nor the host name. For test servers
    /// only; an engine that uses them logs a warning.
    public static func insecureWithoutVerification(minimumVersion: Version = .tls12) -> TLSSettings {
        TLSSettings(
            storage: Storage(
                trustRoots: .system, clientCertificate: nil, minimumVersion: minimumVersion, verifiesCertificates: false, material: .none))
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
    /// redirect to another origin than the API's is sent with. Made once per settings.
    package func withoutClientCertificate() -> TLSSettings {
        guard clientCertificate != nil else { return self }
        if let made = storage.withoutClientCertificate.withLock({ $0 }) { return made }
        let material = storage.material
        let made = TLSSettings(
            storage: Storage(
                trustRoots: trustRoots, clientCertificate: nil, minimumVersion: minimumVersion, verifiesCertificates: verifiesCertificates,
                material: Material(trustRoots: material.trustRoots, certificateChain: nil, privateKey: nil, privateKeySource: nil)))
        return storage.withoutClientCertificate.withLock { kept in
            if let kept { return kept }
            kept = made
            return made
        }
    }

    /// Whether both are the same settings (made once and copied), which engines can share
    /// connections for without comparing certificates.
    package func isIdentical(to other: TLSSettings) -> Bool { storage === other.storage }

    /// The identity of the settings made once (copies share it).
    package var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// The PEM text the settings were read from.
    package var material: Material { storage.material }

    /// What an engine built of these settings, made by `make` the first time and kept for every
    /// copy (a concurrent first use may make it twice and keep one).
    package func engineBuild<Built: Sendable>(_ make: () -> Built) -> Built {
        if let built = storage.engineBuild.withLock({ $0 }) as? Built { return built }
        let made = make()
        return storage.engineBuild.withLock { kept in
            if let built = kept as? Built { return built }
            kept = made
            return made
        }
    }

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
