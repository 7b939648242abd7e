import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `SegmentedDownload` against a simulated server whose requests' events interleave in every
/// order a serial callback queue can produce (the events of one request stay in order), with
/// connections that sometimes break: the caller always hears one end, the body it hears is the
/// resource byte for byte, and no more than two requests are ever open (the current one and
/// the one read ahead). The real-server tests (`SegmentedDownloadTests`) cannot choose these
/// orders; this one runs thousands of them.
struct SegmentedDownloadInterleavingTests {
    /// SplitMix64: the same seed, the same orders.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    enum Event {
        case head(HTTPURLResponse)
        case data(Data)
        case end(TransferFailure?)
    }

    /// One simulated request: the events still to deliver, and whether it was cancelled.
    final class FakeTask: TransferHandle, @unchecked Sendable {
        let events: any EngineEvents
        var pending: [Event]
        var cancelled = false

        init(events: any EngineEvents, pending: [Event]) {
            self.events = events
            self.pending = pending
        }

        func cancel() {
            guard !cancelled, !pending.isEmpty else { return }
            cancelled = true
            // A cancelled task reports nothing more but its end.
            pending = [.end(.cancelled)]
        }
    }

    /// What the caller of the download hears.
    final class Caller: EngineEvents, @unchecked Sendable {
        var head: ResponseHead?
        var body = Data()
        var ends: [TransferFailure?] = []
        func transferDidReceive(head: ResponseHead) { self.head = head }
        func transferDidReceive(data: Data) { body.append(data) }
        func transferDidSend(sent: Int64, expected: Int64?) {}
        func transferDidComplete(failure: TransferFailure?) { ends.append(failure) }
    }

    /// The events a server that honours ranges sends for `request`, chunked at random; with
    /// `breaks`, the connection drops after part of the body.
    static func answer(_ request: URLRequest, resource: [UInt8], breaks: Bool, using generator: inout Generator) -> [Event] {
        let header = request.value(forHTTPHeaderField: "Range") ?? ""
        let bounds = header.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
        let first = bounds.first ?? 0
        let last = min(bounds.count > 1 ? bounds[1] : resource.count - 1, resource.count - 1)
        let head = HTTPURLResponse(
            url: request.url!, statusCode: 206, httpVersion: "HTTP/1.1",
            headerFields: [
                "Content-Range": "bytes \(first)-\(last)/\(resource.count)", "Content-Length": String(last - first + 1),
                "ETag": #""v1""#, "Accept-Ranges": "bytes",
            ])!
        var events: [Event] = [.head(head)]
        var position = first
        let stop = breaks ? first + Int(generator.next() % UInt64(last - first + 1)) : last + 1
        while position < stop {
            let length = min(stop - position, 1 + Int(generator.next() % 7))
            events.append(.data(Data(resource[position..<(position + length)])))
            position += length
        }
        events.append(.end(breaks ? .connectionLost("reset by the simulation") : nil))
        return events
    }

    /// The simulated server and event queue of one round (used from the test's thread only).
    final class Simulation: @unchecked Sendable {
        var generator: Generator
        var tasks: [FakeTask] = []
        var broke = false
        let resource: [UInt8]
        let breakEvery: Int

        init(generator: Generator, resource: [UInt8], breakEvery: Int) {
            self.generator = generator
            self.resource = resource
            self.breakEvery = breakEvery
        }

        /// Starts a simulated request: one in about `3 × breakEvery` breaks (none when 0).
        func start(_ request: URLRequest, _ events: any EngineEvents) -> any TransferHandle {
            let breaks = breakEvery > 0 && generator.next() % UInt64(3 * breakEvery) == 0
            let answer = SegmentedDownloadInterleavingTests.answer(request, resource: resource, breaks: breaks, using: &generator)
            let task = FakeTask(events: events, pending: answer)
            tasks.append(task)
            return task
        }

        /// Delivers the next event of a request picked at random; false when none is left.
        func step() -> Bool {
            let open = tasks.filter { !$0.pending.isEmpty }
            #expect(open.count <= 2, "\(open.count) requests open at once")
            guard !open.isEmpty else { return false }
            let task = open[Int(generator.next() % UInt64(open.count))]
            switch task.pending.removeFirst() {
            case let .head(head): task.events.transferDidReceive(response: head)
            case let .data(data): task.events.transferDidReceive(data: data)
            case let .end(failure):
                if case .connectionLost = failure { broke = true }
                task.events.transferDidComplete(failure: failure)
            }
            return true
        }
    }

    @Test func everyInterleavingGivesTheWholeResourceOrOneClearFailure() throws {
        var generator = Generator(state: 20_261_123)
        for round in 0..<3_000 {
            let size = 1 + Int(generator.next() % 120)
            let resource = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            let segment = Int64(1 + generator.next() % 24)
            let simulation = Simulation(generator: generator, resource: resource, breakEvery: Int(generator.next() % 4))
            let caller = Caller()
            let download = SegmentedDownload(
                request: URLRequest(url: URL(string: "http://simulated/file")!), segmentLength: segment, events: caller,
                startTask: simulation.start)
            download.begin()
            var steps = 0
            while simulation.step() {
                steps += 1
                try #require(steps < 100_000, "round \(round) does not end")
            }
            generator = simulation.generator

            try #require(caller.ends.count == 1, "round \(round): the caller heard \(caller.ends.count) ends")
            if let failure = caller.ends[0] {
                #expect(simulation.broke, "round \(round): failed with \(failure) though no connection broke")
            } else {
                #expect(caller.body == Data(resource), "round \(round): the body differs (\(caller.body.count) of \(size) bytes)")
                #expect(caller.head?.statusCode == 200)
                #expect(caller.head?.expectedContentLength == Int64(size))
            }
        }
    }
}
