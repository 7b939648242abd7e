import APILayer
import ArgumentParser
import Foundation
import Logging
import NetOps

/// `apilayer bench auth`: a storm of concurrent operations on an expired token against the same
/// storm on a valid one, in one run.
struct AuthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "1 000 concurrent operations on an expired token vs on a valid token: refreshes and time."
    )

    @Option(help: "Operations per storm.")
    var operations = 1_000

    @Option(help: "Storm pairs (valid, expired), interleaved; medians are reported.")
    var rounds = 3

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let realm = server.baseURL.appendingPathComponent("realm/bench-\(UUID().uuidString.prefix(8))")
        let configuration = NetworkSession.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 64
        let session = NetworkSession(configuration: configuration)
        let authenticator = OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token"))
        var settings = AuthenticationCoordinator.Configuration()
        settings.refreshLimit = 100
        var logger = Logger(label: "bench")
        logger.logLevel = .warning
        // The storm goes the way an API's operations go: through the API's scope, which places
        // the token on the API's origin only.
        let scope = APIScope(name: "bench", configuration: .init(baseURL: server.baseURL, session: session, logger: logger))
        let coordinator = scope.configureAuthentication(
            authenticator: authenticator,
            store: InMemoryTokenStore(Token(accessToken: "never-issued", refreshToken: "seed-bench")),
            configuration: settings)
        let target = realm.appendingPathComponent("protected")

        // The token endpoint's own latency, to subtract from the expired storm.
        var latencies: [Double] = []
        for _ in 0..<5 {
            let started = DispatchTime.now()
            _ = try await authenticator.refresh(current: Token(accessToken: "", refreshToken: "seed-latency"))
            latencies.append(Self.seconds(since: started))
        }
        try await coordinator.authenticationProcess()
        let endpointLatency = latencies.sorted()[latencies.count / 2]

        var valid: [Double] = []
        var expired: [Double] = []
        var refreshes: [Int] = []
        for _ in 0..<rounds {
            valid.append(try await storm(target, scope: scope))
            try await control(realm, ["expireAll": true])
            let before = try await tokenRequests(realm)
            expired.append(try await storm(target, scope: scope))
            refreshes.append(try await tokenRequests(realm) - before)
        }
        let validTime = valid.sorted()[valid.count / 2]
        let expiredTime = expired.sorted()[expired.count / 2]
        let adjusted = max(0, expiredTime - endpointLatency)
        let report = BenchReport(
            suite: "auth",
            figures: [
                BenchFigure(name: "auth-storm-refreshes", value: Double(refreshes.max() ?? 0), unit: "calls", target: "= 1"),
                BenchFigure(name: "auth-storm-time", value: adjusted, baseline: validTime, unit: "s", target: "<= 1.5"),
            ],
            notes: [
                "\(operations) concurrent GETs per storm, \(rounds) interleaved pairs, medians; refreshes = most token-endpoint calls in one expired storm",
                String(
                    format: "token endpoint latency %.4f s subtracted from the expired storm (%.4f s before subtraction)", endpointLatency,
                    expiredTime),
            ])
        report.print(json: json)
    }

    /// Starts `operations` GETs carrying `scope`'s token at once and returns the seconds until all ended.
    private func storm(_ url: URL, scope: APIScope) async throws -> Double {
        let started = DispatchTime.now()
        let batch = (0..<operations).map { _ in
            let operation = DTO.get(url)
            operation.privateSession = scope.configuration.session
            scope.authorize(operation)
            return operation
        }
        for operation in batch { operation.start() }
        for operation in batch { await operation.finished() }
        let failed = batch.filter { $0.state != .successFinished }.count
        guard failed == 0 else {
            throw ValidationError(
                "\(failed) operations of the storm failed: \(batch.first { $0.error != nil }?.error.map(String.init(describing:)) ?? "")")
        }
        return Self.seconds(since: started)
    }

    private func control(_ realm: URL, _ settings: [String: any Sendable]) async throws {
        try await DTO.post(realm.appendingPathComponent("control"), parameters: settings).run()
    }

    private func tokenRequests(_ realm: URL) async throws -> Int {
        let operation = try await DTO.get(realm.appendingPathComponent("control")).run()
        return ((operation.json as? [String: Any])?["tokenRequests"] as? Int) ?? -1
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
