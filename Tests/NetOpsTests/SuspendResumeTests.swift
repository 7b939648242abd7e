import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// FoundationNetworking's own suspend/resume restarts the body from byte 0 and appends it; these
/// tests prove NetOps pauses for real and the result is byte-identical.
@Suite(.timeLimit(.minutes(2)))
struct SuspendResumeTests {
    static let size = 3 << 20
    /// Slow enough to pause three times mid-body (about 1.5 s for the whole payload).
    static let rate = 2 << 20

    struct Case: Sendable, CustomTestStringConvertible {
        let route: String
        let download: Bool
        let serverSupportsRange: Bool
        var testDescription: String { "\(download ? "download" : "data") via /\(route)" }
    }

    static let cases = [
        Case(route: "bytes", download: false, serverSupportsRange: true),
        Case(route: "norange", download: false, serverSupportsRange: false),
        Case(route: "bytes", download: true, serverSupportsRange: true),
        Case(route: "norange", download: true, serverSupportsRange: false),
    ]

    @Test(arguments: TestEngine.allCases, cases)
    func suspendThreeTimesMidBody(_ engine: TestEngine, _ testCase: Case) async throws {
        let url = try await TestServer.url("\(testCase.route)/\(Self.size)?rate=\(Self.rate)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let operation: BaseOperation =
            testCase.download
            ? DO.get(url, to: directory.appendingPathComponent("payload.bin")).on(engine)
            : DTO.get(url).on(engine)
        suspend(operation, atBytes: [0.2, 0.45, 0.7].map { Int64(Double(Self.size) * $0) })
        operation.start()

        for _ in 0..<3 {
            let suspended = await eventually(within: 20) { operation.state == .suspended || operation.isFinishedOrCancelled }
            #expect(suspended && operation.state == .suspended, "\(operation.state) at \(operation.progress.bytesReceived) bytes")
            guard operation.state == .suspended else { break }
            #expect(operation.isExecuting)
            let kept = operation.progress.bytesReceived
            try await Task.sleep(for: .milliseconds(150))
            #expect(operation.progress.bytesReceived == kept, "bytes arrived while suspended")
            #expect(operation.resume())
        }
        await operation.finished()

        #expect(operation.state == .successFinished, "\(operation.error.map(String.init(describing:)) ?? "")")
        let body: Data
        if let download = operation as? DownloadOperation {
            body = try Data(contentsOf: download.destination)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(leftovers == ["payload.bin"])
        } else {
            body = operation.receivedData
        }
        #expect(body.count == Self.size)
        #expect(sha256(body) == payloadSHA256(size: Self.size))
        let counts = operation.resumptionCounts
        if testCase.serverSupportsRange {
            #expect(counts.ranged >= 1)
            #expect(counts.restarted == 0)
        } else {
            #expect(counts.restarted >= 1)
        }
    }

    @Test(arguments: TestEngine.allCases) func startSuspendResumeCyclesLikeOneButton(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("bytes/\(Self.size)?rate=\(Self.rate)")).on(engine)
        // The second press comes with the first bytes, where they are delivered.
        let pressed = whenBodies(of: [operation], reach: 1) { [weak operation] in operation?.startSuspendResume() }
        #expect(operation.startSuspendResume() == .working)
        #expect(await eventually { pressed.withLock { $0 } != nil })
        #expect(pressed.withLock { $0 ?? nil } == .suspended)
        #expect(operation.startSuspendResume() == .working)
        await operation.finished()
        #expect(operation.state == .successFinished)
        #expect(sha256(operation.receivedData) == payloadSHA256(size: Self.size))
    }

    /// Suspended after the last byte of its body arrived but before its transfer ended, a call
    /// asks for no range past the end when resumed (a server answers one 416): it starts over,
    /// and ends with the whole body.
    @Test(arguments: TestEngine.allCases) func suspendedAfterTheLastByteStartsOver(_ engine: TestEngine) async throws {
        let size = 64 << 10
        let operation = DTO.get(try await TestServer.url("bytes/\(size)")).on(engine)
        let suspended = Locked(false)
        operation.onProgress { operation, progress in
            // Called where the body's bytes are delivered, before the transfer's end is.
            guard progress.bytesReceived == Int64(size), !suspended.withLock({ $0 }) else { return }
            suspended.withLock { $0 = operation.suspend() }
        }
        operation.start()
        #expect(await eventually(within: 20) { suspended.withLock { $0 } || operation.isFinishedOrCancelled })
        #expect(operation.state == .suspended)
        #expect(operation.progress.bytesReceived == Int64(size))
        #expect(operation.resume())
        await operation.finished()

        #expect(operation.state == .successFinished, "\(operation.error.map(String.init(describing:)) ?? "")")
        #expect(sha256(operation.receivedData) == payloadSHA256(size: size))
        #expect(operation.resumptionCounts.ranged == 0)
        #expect(operation.resumptionCounts.restarted == 1)
    }

    @Test(arguments: TestEngine.allCases) func suspendAndResumeDoNothingOutsideTheirStates(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        #expect(!operation.suspend())
        #expect(!operation.resume())
        try await operation.run()
        #expect(!operation.suspend())
        #expect(!operation.resume())
        #expect(operation.state == .successFinished)
    }
}
