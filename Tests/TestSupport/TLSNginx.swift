import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private nginx serving TLS with ``TestCertificates``: one process (one worker, so
/// `$connection` numbers are unique) with a server per case, each on a free loopback port, run
/// from a temporary folder of its own (`apilayer-tlsnginx-<UUID>`: configuration, logs, pid,
/// temporary paths, the files served). `stop()` ends it and removes the folder.
///
/// Every server answers `/json` (``json``), `/protocol` (`$server_protocol` as text/plain:
/// `HTTP/1.1` or `HTTP/2.0`), `/bytes/1m` (``oneMebibyte()``), `/gzip.json` (``gzipJSON``,
/// gzip-encoded when asked), `/whoami` (the client certificate's subject, `CN=…`, as
/// text/plain with `Cache-Control: max-age=60`; empty without one), `/oauth/token` (a token endpoint: ``accessToken`` to any request),
/// `/protected` (401 unless the request carries `Bearer` ``accessToken``), `/redirect?to=<url>`
/// (a 302 to that URL) and `/client-certificate` (`verify=` and nginx's `$ssl_client_verify`:
/// `NONE` when the client sent no certificate, `SUCCESS` when it sent one the CA signed). TLS sessions are neither cached nor resumed by tickets, so every
/// new connection is a full handshake; connections stay open (`keepalive_timeout 300s`).
public final class TLSNginx: Sendable {
    /// `https://127.0.0.1:<port>/`: TLS 1.2 and 1.3, the server certificate, HTTP/1.1 only.
    public let http1: URL
    /// `https://127.0.0.1:<port>/`: TLS 1.2 and 1.3, the server certificate, HTTP/2 offered by ALPN (HTTP/1.1 too).
    public let http2: URL
    /// `https://127.0.0.1:<port>/`: like ``http1`` but requires a client certificate signed by the CA.
    ///
    /// nginx completes the handshake without one and answers `400` (“No required SSL certificate
    /// was sent”, or “The SSL certificate error” for an expired one): the refusal is HTTP, not TLS.
    public let mutualTLS: URL
    /// `https://127.0.0.1:<port>/`: serves the expired certificate.
    public let expired: URL
    /// `https://127.0.0.1:<port>/`: serves the certificate for `wrong.example` only.
    public let wrongName: URL
    /// `https://127.0.0.1:<port>/`: TLS 1.0 only, `ssl_ciphers DEFAULT@SECLEVEL=0` (a client needs
    /// security level 0 too: OpenSSL 3 refuses TLS 1.0's SHA-1 signatures at its default level).
    public let tls10Only: URL
    /// `http://127.0.0.1:<port>/`: cleartext HTTP/1.1.
    public let plain: URL
    /// `https://127.0.0.1:<port>/`: like ``http1`` but asks for a client certificate without
    /// requiring one (`ssl_verify_client optional`): `/client-certificate` says whether one came.
    public let optionalClientCertificate: URL
    /// The folder nginx runs from.
    public let folder: URL

    /// The access token `/oauth/token` issues and `/protected` admits.
    public static let accessToken = "nginx-issued-token"
    /// The body of `/json`.
    public static let json = #"{"id":1,"name":"APILayer"}"#
    /// The body of `/gzip.json` before compression (about 8 KiB of JSON).
    public static let gzipJSON: String = {
        let items = (1...200).map { #"{"id":\#($0),"name":"APILayer item \#($0)"}"# }
        return #"{"items":["# + items.joined(separator: ",") + "]}\n"
    }()

    private let process: Process
    private let accessLogFile: URL
    private let errorLogFile: URL

    /// Where the fixture looks for nginx: `APILAYER_NGINX` when set, else where Debian's
    /// `nginx-light` installs it.
    public static var executable: String { ProcessInfo.processInfo.environment["APILAYER_NGINX"] ?? "/usr/sbin/nginx" }

    /// The body of `/bytes/1m`: 1 MiB whose byte `i` is `i % 251` (a corrupted or shifted range shows).
    public static func oneMebibyte() -> Data {
        Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
    }

    private init(ports: [Int], process: Process, folder: URL) {
        http1 = URL(string: "https://127.0.0.1:\(ports[0])/")!
        http2 = URL(string: "https://127.0.0.1:\(ports[1])/")!
        mutualTLS = URL(string: "https://127.0.0.1:\(ports[2])/")!
        expired = URL(string: "https://127.0.0.1:\(ports[3])/")!
        wrongName = URL(string: "https://127.0.0.1:\(ports[4])/")!
        tls10Only = URL(string: "https://127.0.0.1:\(ports[5])/")!
        plain = URL(string: "http://127.0.0.1:\(ports[6])/")!
        optionalClientCertificate = URL(string: "https://127.0.0.1:\(ports[7])/")!
        self.process = process
        self.folder = folder
        accessLogFile = folder.appendingPathComponent("access.log")
        errorLogFile = folder.appendingPathComponent("error.log")
    }

    /// Starts nginx with `certificates` and waits until every port accepts a TCP connection (at
    /// most 10 s); throws ``TLSFixtureError`` when nginx is missing or does not start (with its
    /// error log).
    public static func start(certificates: TestCertificates) async throws -> TLSNginx {
        guard RealServer.isExecutableRegularFile(atPath: executable) else {
            throw TLSFixtureError.missing(.nginx, at: executable)
        }
        let version = try await nginxVersion()
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("apilayer-tlsnginx-\(UUID().uuidString)")
        let www = folder.appendingPathComponent("www")
        let bytes = www.appendingPathComponent("bytes")
        do {
            try files.createDirectory(at: bytes, withIntermediateDirectories: true)
            // nginx's workers run as `nobody` when it is started as root: what they serve must be
            // readable by anyone. The master (root) reads the keys, which stay 0600.
            for directory in [folder, www, bytes] {
                try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            }
            let served: [(URL, Data)] = [
                (www.appendingPathComponent("json"), Data(json.utf8)),
                (www.appendingPathComponent("gzip.json"), Data(gzipJSON.utf8)),
                (bytes.appendingPathComponent("1m"), oneMebibyte()),
            ]
            for (file, contents) in served {
                try contents.write(to: file)
                try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            }
        } catch {
            try? files.removeItem(at: folder)
            throw error
        }
        let ports = try freePorts(8)
        let configuration = configuration(folder: folder, www: www, ports: ports, certificates: certificates, version: version)
        let configurationFile = folder.appendingPathComponent("nginx.conf")
        let errorLog = folder.appendingPathComponent("error.log")
        let process = Process()
        do {
            try Data(configuration.utf8).write(to: configurationFile)
            // What nginx says before its error_log is open (a bad configuration) goes to stderr.
            let standardError = folder.appendingPathComponent("stderr.log")
            _ = files.createFile(atPath: standardError.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-p", folder.path, "-c", configurationFile.path, "-e", errorLog.path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: standardError)
            try process.run()
        } catch {
            try? files.removeItem(at: folder)
            throw error
        }
        let server = TLSNginx(ports: ports, process: process, folder: folder)
        let deadline = Date(timeIntervalSinceNow: 10)
        var waiting = ports
        while true {
            waiting.removeAll { loopbackAccepts(port: $0) }
            if waiting.isEmpty { return server }
            guard process.isRunning, Date() < deadline else {
                let log = server.errorLog()
                let standardError = (try? String(contentsOf: folder.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
                server.stop()
                throw TLSFixtureError(
                    "nginx did not start (ports \(waiting.map(String.init).joined(separator: ", ")) not accepting): \(standardError)\(log)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops nginx (SIGTERM, a fast shutdown), waits for it, and removes its folder; doing so
    /// twice does nothing more.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }

    /// The access log so far, a line per request once it ends: `$connection $connection_requests
    /// $server_port $ssl_protocol $server_protocol "$request" $status $body_bytes_sent`.
    /// A connection whose handshake failed, or that sent no request, has no line.
    public func accessLog() -> String {
        (try? String(contentsOf: accessLogFile, encoding: .utf8)) ?? ""
    }

    /// How many distinct connections (so full TLS handshakes) the access log shows, only to
    /// `baseURL`'s port when given.
    public func connectionCount(to baseURL: URL? = nil) -> Int {
        var connections = Set<Substring>()
        for line in accessLog().split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            if let port = baseURL?.port, fields[2] != Substring(String(port)) { continue }
            connections.insert(fields[0])
        }
        return connections.count
    }

    /// nginx's error log so far (level `info`: failed handshakes show there).
    public func errorLog() -> String {
        (try? String(contentsOf: errorLogFile, encoding: .utf8)) ?? ""
    }

    /// nginx's version as numbers (`nginx -v` prints `nginx version: nginx/1.22.1` on stderr).
    private static func nginxVersion() async throws -> [Int] {
        let result = try await runChildProcess(URL(fileURLWithPath: executable), ["-v"])
        guard let slash = (result.error + result.output).split(separator: "\n").first?.split(separator: "/").last else { return [] }
        return slash.split(separator: ".").compactMap { Int($0.prefix { $0.isNumber }) }
    }

    /// nginx's configuration: one server block per case, all sharing the locations.
    private static func configuration(folder: URL, www: URL, ports: [Int], certificates: TestCertificates, version: [Int]) -> String {
        let path = { (url: URL) in "\"\(url.path)\"" }
        let locations = """
            root \(path(www));
                    location = /json { default_type application/json; }
                    location = /protocol { default_type text/plain; return 200 "$server_protocol"; }
                    location = /gzip.json { gzip on; gzip_types application/json; gzip_min_length 1; }
                    location = /whoami { default_type text/plain; add_header Cache-Control "max-age=60"; return 200 "$ssl_client_s_dn"; }
                    location = /oauth/token {
                        default_type application/json;
                        return 200 '{"access_token":"\(accessToken)","token_type":"Bearer","expires_in":3600}';
                    }
                    location = /protected {
                        default_type application/json;
                        if ($http_authorization != "Bearer \(accessToken)") { return 401 '{"error":"unauthorized"}'; }
                        return 200 '{"ok":true}';
                    }
                    location = /redirect { return 302 $arg_to; }
                    location = /client-certificate { default_type text/plain; return 200 "verify=$ssl_client_verify"; }
            """
        // `http2 on;` came in nginx 1.25.1; before it (Debian 12's 1.22) HTTP/2 is a listen parameter.
        let separateHTTP2 = version.lexicographicallyPrecedes([1, 25, 1]) == false
        let http2Listen = separateHTTP2 ? "listen 127.0.0.1:\(ports[1]) ssl; http2 on;" : "listen 127.0.0.1:\(ports[1]) ssl http2;"
        let folderPath = folder.path
        return """
            daemon off;
            master_process on;
            worker_processes 1;
            pid "\(folderPath)/nginx.pid";
            error_log "\(folderPath)/error.log" info;
            events { worker_connections 1024; }
            http {
                types { application/json json; }
                default_type application/octet-stream;
                log_format tls '$connection $connection_requests $server_port $ssl_protocol $server_protocol "$request" $status $body_bytes_sent';
                access_log "\(folderPath)/access.log" tls;
                keepalive_requests 100000;
                keepalive_timeout 300s;
                client_body_temp_path "\(folderPath)/body";
                proxy_temp_path "\(folderPath)/proxy";
                fastcgi_temp_path "\(folderPath)/fastcgi";
                uwsgi_temp_path "\(folderPath)/uwsgi";
                scgi_temp_path "\(folderPath)/scgi";
                ssl_protocols TLSv1.2 TLSv1.3;
                ssl_session_cache off;
                ssl_session_tickets off;
                ssl_certificate \(path(certificates.serverCertificate));
                ssl_certificate_key \(path(certificates.serverKey));
                server {
                    listen 127.0.0.1:\(ports[0]) ssl;
                    \(locations)
                }
                server {
                    \(http2Listen)
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(ports[2]) ssl;
                    ssl_verify_client on;
                    ssl_client_certificate \(path(certificates.caCertificate));
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(ports[3]) ssl;
                    ssl_certificate \(path(certificates.expiredCertificate));
                    ssl_certificate_key \(path(certificates.expiredKey));
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(ports[4]) ssl;
                    ssl_certificate \(path(certificates.wrongNameCertificate));
                    ssl_certificate_key \(path(certificates.wrongNameKey));
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(ports[5]) ssl;
                    ssl_protocols TLSv1;
                    ssl_ciphers DEFAULT@SECLEVEL=0;
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(ports[6]);
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(ports[7]) ssl;
                    ssl_verify_client optional;
                    ssl_client_certificate \(path(certificates.caCertificate));
                    \(locations)
                }
            }

            """
    }

    /// `count` distinct loopback ports nothing listens on: all bound at once (so none repeats),
    /// noted, and closed again.
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer {
            for descriptor in sockets { close(descriptor) }
        }
        var ports: [Int] = []
        for _ in 0..<count {
            let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TLSFixtureError("no socket for a free port: errno \(errno)") }
            sockets.append(descriptor)
            var address = loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw TLSFixtureError("no free loopback port: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// `127.0.0.1:port` as a socket address.
    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
