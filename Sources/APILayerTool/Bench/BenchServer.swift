import ArgumentParser
import Foundation

/// The `--server` and `--url` options of the network benchmarks, and the server they choose.
struct BenchServer: ParsableArguments {
    /// The servers a benchmark can start for itself.
    enum Kind: String, ExpressibleByArgument, CaseIterable {
        /// DemoServer (Hummingbird) in a child process.
        case demo
        /// A private nginx with two workers (installed as Debian's `nginx-light`).
        case nginx
        /// The same nginx over TLS with HTTP/2, its certificate from a private CA `openssl` makes.
        case nginxTLS = "nginx-tls"
    }

    @Option(
        help:
            "The server to start and measure against: demo (DemoServer in a child process), nginx (a private nginx, 2 workers) or nginx-tls (the same over TLS with HTTP/2: bench engines measures HTTP/2 and TLS connection reuse)."
    )
    var server: Kind = .demo

    @Option(help: "A server already running to measure against instead (it must serve /json).")
    var url: String?

    /// What the report's notes call the server.
    var label: String {
        if let url { return url }
        switch server {
        case .demo: return "DemoServer in a child process"
        case .nginx: return "a private nginx (2 workers) on loopback"
        case .nginxTLS: return "a private nginx (2 workers) on loopback over TLS, HTTP/2 offered"
        }
    }

    /// Whether the server serves DemoServer's routes beyond `/json` (payloads, uploads).
    var servesDemoRoutes: Bool { url == nil && server == .demo }

    /// The base URL to measure against, and what stops the server started for it (nil with
    /// `--url`); call `stop` when done. A private nginx also serves `files` (path → size),
    /// `documents` (path → contents) and `locations` (blocks of its configuration).
    func start(
        files: [String: Int64] = [:], documents: [String: Data] = [:], locations: [String] = []
    ) throws -> (base: URL, stop: (() -> Void)?) {
        if let url {
            guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
            return (base, nil)
        }
        switch server {
        case .demo:
            let child = try ServerProcess()
            return (child.baseURL, child.stop)
        case .nginx:
            let nginx = try NginxServer(files: files, documents: documents, locations: locations)
            return (nginx.baseURL, nginx.stop)
        case .nginxTLS:
            throw ValidationError("--server nginx-tls is measured by `apilayer bench engines` only")
        }
    }
}
