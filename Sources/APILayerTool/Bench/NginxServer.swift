import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private nginx for the benchmarks: a server that does not share the client's runtime, so a
/// figure measured against it shows what the client costs. It runs from a temporary folder of
/// its own (configuration, logs, pid, the files it serves), with two worker processes,
/// keep-alive connections that last the whole run, on a free loopback port; `stop()` ends it
/// and removes the folder.
///
/// It serves what the benchmarks ask for: `/json`, the same body as DemoServer's, and the files
/// of the sizes it is given (sparse, zero-filled: `bytes/<size>` for `bench netops`).
final class NginxServer: @unchecked Sendable {
    /// `http://127.0.0.1:<port>/`, or `https://…` over TLS.
    let baseURL: URL
    /// Over TLS: the PEM of the private CA that signed the server's certificate, for the client
    /// to trust.
    let certificateAuthority: URL?
    private let process = Process()
    private let folder: URL

    /// Where the benchmarks look for nginx: `APILAYER_NGINX` when set, else where Debian's
    /// `nginx-light` (or `nginx`) installs it.
    static var executable: String { ProcessInfo.processInfo.environment["APILAYER_NGINX"] ?? "/usr/sbin/nginx" }

    /// Why nginx could not be started.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts nginx, serving `files` (path under the root → size in bytes) besides `/json`, and
    /// `documents` (path → JSON text; `/cacheable/fresh` with `Cache-Control: max-age=600`,
    /// `/cacheable/revalidated` with `max-age=0`, both with nginx's `ETag`), and waits until it
    /// accepts connections (at most 10 s).
    ///
    /// With `tls`, it serves HTTPS (TLS 1.2 and 1.3, HTTP/2 offered by ALPN) with a certificate
    /// for 127.0.0.1 signed by a CA that `openssl` makes in its folder (`certificateAuthority`),
    /// and logs each request's connection number (`connectionsSeen()` counts the handshakes).
    ///
    /// `locations` are added to the server block as they are (`location … { … }` blocks of a
    /// benchmark's own: statuses and headers nginx answers with `return` and `add_header`).
    init(files: [String: Int64] = [:], documents: [String: Data] = [:], locations: [String] = [], tls: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw Failure(
                description:
                    "nginx is not installed (\(Self.executable) is missing): install it with `apt-get install -y nginx-light`, or measure against --url or the default DemoServer"
            )
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-nginx-\(UUID().uuidString)")
        let www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        // nginx's workers run as `nobody` when it is started as root: the files must be readable.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: www.path)
        let json = #"{"id":1,"name":"APILayer","active":true,"score":4.5,"tags":["swift","linux"],"owner":null}"#
        try Data(json.utf8).write(to: www.appendingPathComponent("json"))
        for (path, text) in documents {
            let file = www.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.deletingLastPathComponent().path)
            _ = FileManager.default.createFile(atPath: file.path, contents: text, attributes: [.posixPermissions: 0o644])
        }
        for (path, size) in files {
            let file = www.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.deletingLastPathComponent().path)
            _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o644])
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
        let port = try Self.freePort()
        var listen = "listen 127.0.0.1:\(port);"
        var accessLog = "access_log off;"
        if tls {
            let (certificate, key, authority) = try Self.makeCertificates(in: folder)
            certificateAuthority = authority
            // nginx 1.25.1 moved HTTP/2 from `listen` to a directive of its own.
            let http2 = try Self.version().lexicographicallyPrecedes([1, 25, 1]) ? "" : "http2 on;"
            listen = """
                listen 127.0.0.1:\(port) ssl\(http2.isEmpty ? " http2" : "");
                        \(http2)
                        ssl_certificate \(certificate.path);
                        ssl_certificate_key \(key.path);
                        ssl_protocols TLSv1.2 TLSv1.3;
                """
            accessLog = "log_format connections '$connection'; access_log \(folder.path)/access.log connections;"
        } else {
            certificateAuthority = nil
        }
        let configuration = """
            worker_processes 2;
            daemon off;
            master_process on;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log warn;
            events { worker_connections 4096; }
            http {
                \(accessLog)
                keepalive_requests 10000000;
                keepalive_timeout 300s;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                server {
                    \(listen)
                    root \(www.path);
                    location = /json { default_type application/json; }
                    location = /cacheable/fresh { default_type application/json; add_header Cache-Control "max-age=600"; }
                    location = /cacheable/revalidated { default_type application/json; add_header Cache-Control "max-age=0"; }
                    \(locations.joined(separator: "\n            "))
                }
            }
            """
        let file = folder.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: file)
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-p", folder.path, "-c", file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        baseURL = URL(string: "\(tls ? "https" : "http")://127.0.0.1:\(port)/")!
        let deadline = Date(timeIntervalSinceNow: 10)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw Failure(description: "nginx did not start on port \(port): \(log)")
            }
            usleep(20_000)
        }
    }

    /// How many connections (TLS handshakes, over TLS) the requests so far came on: the distinct
    /// connection numbers of the access log. 0 without TLS (no log is kept).
    func connectionsSeen() -> Int {
        guard let log = try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8) else { return 0 }
        return Set(log.split(separator: "\n")).count
    }

    /// Makes a private CA and a certificate for 127.0.0.1 signed by it, with `openssl`, in
    /// `folder`: the certificate, its key and the CA's certificate.
    private static func makeCertificates(in folder: URL) throws -> (certificate: URL, key: URL, authority: URL) {
        let authority = folder.appendingPathComponent("ca.pem")
        let authorityKey = folder.appendingPathComponent("ca-key.pem")
        let certificate = folder.appendingPathComponent("server.pem")
        let key = folder.appendingPathComponent("server-key.pem")
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(
            ["req", "-x509"] + curve + [
                "-keyout", authorityKey.path, "-out", authority.path, "-days", "2", "-subj", "/CN=APILayer bench CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try openssl(
            ["req", "-x509"] + curve + [
                "-CA", authority.path, "-CAkey", authorityKey.path, "-keyout", key.path, "-out", certificate.path, "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "extendedKeyUsage=serverAuth",
            ])
        return (certificate, key, authority)
    }

    /// Runs `openssl` with `arguments`; throws with its error output when it fails.
    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Failure(description: "openssl could not run (\(error)): install it with `apt-get install -y openssl`")
        }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(arguments[0]) failed: \(text)") }
    }

    /// nginx's version, e.g. `[1, 22, 1]`.
    private static func version() throws -> [Int] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-v"]
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let number = text.split(separator: "/").last.map { $0.prefix { $0.isNumber || $0 == "." } } ?? ""
        return number.split(separator: ".").compactMap { Int($0) }
    }

    /// Stops nginx (a fast shutdown) and removes its folder.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A loopback port nothing listens on now.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "no socket for a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts a TCP connection on loopback `port`.
    private static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
