import Foundation

/// Why a TLS fixture (``TestCertificates`` or ``TLSNginx``) could not be made or started.
public struct TLSFixtureError: Error, CustomStringConvertible {
    /// What went wrong, with the tool's own words when it had any.
    public let description: String

    /// An error with `description`.
    public init(_ description: String) {
        self.description = description
    }

    /// The error for a tool that is not installed, with the command that installs it.
    static func missing(_ server: RealServer, at path: String) -> TLSFixtureError {
        TLSFixtureError("\(path) is missing: \(server.missingDescription)")
    }
}

/// A private certificate authority and the certificates the TLS tests need, made by the real
/// `openssl` command as PEM files in one folder (EC P-256 keys, PKCS#8 `PRIVATE KEY` files with
/// mode 0600; certificates 0644).
public struct TestCertificates: Sendable {
    /// The root CA's certificate (`CA:TRUE`, 10 years): what a client trusts.
    public let caCertificate: URL
    /// The root CA's private key.
    public let caKey: URL
    /// A server certificate for `localhost` and `127.0.0.1` (serverAuth, 1 year), signed by the CA.
    public let serverCertificate: URL
    /// The private key of ``serverCertificate``.
    public let serverKey: URL
    /// A server certificate signed by the CA for `wrong.example` only.
    public let wrongNameCertificate: URL
    /// The private key of ``wrongNameCertificate``.
    public let wrongNameKey: URL
    /// A server certificate for `localhost` and `127.0.0.1`, signed by the CA, valid only from 2020-01-01 to 2021-01-01.
    public let expiredCertificate: URL
    /// The private key of ``expiredCertificate``.
    public let expiredKey: URL
    /// A client certificate (clientAuth, CN `apilayer-test-client`, 1 year), signed by the CA.
    public let clientCertificate: URL
    /// The private key of ``clientCertificate``.
    public let clientKey: URL
    /// A second client certificate (clientAuth, CN `apilayer-test-client-b`, 1 year), signed by
    /// the CA: another identity on the same servers (two tenants of one mutual-TLS API).
    public let otherClientCertificate: URL
    /// The private key of ``otherClientCertificate``.
    public let otherClientKey: URL
    /// A client certificate like ``clientCertificate`` but valid only from 2020-01-01 to 2021-01-01.
    public let expiredClientCertificate: URL
    /// The private key of ``expiredClientCertificate``.
    public let expiredClientKey: URL
    /// An EC private key that matches none of the certificates.
    public let otherKey: URL
    /// A `.pem` file whose text is not PEM.
    public let notPEM: URL

    /// Where the fixtures look for `openssl`.
    public static let opensslPath = "/usr/bin/openssl"

    /// Makes the CA and every certificate and key in `folder` (created when missing), running
    /// `openssl` one step after another; throws ``TLSFixtureError`` with openssl's standard error
    /// when a step fails.
    public static func make(in folder: URL) async throws -> TestCertificates {
        guard RealServer.isExecutableRegularFile(atPath: opensslPath) else {
            throw TLSFixtureError.missing(.openssl, at: opensslPath)
        }
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        // The CSRs, `openssl ca`'s database and serial, and the configuration live here only
        // while the certificates are made.
        let work = folder.appendingPathComponent("openssl-work")
        try? files.removeItem(at: work)
        try files.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? files.removeItem(at: work) }
        try Data(configuration.utf8).write(to: work.appendingPathComponent("openssl.cnf"))
        try Data().write(to: work.appendingPathComponent("index.txt"))
        try Data("1000\n".utf8).write(to: work.appendingPathComponent("serial"))

        let config = ["-config", "openssl-work/openssl.cnf"]
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-noenc"]
        let signedByCA = ["-CA", "ca.pem", "-CAkey", "ca-key.pem", "-days", "365"]
        let expiredDates = ["-startdate", "20200101000000Z", "-enddate", "20210101000000Z", "-batch", "-notext"]
        let steps: [[String]] = [
            ["req"] + config + ["-x509"] + newKey
                + ["-keyout", "ca-key.pem", "-out", "ca.pem", "-subj", "/CN=APILayer Test CA", "-days", "3650", "-extensions", "ca_ext"],
            ["req"] + config + newKey + signedByCA
                + ["-keyout", "server-key.pem", "-out", "server.pem", "-subj", "/CN=localhost", "-extensions", "server_ext"],
            ["req"] + config + newKey + signedByCA
                + ["-keyout", "wrong-name-key.pem", "-out", "wrong-name.pem", "-subj", "/CN=wrong.example", "-extensions", "wrong_name_ext"],
            ["req"] + config + newKey + signedByCA
                + ["-keyout", "client-key.pem", "-out", "client.pem", "-subj", "/CN=apilayer-test-client", "-extensions", "client_ext"],
            ["req"] + config + newKey + signedByCA
                + ["-keyout", "client-b-key.pem", "-out", "client-b.pem", "-subj", "/CN=apilayer-test-client-b", "-extensions", "client_ext"],
            // `x509 -req` and `req -x509` have no start date in OpenSSL 3.0: `openssl ca` does.
            ["req"] + config + ["-new"] + newKey + ["-keyout", "expired-key.pem", "-out", "openssl-work/expired.csr", "-subj", "/CN=localhost"],
            ["ca"] + config + expiredDates + ["-in", "openssl-work/expired.csr", "-out", "expired.pem", "-extensions", "server_ext"],
            ["req"] + config + ["-new"] + newKey
                + ["-keyout", "expired-client-key.pem", "-out", "openssl-work/expired-client.csr", "-subj", "/CN=apilayer-test-client"],
            ["ca"] + config + expiredDates + ["-in", "openssl-work/expired-client.csr", "-out", "expired-client.pem", "-extensions", "client_ext"],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "other-key.pem"],
        ]
        for arguments in steps {
            let result = try await runChildProcess(URL(fileURLWithPath: opensslPath), arguments, in: folder)
            guard result.status == 0 else {
                throw TLSFixtureError(
                    "openssl \(arguments.joined(separator: " ")) failed with status \(result.status): \(result.error)"
                )
            }
        }
        try Data("This is not a PEM file: no -----BEGIN line, just text.\n".utf8).write(to: folder.appendingPathComponent("not-pem.pem"))

        let file = { (name: String) in folder.appendingPathComponent(name) }
        let certificates = TestCertificates(
            caCertificate: file("ca.pem"), caKey: file("ca-key.pem"),
            serverCertificate: file("server.pem"), serverKey: file("server-key.pem"),
            wrongNameCertificate: file("wrong-name.pem"), wrongNameKey: file("wrong-name-key.pem"),
            expiredCertificate: file("expired.pem"), expiredKey: file("expired-key.pem"),
            clientCertificate: file("client.pem"), clientKey: file("client-key.pem"),
            otherClientCertificate: file("client-b.pem"), otherClientKey: file("client-b-key.pem"),
            expiredClientCertificate: file("expired-client.pem"), expiredClientKey: file("expired-client-key.pem"),
            otherKey: file("other-key.pem"), notPEM: file("not-pem.pem")
        )
        let keys = [
            certificates.caKey, certificates.serverKey, certificates.wrongNameKey, certificates.expiredKey,
            certificates.clientKey, certificates.otherClientKey, certificates.expiredClientKey, certificates.otherKey,
        ]
        for key in keys {
            let text = try String(contentsOf: key, encoding: .utf8)
            guard text.hasPrefix("-----BEGIN PRIVATE KEY-----") else {
                throw TLSFixtureError("openssl did not write \(key.path) as a PKCS#8 PEM key: \(text.prefix(40))")
            }
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        }
        let others = [
            certificates.caCertificate, certificates.serverCertificate, certificates.wrongNameCertificate,
            certificates.expiredCertificate, certificates.clientCertificate, certificates.otherClientCertificate,
            certificates.expiredClientCertificate, certificates.notPEM,
        ]
        for other in others {
            try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: other.path)
        }
        return certificates
    }

    /// openssl's configuration: the certificates' extensions, and a minimal `openssl ca` whose
    /// paths are relative to the certificates' folder (openssl runs there).
    private static let configuration = """
        [ req ]
        distinguished_name = request_name
        prompt = no

        [ request_name ]
        CN = unused

        [ ca_ext ]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash

        [ server_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ wrong_name_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:wrong.example
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ client_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ ca ]
        default_ca = test_ca

        [ test_ca ]
        database = openssl-work/index.txt
        serial = openssl-work/serial
        new_certs_dir = openssl-work
        certificate = ca.pem
        private_key = ca-key.pem
        default_md = sha256
        policy = any_name
        unique_subject = no
        copy_extensions = none

        [ any_name ]
        commonName = supplied

        """
}
