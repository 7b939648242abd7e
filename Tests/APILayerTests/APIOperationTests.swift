import APILayer
import DemoServer
import Foundation
import NetOps
import Templater
import TestSupport
import Testing
import Validator

/// `/delay?seconds=` answers `{"delayed": seconds}` after that long.
private struct Delayed: Decodable, Sendable {
    var delayed: Double
}

private enum SlowAPI: String, APIMethod {
    case delay

    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
}

/// Runs `body` with a default API of its own on the shared DemoServer, or on a server of its
/// own (`privateServer`) whose request count no other test moves.
private func withSlowAPI(
    stubMode: StubMode = .off, templates: TemplateStore = Templater.shared, privateServer: Bool = false,
    engine: TestEngine = .urlSession, _ body: (DemoServer) async throws -> Void
) async throws {
    let server = privateServer ? try await DemoServer.start() : try await TestServer.get()
    defer { if privateServer { Task { await server.stop() } } }
    let scope = APIScope(
        name: "operations",
        configuration: .init(
            baseURL: server.baseURL, templates: templates,
            session: engine.session, stubMode: stubMode))
    try await APIManager.withDefaultAPI(scope) { try await body(server) }
}

/// An APIManager method as an operation: every control of a `BaseOperation`, and a typed result.
@Suite("API operations", .processGate(.shared, minutes: 5))
struct APIOperationTests {
    @Test func anOperationIsUnstartedUntilStartedAndEndsWithItsModel() async throws {
        try await withSlowAPI(privateServer: true) { server in
            let before = server.statistics.requests
            let operation = APIManager.operation(SlowAPI.delay, properties: ["seconds": 0], as: Delayed.self)
            #expect(operation.state == .readyToStart)
            #expect(operation.result == nil)
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.statistics.requests == before, "nothing is sent before it starts")
            let model = try await operation.run()
            #expect(model.delayed == 0)
            #expect(operation.state == .successFinished)
            #expect(try operation.result?.get().delayed == 0)
        }
    }

    @Test(arguments: TestEngine.allCases)
    func syncStartOnAThreadAndOnCompletionWithTheResult(_ engine: TestEngine) async throws {
        try await withSlowAPI(engine: engine) { _ in
            let operation = APIManager.operation(SlowAPI.delay, properties: ["seconds": 0.05], as: Delayed.self)
            let results = Locked<[Result<Delayed, APIError>]>([])
            operation.onCompletion { result in results.withLock { $0.append(result) } }
            await onThreads(1) { _ in operation.syncStart() }
            #expect(operation.state == .successFinished)
            let delivered = results.withLock { $0 }
            #expect(delivered.count == 1)
            #expect((try? delivered.first?.get())?.delayed == 0.05)
        }
    }

    @Test(arguments: TestEngine.allCases)
    func aQueueAnOwnerAndACancelOfEverythingItOwns(_ engine: TestEngine) async throws {
        try await withSlowAPI(engine: engine) { _ in
            final class Screen {}
            let screen = Screen()
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 2
            let operations = (0..<6).map { _ in
                let operation = APIManager.operation(SlowAPI.delay, properties: ["seconds": 30], as: Delayed.self)
                operation.owner = screen
                operation.ownerID = "screen-\(ObjectIdentifier(screen).hashValue)"
                return operation
            }
            for operation in operations { queue.addOperation(operation) }
            #expect(await eventually(within: 25) { operations.filter(\.isExecuting).count == 2 })
            #expect(BaseOperation.cancelAllOperations(ownedBy: screen, in: queue) == 6)
            for operation in operations { await operation.finished() }
            for operation in operations {
                #expect(operation.state == .cancelled)
                guard case let .failure(error)? = operation.result, case let .transport(cause) = error.stage else {
                    Issue.record("expected a transport failure, got \(String(describing: operation.result))")
                    continue
                }
                #expect(cause.kind == .cancelled)
            }
        }
    }

    @Test(arguments: TestEngine.allCases)
    func anEnclosingGroupRunsItAndCancelsIt(_ engine: TestEngine) async throws {
        try await withSlowAPI(engine: engine) { _ in
            let quick = APIManager.operation(SlowAPI.delay, properties: ["seconds": 0], as: Delayed.self)
            let slow = APIManager.operation(SlowAPI.delay, properties: ["seconds": 30], as: Delayed.self)
            let group = GroupOperation<Double> { context in
                let first = try await context.run(quick)
                _ = try await context.run(slow)
                return try first.result?.get().delayed ?? -1
            }
            let queue = OperationQueue()
            queue.addOperation(group)
            #expect(await eventually(within: 25) { slow.isExecuting })
            let started = Date()
            group.cancel()
            await group.finished()
            await slow.finished()
            #expect(Date().timeIntervalSince(started) < 20, "the server would answer after 30 s")
            #expect(quick.state == .successFinished)
            #expect(slow.state == .cancelled)
            #expect(group.state == .cancelled)
        }
    }

    @Test func aFailedValidationFailsTheEnclosingGroup() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-operations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)
        // The template wants a string where the server sends a number.
        try templates.write(.object(["delayed": .string("text")]), for: "checked")
        enum CheckedAPI: String, APIMethod {
            case checked
            var path: String { "delay" }
            var httpMethod: HTTPMethod { .get }
            var encoding: RequestEncoding { .query }
            var defaultParameters: Parameters { ["seconds": 0] }
        }
        try await withSlowAPI(templates: templates) { _ in
            let operation = APIManager.operation(CheckedAPI.checked, as: Delayed.self)
            let group = GroupOperation<Void> { context in _ = try await context.run(operation) }
            await #expect(throws: (any Error).self) { try await group.run() }
            #expect(operation.state == .failedFinished)
            #expect(group.state == .failedFinished)
            guard case let .failure(error)? = operation.result else {
                Issue.record("no failure")
                return
            }
            #expect(error.stageName == "validation")
            #expect(operation.error?.kind == .rejected(reason: error.description))
        }
    }

    @Test func timeoutsPrivateSessionAndTimeLimitBetweenRuns() async throws {
        try await withSlowAPI { _ in
            let timed = APIManager.operation(SlowAPI.delay, properties: ["seconds": 3], as: Delayed.self)
            timed.idleTimeout = 0.3
            timed.privateSession = NetworkSession()
            await #expect(throws: APIError.self) { try await timed.run() }
            guard case let .failure(error)? = timed.result, case let .transport(cause) = error.stage else {
                Issue.record("expected a transport failure")
                return
            }
            #expect(cause.isTimeout)

            let key = "delay-\(UUID().uuidString)"
            let first = APIManager.operation(SlowAPI.delay, properties: ["seconds": 0], as: Delayed.self)
            first.timeLimitBetweenRuns = 60
            first.runLimitKey = key
            _ = try await first.run()
            let second = APIManager.operation(SlowAPI.delay, properties: ["seconds": 0], as: Delayed.self)
            second.timeLimitBetweenRuns = 60
            second.runLimitKey = key
            let refused = await #expect(throws: APIError.self) { try await second.run() }
            guard case let .transport(cause)? = refused?.stage, case .tooSoon = cause.kind else {
                Issue.record("expected tooSoon, got \(String(describing: refused))")
                return
            }
        }
    }

    @Test(arguments: TestEngine.allCases)
    func suspendAndResume(_ engine: TestEngine) async throws {
        try await withSlowAPI(engine: engine) { server in
            let operation = APIManager.operation(SlowAPI.delay, properties: ["seconds": 0.4], as: Delayed.self)
            operation.start()
            #expect(operation.suspend())
            #expect(operation.state == .suspended)
            #expect(operation.resume())
            let model = try await operation.run()
            #expect(model.delayed == 0.4)
            #expect(operation.state == .successFinished)
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheOperation() async throws {
        try await withSlowAPI { _ in
            let operation = APIManager.operation(SlowAPI.delay, properties: ["seconds": 30], as: Delayed.self)
            let task = Task { try await operation.run() }
            #expect(await eventually(within: 25) { operation.isExecuting })
            task.cancel()
            let outcome = await task.result
            #expect(throws: APIError.self) { try outcome.get() }
            #expect(operation.state == .cancelled)
        }
    }

    /// Stubs and construction failures give an operation too: it answers from the template, or
    /// fails at start with the construction error.
    @Test func stubsAndConstructionFailuresAreOperationsToo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-operations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)
        try templates.write(.object(["delayed": .double(1.5), "delayed-Rules": .object(["minimum": .int(0)])]), for: "delay")
        try await withSlowAPI(stubMode: .delayed(0.2), templates: templates, privateServer: true) { server in
            let before = server.statistics.requests
            let stub = APIManager.operation(SlowAPI.delay, as: Delayed.self)
            #expect(stub.state == .readyToStart)
            // A stub keeps the controls: cancelled before its answer, it ends cancelled.
            let cancelled = APIManager.operation(SlowAPI.delay, as: Delayed.self)
            cancelled.start()
            cancelled.cancel()
            await cancelled.finished()
            #expect(cancelled.state == .cancelled)
            let answer = try await stub.run()
            #expect(answer.delayed == 1.5)
            #expect(server.statistics.requests == before, "a stub never reaches the network")
        }
        await APIManager.withDefaultAPI(APIScope(name: "unbuilt")) {
            let unbuilt = APIManager.operation(SlowAPI.delay, as: Delayed.self)
            #expect(unbuilt.state == .readyToStart)
            await #expect(throws: APIError.self) { try await unbuilt.run() }
            #expect(unbuilt.state == .failedFinished)
            guard case let .failure(error)? = unbuilt.result else {
                Issue.record("no failure")
                return
            }
            #expect(error.stageName == "construction")
        }
    }
}
