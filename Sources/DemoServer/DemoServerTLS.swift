import Foundation
import NIOSSL

/// The certificate and key a DemoServer serves HTTPS with (PEM files).
public struct DemoServerTLS: Sendable {
    /// The server's certificate chain, leaf first.
    public var certificateChain: URL
    /// The leaf certificate's private key.
    public var privateKey: URL

    /// TLS with the chain and key in these PEM files.
    public init(certificateChain: URL, privateKey: URL) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// The server side's TLS configuration: the chain and key, TLS 1.2 at least.
    func configuration() throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChain.path).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: privateKey.path, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
