import Foundation
import NetOps
import NetOpsHTTP
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stages a service writes with the public API only (no `@testable`): one that answers from a
/// store of its own, one that wraps the transfer, two caches in one chain, and stages that break
/// the rules (never hand the request on, hand it on twice, throw), on both engines.
@Suite(.timeLimit(.minutes(2)))
struct TransferStageTests {
    /// Answers GETs of the URLs it holds from memory; hands everything else on.
    struct LocalStore: TransferStage {
        let answers: [URL: Data]
        let answered = Recorder<URL>()

        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            guard request.httpMethod == "GET", let url = request.url, let body = answers[url] else {
                return next(request, events: events)
            }
            answered.append(url)
            let fields = [("Content-Type", "application/json"), ("Content-Length", String(body.count))]
            events.transferDidReceive(head: ResponseHead(url: url, statusCode: 200, httpVersion: "HTTP/1.1", fields: fields))
            events.transferDidReceive(data: body)
            events.transferDidComplete(failure: nil)
            return AnsweredTransfer()
        }
    }

    /// Wraps the transfer: adds a request header on the way down, and counts the status and the
    /// body bytes on the way up before passing them on.
    struct Meter: TransferStage {
        final class Watch: TransferEvents, Sendable {
            let outer: any TransferEvents
            let statuses = Recorder<Int>()
            let bytes = Locked(0)
            let ends = Locked(0)

            init(outer: any TransferEvents) {
                self.outer = outer
            }

            func transferDidReceive(head: ResponseHead) {
                statuses.append(head.statusCode)
                outer.transferDidReceive(head: head)
            }

            func transferDidReceive(data: Data) {
                bytes.withLock { $0 += data.count }
                outer.transferDidReceive(data: data)
            }

            func transferDidSend(sent: Int64, expected: Int64?) {
                outer.transferDidSend(sent: sent, expected: expected)
            }

            func transferDidComplete(failure: TransferFailure?) {
                ends.withLock { $0 += 1 }
                outer.transferDidComplete(failure: failure)
            }
        }

        let watches = Recorder<Watch>()

        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            var tagged = request
            tagged.setValue("metered-\(context.attempt)", forHTTPHeaderField: "X-Meter")
            let watch = Watch(outer: events)
            watches.append(watch)
            return next(tagged, events: watch)
        }
    }

    /// Keeps every request: neither answers nor hands it on.
    struct Keeper: TransferStage {
        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            AnsweredTransfer()
        }
    }

    /// Hands every request on twice at once.
    struct Doubler: TransferStage {
        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            let first = next(request, events: events)
            _ = next(request, events: events)
            return first
        }
    }

    /// Hands the request on once, and again from the end of that transfer, after passing the
    /// end on (the attempt is over by then); records what the late transfer reports.
    struct LateCaller: TransferStage {
        final class Relay: TransferEvents, Sendable {
            let outer: any TransferEvents
            let request: URLRequest
            let next: TransferNext
            let late: Late

            init(outer: any TransferEvents, request: URLRequest, next: TransferNext, late: Late) {
                self.outer = outer
                self.request = request
                self.next = next
                self.late = late
            }

            func transferDidReceive(head: ResponseHead) { outer.transferDidReceive(head: head) }
            func transferDidReceive(data: Data) { outer.transferDidReceive(data: data) }
            func transferDidSend(sent: Int64, expected: Int64?) { outer.transferDidSend(sent: sent, expected: expected) }

            func transferDidComplete(failure: TransferFailure?) {
                outer.transferDidComplete(failure: failure)
                _ = next(request, events: late)
            }
        }

        /// What the transfer started after the end reports.
        final class Late: TransferEvents, Sendable {
            let statuses = Recorder<Int>()
            let ends = Recorder<TransferFailure?>()

            func transferDidReceive(head: ResponseHead) { statuses.append(head.statusCode) }
            func transferDidReceive(data: Data) {}
            func transferDidSend(sent: Int64, expected: Int64?) {}
            func transferDidComplete(failure: TransferFailure?) { ends.append(failure) }
        }

        let late = Late()

        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            next(request, events: Relay(outer: events, request: request, next: next, late: late))
        }
    }

    /// Throws, after handing the request on when `afterHandingOn`.
    struct Thrower: TransferStage {
        struct Refusal: Error, Equatable, CustomStringConvertible {
            var description: String { "the stage refuses" }
        }

        let afterHandingOn: Bool
        let started = Recorder<Int>()

        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            started.append(context.attempt)
            if afterHandingOn { _ = next(request, events: events) }
            throw Refusal()
        }
    }

    /// Counts the ends it hears.
    final class EndCounter: NetworkMiddleware, Sendable {
        let ends = Locked(0)

        func operationDidFinish(_ operation: BaseOperation) {
            ends.withLock { $0 += 1 }
        }
    }

    @Test(arguments: TestEngine.allCases) func aStageAnswersFromItsOwnStore(_ engine: TestEngine) async throws {
        let stored = try await TestServer.url("json?stored")
        let body = Data(#"{"from":"store"}"#.utf8)
        let store = LocalStore(answers: [stored: body])
        let local = DTO.get(stored).use(store).on(engine)
        try await local.run()
        #expect(local.receivedData == body)
        #expect(local.statusCode == 200)
        #expect(local.response?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(store.answered.all == [stored])
        // A request the store does not hold goes to the server.
        let remote = DTO.get(try await TestServer.url("json")).use(store).on(engine)
        try await remote.run()
        #expect(remote.statusCode == 200)
        #expect(remote.receivedData != body)
        #expect(store.answered.all == [stored])
    }

    @Test(arguments: TestEngine.allCases) func aStageWrapsTheTransfer(_ engine: TestEngine) async throws {
        let meter = Meter()
        let operation = DTO.get(try await TestServer.url("echo")).use(meter).on(engine)
        try await operation.run()
        let echoed = String(decoding: operation.receivedData, as: UTF8.self).lowercased()
        #expect(echoed.contains(#""x-meter":"metered-1""#))
        let watch = try #require(meter.watches.all.first)
        #expect(watch.statuses.all == [200])
        #expect(watch.bytes.withLock { $0 } == operation.receivedData.count)
        #expect(watch.ends.withLock { $0 } == 1)
    }

    /// Two caches in one chain are two layers: both store the answer; with the outer one
    /// emptied, the inner one answers.
    @Test(arguments: TestEngine.allCases) func twoCachesInOneChainBothTakePart(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("cacheable/\(UUID().uuidString)?maxAge=600")
        let outer = try HTTPCache()
        let inner = try HTTPCache()
        func get() async throws -> DTO {
            let operation = DTO.get(url).use(outer).use(inner).on(engine)
            try await operation.run()
            return operation
        }
        let first = try await get()
        #expect(outer.statistics.misses == 1 && outer.statistics.stores == 1)
        #expect(inner.statistics.misses == 1 && inner.statistics.stores == 1)
        let second = try await get()
        #expect(outer.statistics.hits == 1)
        #expect(inner.statistics.hits == 0, "a fresh entry of the outer cache answers before the inner one is asked")
        outer.removeAll()
        let third = try await get()
        #expect(outer.statistics.misses == 2 && outer.statistics.stores == 2)
        #expect(inner.statistics.hits == 1)
        #expect(second.receivedData == first.receivedData && third.receivedData == first.receivedData)
    }

    /// A cache and a service's stage in one chain: the store answers below the cache, and the
    /// cache keeps what it answered.
    @Test(arguments: TestEngine.allCases) func aCacheAndAStageOfOneSOwnBothTakePart(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json?layered=\(UUID().uuidString)")
        let body = Data(#"{"layer":"store"}"#.utf8)
        let store = LocalStoreWithLifetime(answers: [url: body])
        let cache = try HTTPCache()
        let first = DTO.get(url).use(cache).use(store).on(engine)
        try await first.run()
        let second = DTO.get(url).use(cache).use(store).on(engine)
        try await second.run()
        #expect(first.receivedData == body && second.receivedData == body)
        #expect(store.answered.all == [url], "the second answer came from the cache")
        #expect(cache.statistics.stores == 1 && cache.statistics.hits == 1)
        #expect(second.values[HTTPCache.OutcomeKey.self] == .hit)
    }

    /// `LocalStore` with a lifetime on its answers, so a cache above it keeps them.
    struct LocalStoreWithLifetime: TransferStage {
        let answers: [URL: Data]
        let answered = Recorder<URL>()

        func startTransfer(
            _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
        ) throws -> any TransferHandle {
            guard let url = request.url, let body = answers[url] else { return next(request, events: events) }
            answered.append(url)
            let fields = [("Cache-Control", "max-age=600"), ("Content-Length", String(body.count))]
            events.transferDidReceive(head: ResponseHead(url: url, statusCode: 200, httpVersion: "HTTP/1.1", fields: fields))
            events.transferDidReceive(data: body)
            events.transferDidComplete(failure: nil)
            return AnsweredTransfer()
        }
    }

    /// Holds an operation weakly, from any thread.
    final class WeakOperation: @unchecked Sendable {
        // @unchecked: written once before any reader runs; weak loads are atomic.
        weak var operation: BaseOperation?
    }

    /// Once its transfer ended, nothing the stages started keeps the operation: a cache over a
    /// coalescer (a miss that opens a shared transfer), then a hit.
    @Test(arguments: TestEngine.allCases) func anOperationIsLetGoAfterItsTransferThroughStages(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("cacheable/\(UUID().uuidString)?maxAge=600")
        let cache = try HTTPCache()
        let coalescer = RequestCoalescer()
        for _ in 0..<2 {
            let reference = WeakOperation()
            do {
                let operation = DTO.get(url).use(cache).use(coalescer).on(engine)
                reference.operation = operation
                try await operation.run()
                #expect(operation.statusCode == 200)
            }
            #expect(await eventually(within: 10) { reference.operation == nil }, "the operation was let go after its end")
        }
        #expect(cache.statistics.misses == 1 && cache.statistics.hits == 1)
    }

    // MARK: Stages that break the rules

    @Test(arguments: TestEngine.allCases) func aStageThatNeverHandsTheRequestOnIsNamedAtTheIdleTimeout(_ engine: TestEngine) async throws {
        let ends = EndCounter()
        let completions = Locked(0)
        let operation = DTO.get(try await TestServer.url("json")).use(ends).use(Keeper()).on(engine)
        operation.idleTimeout = 0.3
        operation.onCompletion { _ in completions.withLock { $0 += 1 } }
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .idleTimeout(seconds: 0.3))
        let misuse = try #require(operation.error?.underlying as? TransferStageMisuse)
        #expect(misuse == TransferStageMisuse(stage: "Keeper", problem: .keptRequest))
        #expect(operation.error?.description.contains("Keeper") == true)
        #expect(completions.withLock { $0 } == 1)
        #expect(ends.ends.withLock { $0 } == 1)
    }

    @Test(arguments: TestEngine.allCases) func aStageThatHandsTheRequestOnTwiceEndsTheOperationOnce(_ engine: TestEngine) async throws {
        let ends = EndCounter()
        let completions = Locked(0)
        // A slow answer: the first transfer still runs when the second `next` comes (a quick one
        // may end in between on a busy machine, and asking again after the end is allowed).
        let operation = DTO.get(try await TestServer.url("delay?seconds=30")).use(ends).use(Doubler()).on(engine)
        operation.retryPolicy = .standard
        operation.onCompletion { _ in completions.withLock { $0 += 1 } }
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        let misuse = try #require(operation.error?.underlying as? TransferStageMisuse)
        #expect(misuse.problem == .handedOnTwice && misuse.stage == "Doubler")
        #expect(operation.attemptsMade == 1, "a broken stage is not retried")
        #expect(completions.withLock { $0 } == 1)
        #expect(ends.ends.withLock { $0 } == 1)
    }

    /// Once the end reached the operation, the attempt is over: a `next` called after it starts
    /// nothing (no second request reaches the server) and reports `.cancelled` at once.
    @Test(arguments: TestEngine.allCases) func aNextAfterTheAttemptEndedStartsNothing(_ engine: TestEngine) async throws {
        let stage = LateCaller()
        let operation = DTO.get(try await TestServer.url("json")).use(stage).on(engine)
        try await operation.run()
        #expect(operation.statusCode == 200)
        #expect(await eventually(within: 10) { !stage.late.ends.all.isEmpty }, "the late transfer ended")
        #expect(stage.late.ends.all == [.cancelled])
        #expect(stage.late.statuses.all.isEmpty, "nothing was sent after the attempt ended")
    }

    @Test(arguments: [false, true], TestEngine.allCases)
    func aStageThatThrowsEndsTheOperationOnce(afterHandingOn: Bool, engine: TestEngine) async throws {
        let ends = EndCounter()
        let completions = Locked(0)
        let thrower = Thrower(afterHandingOn: afterHandingOn)
        // A slow answer: the transfer handed on still runs when the stage throws.
        let operation = DTO.get(try await TestServer.url("delay?seconds=30")).use(ends).use(thrower).on(engine)
        operation.retryPolicy = .standard
        operation.onCompletion { _ in completions.withLock { $0 += 1 } }
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.underlying as? Thrower.Refusal == Thrower.Refusal())
        #expect(operation.error?.description.contains("the stage refuses") == true)
        #expect(thrower.started.all == [1], "a stage that throws is not retried")
        #expect(completions.withLock { $0 } == 1)
        #expect(ends.ends.withLock { $0 } == 1)
    }

    // MARK: Values and the end

    /// What one stage writes in `prepare`, a transfer stage reads; the caller reads it after.
    @Test(arguments: TestEngine.allCases) func stagesShareTypedValues(_ engine: TestEngine) async throws {
        enum Tenant: CallValueKey {
            typealias Value = String
        }
        struct Writes: NetworkMiddleware {
            func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
                context.values[Tenant.self] = "acme-\(context.attempt)"
                return .proceed
            }
        }
        struct Reads: TransferStage {
            let seen = Recorder<String>()

            func startTransfer(
                _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
            ) throws -> any TransferHandle {
                seen.append(context.values[Tenant.self] ?? "none")
                return next(request, events: events)
            }
        }
        let reads = Reads()
        let operation = DTO.get(try await TestServer.url("json")).use(Writes()).use(reads).on(engine)
        try await operation.run()
        #expect(reads.seen.all == ["acme-1"])
        #expect(operation.values[Tenant.self] == "acme-1")
    }

    /// `operationDidFinish` comes once: after a success, a failure, and a cancel before start.
    @Test(arguments: TestEngine.allCases) func everyStageHearsTheEndOnce(_ engine: TestEngine) async throws {
        let counter = EndCounter()
        try await DTO.get(try await TestServer.url("json")).use(counter).on(engine).run()
        _ = try? await DTO.get(try await TestServer.url("status/500")).use(counter).on(engine).run()
        let neverStarted = DTO.get(try await TestServer.url("json")).use(counter).on(engine)
        neverStarted.cancel()
        await neverStarted.finished()
        #expect(counter.ends.withLock { $0 } == 3)
    }
}
