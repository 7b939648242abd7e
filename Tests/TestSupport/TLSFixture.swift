import Foundation

/// Runs `body` with certificates made by openssl in a folder of the test's own and a private
/// nginx serving them over TLS; stops nginx and removes the folder afterwards, whatever `body`
/// does.
public func withTLSNginx(_ body: (TestCertificates, TLSNginx) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let certificates = try await TestCertificates.make(in: folder)
    let nginx = try await TLSNginx.start(certificates: certificates)
    defer { nginx.stop() }
    try await body(certificates, nginx)
}
