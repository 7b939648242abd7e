import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// `ConnectivityMonitor` and how an operation tells "this host refused" from "the network is
/// down". The machine's own network is not touched: the probes are loopback servers and names
/// that cannot resolve; the offline machine itself is a network namespace
/// (`ConnectivityCommandTests` in APILayerTests). The probes time out after seconds, so the suite
/// holds the process gate shared: never beside a storm on URLSession's one work queue (the time
/// limit counts from the entry into the gate).
@Suite(
    .processGate(.shared, minutes: 5),
    .enabled(if: !NetworkInterfaces.usable().isEmpty, "this machine has no interface up but loopback"))
struct ConnectivityTests {
    @Test func aMachineWithAnInterfaceUpAndAnAnsweringProbeIsOnline() async throws {
        // A probe timeout well above the 3 s the test server took to answer in a loaded run
        // (its handlers wait behind the jobs of the tests starting at once).
        let monitor = ConnectivityMonitor(
            configuration: .init(resolverProbeHosts: ["localhost"], probeURL: try await TestServer.url("missing"), probeTimeout: 15))
        #expect(monitor.status == nil)
        #expect(await monitor.check() == .online)
        #expect(monitor.status == .online)
    }

    @Test func aResolverThatResolvesNoProbeHostMeansOffline() async {
        let monitor = ConnectivityMonitor(
            configuration: .init(
                resolverProbeHosts: ["no-such-host.invalid", "nor-this.invalid"], probeTimeout: 2))
        let verdict = await monitor.check()
        guard case let .offline(reason) = verdict else {
            Issue.record("expected offline, got \(verdict)")
            return
        }
        #expect(reason.contains("DNS failed for every probe host (no-such-host.invalid, nor-this.invalid)"))
        // One name that resolves is enough.
        let partly = ConnectivityMonitor(configuration: .init(resolverProbeHosts: ["no-such-host.invalid", "localhost"]))
        #expect(await partly.check() == .online)
    }

    /// After a failure the monitor keeps checking while offline, and says when it is back.
    @Test func theMonitorTellsWhenTheProbeAnswersAgain() async throws {
        let port = try unusedPort()
        let monitor = ConnectivityMonitor(
            configuration: .init(
                probeURL: URL(string: "http://127.0.0.1:\(port)/"), probeTimeout: 2, recheckInterval: 0.1))
        var updates = monitor.updates().makeAsyncIterator()
        monitor.reportFailure()
        let down = await updates.next()
        guard case let .offline(reason) = down else {
            Issue.record("expected offline first, got \(String(describing: down))")
            return
        }
        #expect(reason.contains("the probe URL did not answer"))
        let again = try await DemoServer.start(port: port)
        defer { Task { await again.stop() } }
        // Rechecks made before the server is back may publish another offline verdict first (its
        // reason changes when a loaded machine makes the probe time out instead of being
        // refused): what matters is that online comes, and comes next after them.
        var next = await updates.next()
        while case .offline? = next { next = await updates.next() }
        #expect(next == .online)
        await monitor.waitUntilOnline()
        #expect(monitor.status == .online)
    }

    /// A refusal on loopback is that host's, whatever the monitor last said.
    @Test(arguments: TestEngine.allCases)
    func aRefusedLoopbackConnectionIsCannotConnect(engine: TestEngine) async throws {
        let monitor = ConnectivityMonitor(configuration: .init(resolverProbeHosts: ["no-such-host.invalid"], probeTimeout: 1))
        await monitor.check()
        #expect(monitor.status?.isOnline == false)
        let operation = DataTaskOperation.get("http://127.0.0.1:\(try unusedPort())/").on(engine)
        operation.connectivityMonitor = monitor
        await #expect {
            try await operation.run()
        } throws: { error in
            guard let error = error as? NetOpsError, case .cannotConnect = error.kind else { return false }
            return true
        }
    }

    /// Another host's refusal becomes `.offline` once the monitor has found the network down,
    /// and only then; it is retried like a refusal.
    @Test func aFailureToConnectElsewhereIsOfflineWhileTheMonitorSaysSo() async {
        let url = URL(string: "http://192.0.2.1/")
        let refused = NetOpsError(.cannotConnect(reason: "Connection refused"), url: url)
        let monitor = ConnectivityMonitor(configuration: .init(resolverProbeHosts: ["no-such-host.invalid"], probeTimeout: 1))
        #expect(BaseOperation.connectivityVerdict(on: refused, monitor: nil) == refused)
        #expect(BaseOperation.connectivityVerdict(on: refused, monitor: monitor) == refused)
        await monitor.check()
        let verdict = BaseOperation.connectivityVerdict(on: refused, monitor: monitor)
        guard case let .offline(reason) = verdict.kind else {
            Issue.record("expected offline, got \(verdict)")
            return
        }
        #expect(reason.contains("DNS failed") && reason.contains("Connection refused"))
        #expect(verdict.url == url)
        #expect(RetryPolicy.standard.isTransient(verdict))
        // The network's own verdict, whatever the monitor says.
        let unreachable = NetOpsError(.cannotConnect(reason: "connect: Network is unreachable (errno: 101)"), url: url)
        if case .offline = BaseOperation.connectivityVerdict(on: unreachable, monitor: nil).kind {
        } else {
            Issue.record("ENETUNREACH is offline")
        }
        // Other failures are left as they are.
        let lost = NetOpsError(.connectionLost(reason: "reset"), url: url)
        #expect(BaseOperation.connectivityVerdict(on: lost, monitor: monitor) == lost)
    }

    @Test func loopbackHosts() {
        for text in ["http://127.0.0.1:8080/", "http://127.1.2.3/", "http://localhost/", "http://api.localhost/", "http://[::1]:80/"] {
            #expect(BaseOperation.isLoopback(URL(string: text)), "\(text)")
        }
        for text in ["http://192.0.2.1/", "http://example.com/", "http://localhost.example.com/", "http://[fe80::1]/"] {
            #expect(!BaseOperation.isLoopback(URL(string: text)), "\(text)")
        }
    }
}
