import APILayer
import DemoServer
import Foundation
import Logging
import NetOps
import NetOpsHTTP

/// Runs a chaos run: many operations of every kind against DemoServer's fault routes (plain
/// operations, and API calls through a scope with the cache, coalescing, rate limits and a
/// circuit breaker), started from queues, tasks and threads, while agitators cancel, suspend and resume them — then
/// checks that nothing hung, completed twice, leaked or left a file behind.
///
/// ```swift
/// let server = try await DemoServer.start()
/// let report = try await ChaosRunner.run(ChaosOptions(operations: 2_000, seed: 1, workDirectory: folder), against: server)
/// print(report.summary)   // report.isClean is the verdict
/// ```
public enum ChaosRunner {
    /// Runs the chaos run `options` describes against `server`.
    ///
    /// - Returns: the figures; `isClean` is false on any violation. A watchdog turns a stall
    ///   (no operation finishing for `stallLimit` seconds) into hung operations listed in `stuck`.
    /// - Throws: when the work directory cannot be made.
    public static func run(_ options: ChaosOptions, against server: DemoServer) async throws -> ChaosReport {
        let started = ContinuousClock.now
        let session = options.engine.makeSession()
        let downloads = options.workDirectory.appendingPathComponent("downloads")
        let uploads = options.workDirectory.appendingPathComponent("uploads")
        for folder in [downloads, uploads] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        let realm = "chaos-\(UUID().uuidString.prefix(8))"
        let realmBase = server.baseURL.appendingPathComponent("realm/\(realm)")
        let authority = server.tokenAuthority(realm: realm)
        authority.configure(mode: .normal, delay: nil, lifetime: nil, maxUses: .some(40), expireAll: false)
        var authentication = AuthenticationCoordinator.Configuration()
        authentication.refreshLimit = 1_000_000
        let coordinator = AuthenticationCoordinator(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: realmBase.appendingPathComponent("oauth/token"), timeout: 1),
            store: InMemoryTokenStore(Token(accessToken: "chaos-unissued-\(UUID().uuidString)", refreshToken: "seed-chaos")),
            configuration: authentication,
            logger: options.logger)

        let ledger = ChaosLedger()
        let owners = (0..<ChaosPlan.ownerCount).map { ChaosOwner(name: "owner-\($0)") }
        let opens = Locked(0)
        let breaker = CircuitBreaker(configuration: .init(failureThreshold: 3, coolDown: 0.2)) { transition in
            if case .open = transition.state { opens.withLock { $0 += 1 } }
        }
        let scope = try ChaosScope(
            base: server.baseURL, session: session, templates: options.workDirectory.appendingPathComponent("templates"),
            logger: options.logger)
        let factory = ChaosFactory(
            base: server.baseURL, realmBase: realmBase, session: session, coordinator: coordinator,
            ledger: ledger, downloads: downloads, uploads: uploads, owners: owners, logger: options.logger, breaker: breaker,
            scope: scope)
        let plan = ChaosPlan(count: options.operations, seed: options.seed)
        let agitators = (0..<2).map { index in
            ChaosAgitator(ledger: ledger, owners: owners, authority: authority, seed: options.seed &+ UInt64(index) &+ 1)
        }
        for agitator in agitators { agitator.start() }

        let lanes = ChaosLanes(plan: plan, factory: factory, ledger: ledger)
        lanes.start()
        let settled = await watch(ledger: ledger, lanes: lanes, stallLimit: options.stallLimit)
        for agitator in agitators { agitator.stop() }

        var report = ChaosReport()
        if settled {
            // Everything ended: give the queues, sessions and timers a moment to let go.
            let deadline = ContinuousClock.now + .seconds(options.releaseGrace)
            while ledger.aliveCount > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        ledger.fill(&report, leakCheck: settled)
        report.circuitOpens = opens.withLock { $0 }
        scope.fill(&report)
        let listing = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []
        let unexpected = ledger.unexpectedFiles(in: listing)
        report.tempFilesLeft = unexpected.count
        report.stuck += unexpected.prefix(20).map { "file left in the download folder: \($0)" }
        let elapsed = ContinuousClock.now - started
        report.seconds = ((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 10).rounded() / 10
        var actions: [String: Int] = [:]
        for agitator in agitators {
            actions.merge(agitator.actionCounts, uniquingKeysWith: +)
        }
        options.logger.info("chaos agitation: \(actions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        options.logger.info("chaos token refreshes: \(coordinator.refreshCount), token endpoint calls \(authority.snapshot.tokenRequests)")
        if settled { try? await session.shutdownNIOEngine() }
        return report
    }

    /// Waits until every operation completed, every waiter returned and every lane drained,
    /// or until nothing progressed for `stallLimit` seconds. Returns true when all settled.
    private static func watch(ledger: ChaosLedger, lanes: ChaosLanes, stallLimit: TimeInterval) async -> Bool {
        var lastProgress = -1
        var lastChange = ContinuousClock.now
        while true {
            if lanes.isDrained, ledger.allSettled { return true }
            let progress = ledger.progress &+ lanes.started
            if progress != lastProgress {
                lastProgress = progress
                lastChange = .now
            } else if ContinuousClock.now - lastChange > .seconds(stallLimit) {
                return false
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
