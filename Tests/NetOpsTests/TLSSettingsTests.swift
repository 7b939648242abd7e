import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing

/// `TLSSettings` read and check their files once, when they are made: every file that cannot be
/// used is named in a clear error, and no error or description quotes a file's content.
@Suite(.serialized, .timeLimit(.minutes(2)), .requires(.openssl))
struct TLSSettingsTests {
    /// Certificates made by openssl in a folder of the test's own.
    private func withCertificates(_ body: (TestCertificates) throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(try await TestCertificates.make(in: folder))
    }

    /// The error `make` throws, with its description checked for the file's content.
    private func failure(_ make: () throws -> TLSSettings) -> TLSSettingsError? {
        do {
            _ = try make()
            return nil
        } catch let error as TLSSettingsError {
            #expect(!error.description.contains("BEGIN CERTIFICATE") && !error.description.contains("BEGIN PRIVATE"), "quotes a file: \(error)")
            return error
        } catch {
            Issue.record("not a TLSSettingsError: \(error)")
            return nil
        }
    }

    @Test func goodFilesMakeSettingsThatNameThem() async throws {
        try await withCertificates { files in
            let settings = try TLSSettings(
                trustRoots: .only(.file(files.caCertificate.path)), clientCertificate: .file(files.clientCertificate.path),
                clientKey: .file(files.clientKey.path), minimumVersion: .tls13)
            #expect(settings.verifiesCertificates)
            #expect(!settings.isStandard)
            #expect(settings.minimumVersion == .tls13)
            #expect(settings.description.contains(files.caCertificate.path))
            #expect(settings.description.contains(files.clientCertificate.path))
            #expect(!settings.description.contains("BEGIN"))
            let inMemory = try TLSSettings(trustRoots: .systemAnd(.bytes(try Data(contentsOf: files.caCertificate), name: "vault:ca")))
            #expect(inMemory.description.contains("vault:ca"))
            #expect(TLSSettings.standard.isStandard)
            #expect(try TLSSettings().isStandard)
            #expect(!TLSSettings.insecureWithoutVerification().verifiesCertificates)
        }
    }

    @Test func aMissingFileIsNamed() async throws {
        let error = failure { try TLSSettings(trustRoots: .only(.file("/nonexistent/ca.pem"))) }
        #expect(error == TLSSettingsError(source: "/nonexistent/ca.pem", reason: .missingFile))
        #expect(error?.description.contains("/nonexistent/ca.pem: no such file") == true)
    }

    @Test func aFolderIsUnreadable() async throws {
        let folder = FileManager.default.temporaryDirectory.path
        let error = failure { try TLSSettings(trustRoots: .only(.file(folder))) }
        #expect(error?.source == folder)
        guard case .unreadable? = error?.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func aFileThatIsNotPEMIsRefused() async throws {
        try await withCertificates { files in
            let error = failure { try TLSSettings(trustRoots: .only(.file(files.notPEM.path))) }
            #expect(error == TLSSettingsError(source: files.notPEM.path, reason: .notPEM))
            // A key where a certificate belongs: PEM, but no certificate.
            let key = failure { try TLSSettings(trustRoots: .only(.file(files.clientKey.path))) }
            #expect(key == TLSSettingsError(source: files.clientKey.path, reason: .noCertificate))
            // A certificate where a key belongs (private to its owner, as a key's file must be).
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: files.caCertificate.path)
            let notKey = failure {
                try TLSSettings(clientCertificate: .file(files.clientCertificate.path), clientKey: .file(files.caCertificate.path))
            }
            #expect(notKey == TLSSettingsError(source: files.caCertificate.path, reason: .unusableKey))
        }
    }

    /// The core links no TLS library: whether a key belongs to its certificate is checked by the
    /// NIO engine, the first time it uses the settings, and the request fails naming the key.
    @Test func aKeyOfAnotherCertificateIsRefusedByTheEngineThatUsesIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try await TestCertificates.make(in: folder)
        let settings = try TLSSettings(clientCertificate: .file(files.clientCertificate.path), clientKey: .file(files.otherKey.path))
        let expected = TLSSettingsError(
            source: files.otherKey.path, reason: .keyDoesNotMatchCertificate(certificate: files.clientCertificate.path))
        #expect(throws: expected) { try settings.nioBuild.configuration.get() }
        let operation = DTO.get(try await TestServer.url("json")).on(TestEngine.nio)
        operation.tlsSettings = settings
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.description.contains(files.otherKey.path) == true, "\(String(describing: operation.error))")
        guard case let .tls(reason)? = operation.error?.kind else {
            Issue.record("not a TLS error: \(String(describing: operation.error))")
            return
        }
        #expect(reason.contains("does not belong to the certificate"))
    }

    @Test func anExpiredCertificateIsRefused() async throws {
        try await withCertificates { files in
            let error = failure {
                try TLSSettings(clientCertificate: .file(files.expiredClientCertificate.path), clientKey: .file(files.expiredClientKey.path))
            }
            #expect(error?.source == files.expiredClientCertificate.path)
            guard case let .expired(date)? = error?.reason else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(date < Date())
            #expect(error?.description.contains("expired on 2021-01-01") == true, "\(String(describing: error))")
        }
    }

    @Test func aCertificateWithoutItsKeyIsRefused() async throws {
        try await withCertificates { files in
            let error = failure { try TLSSettings(clientCertificate: .file(files.clientCertificate.path)) }
            #expect(error?.source == files.clientCertificate.path)
            let keyOnly = failure { try TLSSettings(clientKey: .file(files.clientKey.path)) }
            #expect(keyOnly?.source == files.clientKey.path)
        }
    }
}
