import Foundation
import NIOSSL

/// Reads and checks the certificates and keys `TLSSettings` are made of, once, turning every
/// failure into a `TLSSettingsError` that names its source.
enum TLSMaterial {
    /// The most bytes of a PEM file of certificates read (a bundle of a system's roots is a few
    /// hundred KiB).
    static let maximumCertificateFileBytes = 8 << 20

    /// The PEM bytes of `source`. A private key's file (`isPrivate`) is read as `SecretFile`
    /// reads a secret (others may not read it, at most 1 MiB); a certificate's file is only
    /// bounded in size. Neither may be a FIFO or a device.
    static func pem(of source: TLSSettings.PEMSource, isPrivate: Bool = false) throws -> [UInt8] {
        let bytes: [UInt8]
        switch source {
        case let .bytes(data, _):
            bytes = Array(data)
        case let .file(path):
            do {
                bytes = Array(
                    try SecretFile.read(
                        path, checksAccess: isPrivate, limit: isPrivate ? SecretFile.maximumBytes : maximumCertificateFileBytes))
            } catch {
                throw TLSSettingsError(source: path, reason: error.isMissing ? .missingFile : .unreadable(error.description))
            }
        }
        // A PEM block starts a line: `-----BEGIN CERTIFICATE-----`.
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.starts(with: marker) || bytes.firstRange(of: [UInt8(ascii: "\n")] + marker) != nil else {
            throw TLSSettingsError(source: source.name, reason: .notPEM)
        }
        return bytes
    }

    /// Every certificate in `source`, each checked to be valid now.
    static func certificates(from source: TLSSettings.PEMSource, now: Date = Date()) throws -> [NIOSSLCertificate] {
        let bytes = try pem(of: source)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw TLSSettingsError(source: source.name, reason: .noCertificate)
        }
        guard !certificates.isEmpty else { throw TLSSettingsError(source: source.name, reason: .noCertificate) }
        for certificate in certificates {
            let notAfter = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
            if notAfter < now { throw TLSSettingsError(source: source.name, reason: .expired(notAfter)) }
            let notBefore = Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore))
            if notBefore > now { throw TLSSettingsError(source: source.name, reason: .notYetValid(notBefore)) }
        }
        return certificates
    }

    /// The private key in `source`.
    static func privateKey(from source: TLSSettings.PEMSource) throws -> NIOSSLPrivateKey {
        let bytes = try pem(of: source, isPrivate: true)
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw TLSSettingsError(source: source.name, reason: .unusableKey)
        }
    }

    /// Makes a TLS context of `configuration`, as an engine will: BoringSSL refuses a private key
    /// that does not belong to the chain's first certificate.
    static func checkKey(_ key: TLSSettings.PEMSource, matches certificate: TLSSettings.PEMSource, in configuration: TLSConfiguration) throws {
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
