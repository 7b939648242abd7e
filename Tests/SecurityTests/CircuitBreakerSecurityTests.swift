import Foundation
import NetOps
import NetOpsHTTP
import TestSupport
import Testing

@testable import NetOpsNIO

/// What a breaker keeps per origin stays bounded, whatever hosts a service calls or a server
/// redirects it to.
@Suite("Security: circuit breaker", .timeLimit(.minutes(2)))
struct CircuitBreakerSecurityTests {
    /// Failures at 40 distinct origins (127.0.0.2 … 127.0.0.41, a port nothing listens on) leave
    /// at most `maximumOrigins` circuits; a success keeps none.
    @Test(arguments: TestEngine.allCases)
    func perOriginStateStaysBounded(_ engine: TestEngine) async throws {
        let breaker = CircuitBreaker(configuration: .init(failureThreshold: 3, maximumOrigins: 16))
        let session = engine.makeSession(options: .init(middleware: [breaker]))
        let port = try unusedPort()
        for host in 2...41 {
            let operation = DTO.get(URL(string: "http://127.0.0.\(host):\(port)/")!).on(session)
            _ = try? await operation.run()
            #expect(operation.error?.kind.name == "cannotConnect", "\(String(describing: operation.error))")
        }
        #expect(breaker.originCount <= 16)
        #expect(breaker.originCount > 0)
        let before = breaker.originCount
        try await DTO.get(try await TestServer.url("json")).on(session).run()
        #expect(breaker.originCount == before, "a success keeps no circuit")
        if engine == .nio { try await session.shutdownNIOEngine() }
    }

    /// Calls redirected to 30 other origins (each refusing the connection) count against the
    /// origin the call asked for, never against the hosts a server sends it to.
    @Test(arguments: TestEngine.allCases)
    func originsReachedThroughRedirectsAreNotKept(_ engine: TestEngine) async throws {
        let breaker = CircuitBreaker(configuration: .init(failureThreshold: 1_000))
        let session = engine.makeSession(options: .init(middleware: [breaker]))
        let port = try unusedPort()
        for host in 2...31 {
            var components = URLComponents(url: try await TestServer.url("redirect/302"), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "to", value: "http://127.0.0.\(host):\(port)/")]
            _ = try? await DTO.get(components.url!).on(session).run()
        }
        #expect(breaker.originCount <= 1)
        if engine == .nio { try await session.shutdownNIOEngine() }
    }

    /// The NIO engine's table of HTTP/2 origins keeps at most its bound: 10 000 origins (as
    /// redirects could lead a session to) leave 1 024.
    @Test func theHTTP2OriginsKnownStayBounded() {
        let pinning = HTTP2Pinning()
        for index in 0..<10_000 {
            let origin = Origin(URL(string: "https://h\(index).example:443/")!)!
            pinning.record(origin, answeredOverHTTP2: true)
        }
        #expect(pinning.count == pinning.maximumOrigins)
        #expect(pinning.maximumOrigins == 1_024)
        #expect(pinning.pins(Origin(URL(string: "https://h9999.example/")!)!))
    }
}
