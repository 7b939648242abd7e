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
    /// `http://127.0.0.1:<port>/`.
    let baseURL: URL
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
    init(files: [String: Int64] = [:], documents: [String: Data] = [:]) throws {
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
        let configuration = """
            worker_processes 2;
            daemon off;
            master_process on;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                keepalive_requests 10000000;
                keepalive_timeout 300s;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(www.path);
                    location = /json { default_type application/json; }
                    location = /cacheable/fresh { default_type application/json; add_header Cache-Control "max-age=600"; }
                    location = /cacheable/revalidated { default_type application/json; add_header Cache-Control "max-age=0"; }
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
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
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
