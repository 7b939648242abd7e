import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

/// `StreamingOperation` against DemoServer, on both engines (the transfer's cases over HTTP/2
/// too): the body arrives whole and in
/// order, the server is held back while the reader is behind, and every way a stream can stop
/// (the reader leaves, its task is cancelled, an unaccepted status, a server that restarts the
/// body) ends the operation with a clear outcome.
@Suite(.processGate(.shared, minutes: 3))
struct StreamingTests {
    /// Reads every chunk of `operation`'s body.
    static func collect(_ operation: StreamingOperation) async throws -> Data {
        var body = Data()
        for try await chunk in operation.body { body.append(chunk) }
        return body
    }

    /// The bytes DemoServer's writer accepted for `key`, on `target`'s server.
    static func written(_ key: String, on target: ConformanceTarget = .urlSessionHTTP1) async throws -> Int {
        let stats = try await DTO.get(try await target.url("streamed-stats/\(key)")).on(target).run()
        let object = try #require(stats.json as? [String: Any])
        return (object["written"] as? Int) ?? -1
    }

    @Test(arguments: ConformanceTarget.runnable)
    func bodyArrivesWholeAndInOrder(_ engine: ConformanceTarget) async throws {
        let size = 3 << 20
        let operation = SO.get(try await engine.url("bytes/\(size)")).on(engine)
        let response = try await operation.response()
        #expect(response.statusCode == 200)
        #expect(operation.responseHead?.httpVersion == engine.expectedHTTPVersion)
        let body = try await Self.collect(operation)
        #expect(body.count == size)
        #expect(sha256(body) == payloadSHA256(size: size))
        try await operation.run()
        #expect(operation.state == .successFinished)
        #expect(operation.receivedData.isEmpty, "a streamed body is not kept")
    }

    @Test(arguments: ConformanceTarget.runnable)
    func aReaderThatIsBehindHoldsTheServerBack(_ engine: ConformanceTarget) async throws {
        let key = "held-\(engine)-\(UUID().uuidString)"
        let size = 1 << 30
        let operation = SO.get(try await engine.url("streamed/\(key)/\(size)"), bufferedBytes: 256 << 10).on(engine)
        try await operation.response()
        var iterator = operation.body.makeAsyncIterator()
        _ = try await iterator.next()
        // Without backpressure the whole GiB would cross loopback within a second or two. With
        // it, the server writes what the reader's buffer, the sockets' buffers (the kernel grows
        // a loopback receive buffer up to tcp_rmem's maximum) and, on the URLSession engine, two
        // 2 MiB segments hold (over HTTP/2, AsyncHTTPClient's stream window of up to 8 MiB),
        // and then stops.
        try await Task.sleep(for: .seconds(1))
        let ahead = try await Self.written(key, on: engine)
        try await Task.sleep(for: .seconds(1))
        let later = try await Self.written(key, on: engine)
        #expect(ahead > 0)
        // What the server's writer got rid of includes what the in-process server buffers
        // itself before its channel reports it unwritable: tens of MiB on a quiet machine, a few
        // hundred under load. What proves the backpressure is that it stops.
        #expect(later < size / 2, "the server wrote \(later) bytes for a reader that took one chunk")
        #expect(later - ahead < 1 << 20, "the server went on writing (\(ahead) then \(later) bytes) while the reader took nothing")
        #expect(operation.progress.bytesReceived < 12 << 20)
        #expect(operation.state == .working)
        _ = iterator
        // Not left holding a stream (over HTTP/2, on the connection the other cases share) and
        // the server's writer for the rest of the run.
        operation.cancel()
        await operation.finished()
    }

    @Test(arguments: TestEngine.allCases)
    func aReaderThatStopsCancelsTheOperation(_ engine: TestEngine) async throws {
        let operation = SO.get(try await TestServer.url("bytes/\(64 << 20)"), bufferedBytes: 64 << 10).on(engine)
        try await operation.response()
        var taken = 0
        for try await chunk in operation.body {
            taken += chunk.count
            if taken >= 256 << 10 { break }
        }
        #expect(await eventually(within: 10) { operation.state == .cancelled })
        await operation.finished()
        #expect(operation.error?.kind == .cancelled)
    }

    @Test(arguments: TestEngine.allCases)
    func cancellingTheReadingTaskCancelsTheOperation(_ engine: TestEngine) async throws {
        let operation = SO.get(try await TestServer.url("drip?bytes=100&interval=0.2")).on(engine)
        try await operation.response()
        let reader = Task { try await Self.collect(operation) }
        try await Task.sleep(for: .milliseconds(500))
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        await operation.finished()
        #expect(operation.state == .cancelled)
    }

    /// The reading task is cancelled just after a chunk was handed to it: its cancellation
    /// finds no waiting read, so the reader leaves and the operation is cancelled, whose end
    /// reaches the buffer before the next read. That read still ends with `CancellationError`.
    @Test func aReaderCancelledBetweenReadsGetsCancellationError() async throws {
        let buffer = StreamBuffer(highWater: 1 << 20, hardLimit: 2 << 20)
        #expect(buffer.push(Data("first".utf8)) == .taken)
        #expect(try await buffer.next() == Data("first".utf8))
        buffer.readerLeft()
        buffer.end(.failed(NetOpsError(.cancelled, url: nil)))
        await #expect(throws: CancellationError.self) { try await buffer.next() }
    }

    @Test(arguments: TestEngine.allCases)
    func anUnacceptedStatusIsNotStreamed(_ engine: TestEngine) async throws {
        let operation = SO.get(try await TestServer.url("status/404")).on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.response() }
        #expect(operation.error?.httpStatus == 404, "\(String(describing: operation.error))")
        #expect(operation.response?.statusCode == 404)
        #expect(!operation.receivedData.isEmpty, "the error body is held, as a DataTaskOperation holds it")
        do {
            _ = try await Self.collect(operation)
            Issue.record("the body of a 404 was read")
        } catch let error as NetOpsError {
            #expect(error.httpStatus == 404)
        }
    }

    @Test(arguments: TestEngine.allCases)
    func theBodyCanBeReadOnce(_ engine: TestEngine) async throws {
        let operation = SO.get(try await TestServer.url("bytes/1024")).on(engine)
        try await operation.response()
        let first = try await Self.collect(operation)
        #expect(first.count == 1_024)
        do {
            _ = try await Self.collect(operation)
            Issue.record("a second read succeeded")
        } catch let error as NetOpsError {
            guard case .stream = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }

    @Test(arguments: TestEngine.allCases)
    func linesStraddlingChunksComeWhole(_ engine: TestEngine) async throws {
        let operation = SO.get(try await TestServer.url("lines/20000")).on(engine)
        try await operation.response()
        var index = 0
        for try await line in operation.body.lines {
            #expect(line == "{\"n\":\(index)}")
            index += 1
        }
        #expect(index == 20_000)
        #expect(operation.state == .successFinished)
    }

    @Test(arguments: ConformanceTarget.runnable, [false, true])
    func serverSentEvents(_ engine: ConformanceTarget, crlf: Bool) async throws {
        let operation = SO.get(try await engine.url("events?count=4&interval=0.05&crlf=\(crlf ? 1 : 0)")).on(engine)
        try await operation.response()
        var events: [ServerSentEvent] = []
        for try await event in operation.body.serverSentEvents { events.append(event) }
        #expect(events.count == 4)
        for (offset, event) in events.enumerated() {
            #expect(event.event == "tick")
            #expect(event.id == String(offset + 1))
            #expect(event.data == "{\"n\":\(offset + 1)}\nline two")
            #expect(event.retry == (offset == 0 ? 1_500 : nil))
        }
    }

    @Test(arguments: TestEngine.allCases)
    func lastEventIDResumesAnEventStream(_ engine: TestEngine) async throws {
        let operation = SO.request(.get, try await TestServer.url("events?count=6"), headers: ["Last-Event-ID": "4"]).on(engine)
        try await operation.response()
        var ids: [String?] = []
        for try await event in operation.body.serverSentEvents { ids.append(event.id) }
        #expect(ids == ["5", "6"])
    }

    @Test(arguments: ConformanceTarget.runnable)
    func suspendAndResumeContinueFromTheLastByteRead(_ engine: ConformanceTarget) async throws {
        let size = 3 << 20
        let operation = SO.get(try await engine.url("bytes/\(size)?rate=\(2 << 20)"), bufferedBytes: 64 << 10).on(engine)
        try await operation.response()
        var body = Data()
        var suspended = false
        for try await chunk in operation.body {
            body.append(chunk)
            if !suspended, body.count >= size / 3 {
                suspended = true
                #expect(operation.suspend())
                let task = Task {
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(operation.resume())
                }
                _ = task
            }
        }
        #expect(body.count == size)
        #expect(sha256(body) == payloadSHA256(size: size))
        await operation.finished()
        #expect(operation.state == .successFinished)
        #expect(operation.resumptionCounts.ranged >= 1)
        #expect(operation.resumptionCounts.restarted == 0)
    }

    @Test(arguments: TestEngine.allCases)
    func aServerThatRestartsTheBodyFailsTheStream(_ engine: TestEngine) async throws {
        let size = 3 << 20
        // /norange answers a resumption with the whole body again.
        let operation = SO.get(try await TestServer.url("norange/\(size)?rate=\(2 << 20)"), bufferedBytes: 64 << 10).on(engine)
        // Paused and resumed at the first bytes, where they are delivered: a reader on a busy
        // machine may otherwise find the whole body already received (URLSession does not wait
        // for the reader).
        let pressed = whenBodies(of: [operation], reach: 1) { [weak operation] in
            guard let operation else { return false }
            let suspended = operation.suspend()
            return suspended && operation.resume()
        }
        try await operation.response()
        var taken = 0
        do {
            for try await chunk in operation.body { taken += chunk.count }
            Issue.record("the stream ended without an error after \(taken) bytes")
        } catch let error as NetOpsError {
            guard case .stream = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(taken < size, "no byte is repeated: the stream stopped")
        await operation.finished()
        #expect(operation.state == .failedFinished)
        #expect(pressed.withLock { $0 } == true, "paused and resumed at the first bytes")
    }

    @Test func aSlowReaderIsNotIdle() async throws {
        let operation = SO.get(try await TestServer.url("bytes/\(1 << 20)"), bufferedBytes: 64 << 10).on(.nio)
        operation.idleTimeout = 8
        try await operation.response()
        var body = Data()
        // Four pauses of 2.5 s: the server waits on the reader for longer than the idle timeout
        // in all, and the reader's takes count as activity. (The margin of 5.5 s per pause is for
        // a loaded run, where the reader's task may wake late and the in-process server answer
        // late.)
        var pauses = 0
        for try await chunk in operation.body {
            body.append(chunk)
            if body.count >= (pauses + 1) * (256 << 10) {
                pauses += 1
                try await Task.sleep(for: .seconds(2.5))
            }
        }
        #expect(pauses == 4)
        #expect(body.count == 1 << 20)
        #expect(operation.state == .successFinished)
    }

    @Test(arguments: TestEngine.allCases)
    func aReaderThatTakesNothingMeetsTheIdleTimeout(_ engine: TestEngine) async throws {
        let operation = SO.get(try await TestServer.url("bytes/\(64 << 20)"), bufferedBytes: 64 << 10).on(engine)
        operation.idleTimeout = 1
        // In a loaded run the timeout may come before this caller saw the head.
        _ = try? await operation.response()
        await operation.finished()
        // On the NIO engine the server is held back and the transfer goes idle. The URLSession
        // engine fetches segments only for a reader that keeps up, so it goes idle too.
        #expect(operation.error?.kind == .idleTimeout(seconds: 1))
        do {
            _ = try await Self.collect(operation)
            Issue.record("the body of a timed-out stream ended cleanly")
        } catch let error as NetOpsError {
            #expect(error.isTimeout)
        }
    }

    @Test func urlSessionFailsAReaderTooFarBehindWhenItCannotSegment() async throws {
        // /norange sends the whole body in one response, which libcurl reads at full speed.
        let operation = SO.get(try await TestServer.url("norange/\(64 << 20)"), bufferedBytes: 64 << 10).on(.urlSession)
        // The head may be followed so closely by 16 MiB that the operation failed before this
        // caller saw it accepted.
        _ = try? await operation.response()
        await operation.finished()
        guard case let .stream(reason) = operation.error?.kind else {
            Issue.record("expected a stream error, got \(String(describing: operation.error))")
            return
        }
        #expect(reason.contains("NIO engine"))
    }
}
