import Foundation
import TestSupport
import Testing

/// A service whose operations all run on the NIO engine makes no URLSession: checked in a
/// process of its own (`apilayer engine-check`), where nothing else could have made one.
@Suite(.timeLimit(.minutes(2)))
struct NIOOnlyServiceTests {
    struct Report: Decodable {
        let succeeded: Int
        let urlSessionsMade: Int
    }

    @Test func aNIOOnlyServiceMakesNoURLSession() async throws {
        let server = try await TestServer.get()
        let run = try await APILayerExecutable.run(["engine-check", "--url", server.baseURL.absoluteString])
        #expect(run.status == 0, "\(run.error)")
        let line = try #require(run.output.split(separator: "\n").last, "no output: \(run.error)")
        let report = try JSONDecoder().decode(Report.self, from: Data(line.utf8))
        #expect(report.succeeded == 3, "\(run.output)")
        #expect(report.urlSessionsMade == 0)
    }
}
