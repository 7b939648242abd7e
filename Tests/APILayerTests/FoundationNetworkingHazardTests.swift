import Foundation
import TestSupport
import Testing

/// An answer that stops a process using FoundationNetworking (Swift 6.3): a chunked body with
/// trailer fields. It is asked for by a child `apilayer connectivity --try` on either engine: on
/// the URLSession engine the child dies in FoundationNetworking's `fatalError` ("Transfer
/// completed, but there's no response"); on the NIO engine it reads the answer. (An answer that
/// is not HTTP does the same some of the time, depending on how its bytes arrive: libcurl
/// otherwise refuses it as HTTP/0.9.) Docs/engines.md tells services that call servers they do
/// not control to use the NIO engine; when a toolchain fixes this, this test fails and the
/// advice can go.
@Suite(.timeLimit(.minutes(2)))
struct FoundationNetworkingHazardTests {
    @Test func trailersStopTheProcessOnTheURLSessionEngineNotOnTheNIOEngine() async throws {
        let url = try await RawHTTPServer.get().url(.trailers, query: "?case=\(UUID().uuidString)").absoluteString
        // No backtrace: the runtime would spend seconds writing one. A timeout of 10 s: the
        // answer comes at once, but a child started on a loaded machine may take seconds to ask
        // (with 1 s, the URLSession child timed out before the answer came, under a load of 8).
        let quiet = ["SWIFT_BACKTRACE": "enable=no"]
        let urlSession = try await APILayerExecutable.run(
            ["connectivity", "--try", url, "--engine", "urlsession", "--timeout", "10", "--json"], environment: quiet)
        #expect(urlSession.status != 0 && urlSession.status != 1, "exit \(urlSession.status): \(urlSession.output)")
        #expect(urlSession.error.contains("Transfer completed, but there's no response"), "\(urlSession.error)")

        let nio = try await APILayerExecutable.run(
            ["connectivity", "--try", url, "--engine", "nio", "--timeout", "10", "--json"], environment: quiet)
        #expect(nio.status == 0 || nio.status == 1, "exit \(nio.status): \(nio.error)")
        #expect(!nio.error.contains("Fatal error"))
        #expect(nio.output.contains(#""outcome":"ok""#), "\(nio.output)")
    }
}
