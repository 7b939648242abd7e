import APILayer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

/// An API's connectivity monitor, given once in its scope: its calls tell "the network is down"
/// from "this host refused" without each operation being given the monitor.
@Suite("API scopes: connectivity", .timeLimit(.minutes(1)))
struct ScopeConnectivityTests {
    /// A monitor whose only probe cannot resolve: after one check it finds the network down.
    static func downMonitor() async -> ConnectivityMonitor {
        let monitor = ConnectivityMonitor(configuration: .init(resolverProbeHosts: ["no-such-host.invalid"], probeTimeout: 1))
        await monitor.check()
        return monitor
    }

    /// A refused connection to a host of this machine that is not loopback (loopback refusals
    /// are always the host's own) is `offline` while the scope's monitor says the network is down.
    @Test(.enabled(if: MachineAddress.nonLoopbackIPv4() != nil), arguments: TestEngine.allCases)
    func aScopesCallsClassifyOfflineThroughItsMonitor(_ engine: TestEngine) async throws {
        let address = try #require(MachineAddress.nonLoopbackIPv4())
        let base = try #require(URL(string: "http://\(address):\(try unusedPort())/"))
        var configuration = APIScope.Configuration(baseURL: base, session: engine.makeSession())
        configuration.connectivityMonitor = await Self.downMonitor()
        let scope = APIScope(name: "offline-\(engine)", configuration: configuration)
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(PingAPI.ping, as: NoContent.self) }
        await #expect(throws: APIError.self) { try await operation.run() }
        guard case let .failure(error) = operation.result, case let .transport(cause) = error.stage, case .offline = cause.kind else {
            Issue.record("expected an offline transport error, got \(String(describing: operation.result))")
            return
        }
    }

    /// Without a monitor the same refusal stays `cannotConnect`.
    @Test(.enabled(if: MachineAddress.nonLoopbackIPv4() != nil))
    func withoutAMonitorARefusalIsTheHosts() async throws {
        let address = try #require(MachineAddress.nonLoopbackIPv4())
        let base = try #require(URL(string: "http://\(address):\(try unusedPort())/"))
        let scope = APIScope(name: "no-monitor", configuration: APIScope.Configuration(baseURL: base, session: TestEngine.nio.makeSession()))
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(PingAPI.ping, as: NoContent.self) }
        await #expect(throws: APIError.self) { try await operation.run() }
        guard case let .failure(error) = operation.result, case let .transport(cause) = error.stage, case .cannotConnect = cause.kind else {
            Issue.record("expected cannotConnect, got \(String(describing: operation.result))")
            return
        }
    }

    /// An adopted operation gets the monitor too.
    @Test func adoptGivesTheMonitor() async {
        var configuration = APIScope.Configuration(baseURL: URL(string: "http://127.0.0.1:1/"))
        let monitor = ConnectivityMonitor()
        configuration.connectivityMonitor = monitor
        let scope = APIScope(name: "adopting", configuration: configuration)
        let operation = DTO.get("http://127.0.0.1:1/")
        scope.adopt(operation)
        #expect(operation.connectivityMonitor === monitor)
    }
}

/// An IPv4 address of this machine's own interfaces that is not loopback.
enum MachineAddress {
    static func nonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                entry.pointee.ifa_flags & UInt32(IFF_UP) != 0, entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0
            else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}
