import Crypto
import Foundation
import NIOSSL
import NetOps

/// What the NIO engine makes of `TLSSettings`: NIOSSL's configuration and the settings'
/// fingerprint, built the first time a transfer uses the settings and kept with them (every
/// copy shares it). The core reads and checks the PEM files without a TLS library; here the
/// certificates and the key are parsed by NIOSSL, and the key is checked against the chain.
package struct NIOTLSBuild: Sendable {
    /// The configuration, or why the settings cannot be used (the key does not match the chain).
    package let configuration: Result<TLSConfiguration, TLSSettingsError>
    /// What the settings present and trust — the client's certificate chain, the trust roots,
    /// the oldest version, whether anything is verified — as a digest: equal for settings made
    /// from the same certificates, different for another client certificate. The same across
    /// restarts, so a response cache's folder keys by it; never the key's content.
    package let fingerprint: String
}

extension TLSSettings {
    /// The settings in NIOSSL's terms, made once per settings.
    package var nioBuild: NIOTLSBuild { engineBuild { Self.makeNIOBuild(of: self) } }

    /// The settings' fingerprint (see `NIOTLSBuild.fingerprint`).
    package var fingerprint: String { nioBuild.fingerprint }

    private static func makeNIOBuild(of settings: TLSSettings) -> NIOTLSBuild {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = settings.minimumVersion.nioVersion
        guard settings.verifiesCertificates else {
            configuration.certificateVerification = .none
            return NIOTLSBuild(configuration: .success(configuration), fingerprint: "insecure \(settings.minimumVersion.rawValue)")
        }
        let material = settings.material
        // The fingerprint: the version, the trust and the client's chain, by their DER bytes.
        var digest = SHA256()
        digest.update(data: Data("tls \(settings.minimumVersion.rawValue) verified\n".utf8))
        func add(_ label: String, _ certificates: [NIOSSLCertificate]) {
            digest.update(data: Data(label.utf8))
            for certificate in certificates { if let der = try? certificate.toDERBytes() { digest.update(data: der) } }
        }
        // The core checked that every PEM holds what it must: a certificate NIOSSL cannot read
        // after that is one the core's reader accepted and BoringSSL does not (reported as such).
        do {
            switch settings.trustRoots {
            case .system:
                digest.update(data: Data("system".utf8))
            case let .systemAnd(source):
                let roots = try certificates(material.trustRoots, source: source)
                add("system and", roots)
                configuration.additionalTrustRoots = [.certificates(roots)]
            case let .only(source):
                let roots = try certificates(material.trustRoots, source: source)
                add("only", roots)
                configuration.trustRoots = .certificates(roots)
            }
            if let certificate = settings.clientCertificate, let keyPEM = material.privateKey, let keySource = material.privateKeySource {
                let chain = try certificates(material.certificateChain, source: certificate)
                add("client", chain)
                configuration.certificateChain = chain.map { .certificate($0) }
                let key: NIOSSLPrivateKey
                do {
                    key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
                } catch {
                    throw TLSSettingsError(source: keySource.name, reason: .unusableKey)
                }
                configuration.privateKey = .privateKey(key)
                try checkKey(keySource, matches: certificate, in: configuration)
            }
        } catch let error as TLSSettingsError {
            return NIOTLSBuild(configuration: .failure(error), fingerprint: "unusable \(error.source)")
        } catch {
            return NIOTLSBuild(
                configuration: .failure(TLSSettingsError(source: "TLS settings", reason: .unreadable(String(describing: error)))),
                fingerprint: "unusable")
        }
        let fingerprint = settings.isStandard ? "standard" : HexDigest.string(digest.finalize())
        return NIOTLSBuild(configuration: .success(configuration), fingerprint: fingerprint)
    }

    private static func certificates(_ pem: [UInt8]?, source: PEMSource) throws -> [NIOSSLCertificate] {
        do {
            let certificates = try NIOSSLCertificate.fromPEMBytes(pem ?? [])
            guard !certificates.isEmpty else { throw TLSSettingsError(source: source.name, reason: .noCertificate) }
            return certificates
        } catch {
            throw TLSSettingsError(source: source.name, reason: .noCertificate)
        }
    }

    /// Makes a TLS context of `configuration`, as a connection will: BoringSSL refuses a private
    /// key that does not belong to the chain's first certificate.
    private static func checkKey(_ key: PEMSource, matches certificate: PEMSource, in configuration: TLSConfiguration) throws {
        var probe = configuration
        // The check concerns the key and the chain only: loading the system's roots would read
        // a folder of files for nothing.
        probe.trustRoots = .certificates([])
        probe.additionalTrustRoots = []
        do {
            _ = try NIOSSLContext(configuration: probe)
        } catch {
            throw TLSSettingsError(source: key.name, reason: .keyDoesNotMatchCertificate(certificate: certificate.name))
        }
    }
}

extension TLSSettings.Version {
    /// The version in NIOSSL's terms.
    var nioVersion: TLSVersion {
        switch self {
        case .tls10: .tlsv1
        case .tls11: .tlsv11
        case .tls12: .tlsv12
        case .tls13: .tlsv13
        }
    }
}

extension ProxySettings {
    /// Who the proxy is and who the client is to it, for keys that must tell two proxies apart
    /// (a response cache's): kind, host, port, user name and a digest of the password.
    package var fingerprint: String {
        let user = credentials.map { "\($0.username):\(HexDigest.string(SHA256.hash(data: Data($0.password.utf8))).prefix(16))@" } ?? ""
        return "\(kind.rawValue)://\(user)\(host.lowercased()):\(port)"
    }
}
