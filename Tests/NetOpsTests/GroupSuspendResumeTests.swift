import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Suspending a group suspends what it runs, against DemoServer's rate-limited bodies: members
/// running at the pause, members started during it, nested groups; then `retainAndStart()`.
@Suite(.timeLimit(.minutes(3)))
struct GroupSuspendResumeTests {
    static let size = 4 << 20
    /// About eight seconds for the whole body: time to pause it mid-way even on a loaded machine.
    /// At four seconds, a parallel run once stalled one member's first bytes so long that the
    /// other member ended before the group could pause both.
    static let rate = 1 << 19

    static func slowURL() async throws -> URL {
        try await TestServer.url("bytes/\(size)?rate=\(rate)")
    }

    /// A GET of `url` on `engine` that outlasts a stall of the in-process server: in a loaded
    /// parallel run its handlers waited more than 20 s behind other tests' work, and a body
    /// that stops that long ended the operation before the test could pause it.
    static func patientGet(_ url: URL, on engine: TestEngine) -> DataTaskOperation {
        let operation = DTO.get(url).on(engine)
        operation.idleTimeout = 90
        return operation
    }

    /// A twentieth of the body: where the tests pause (`whenBodies(of:reach:_:)`).
    static let midBody = Int64(size / 20)

    /// Waits until `pressed` holds what the press returned and expects it to be true; false
    /// (and an issue saying how they ended) if one of `operations` ended first.
    static func pressed(_ pressed: Locked<Bool?>, _ operations: [BaseOperation]) async -> Bool {
        _ = await eventually(within: 30) { pressed.withLock { $0 } != nil || operations.contains { $0.isFinishedOrCancelled } }
        guard let result = pressed.withLock({ $0 }) else {
            let ends = operations.map { "\($0.state), \($0.error.map(String.init(describing:)) ?? "no error")" }
            Issue.record("a body ended before the pause: \(ends.joined(separator: "; "))")
            return false
        }
        #expect(result)
        return true
    }

    @Test(arguments: TestEngine.allCases) func suspendingAGroupSuspendsWhatItRuns(_ engine: TestEngine) async throws {
        let url = try await Self.slowURL()
        let first = Self.patientGet(url, on: engine)
        let second = Self.patientGet(url, on: engine)
        let group = GO<[Data]> { context in
            async let one = context.run(first)
            async let two = context.run(second)
            return try await [one.receivedData, two.receivedData]
        }
        let suspension = whenBodies(of: [first, second], reach: Self.midBody) { [weak group] in group?.suspend() ?? false }
        group.start()
        guard await Self.pressed(suspension, [first, second]) else { return }
        #expect(group.state == .suspended)
        #expect(group.isExecuting)
        #expect(
            first.state == .suspended && second.state == .suspended,
            "members: \(first.state), \(first.progress.bytesReceived) bytes; \(second.state), \(second.progress.bytesReceived) bytes")
        let kept = (first.progress.bytesReceived, second.progress.bytesReceived)
        try await Task.sleep(for: .milliseconds(150))
        #expect(first.progress.bytesReceived == kept.0 && second.progress.bytesReceived == kept.1, "bytes arrived while suspended")
        #expect(!group.suspend(), "suspending a suspended group does nothing")

        #expect(group.resume())
        #expect(group.state == .working)
        #expect(first.state != .suspended && second.state != .suspended)
        await group.finished()
        #expect(group.state == .successFinished, "\(group.error.map(String.init(describing:)) ?? "")")
        let bodies = try #require(group.result)
        #expect(bodies.map(sha256) == [payloadSHA256(size: Self.size), payloadSHA256(size: Self.size)])
        #expect(!group.resume(), "resuming a finished group does nothing")
    }

    @Test(arguments: TestEngine.allCases) func anOperationStartedWhileSuspendedStartsSuspended(_ engine: TestEngine) async throws {
        let url = try await Self.slowURL()
        let gate = Locked(false)
        let late = Self.patientGet(url, on: engine)
        let group = GO<Data>(sync: { context in
            while !gate.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
            return try context.syncRun(late).receivedData
        })
        group.start()
        #expect(group.suspend())
        gate.withLock { $0 = true }
        #expect(await eventually(within: 20) { late.state == .suspended })
        let kept = late.progress.bytesReceived
        try await Task.sleep(for: .milliseconds(150))
        #expect(late.state == .suspended)
        #expect(late.progress.bytesReceived == kept)

        #expect(group.resume())
        await group.finished()
        #expect(group.state == .successFinished, "\(group.error.map(String.init(describing:)) ?? "")")
        #expect(group.result.map(sha256) == payloadSHA256(size: Self.size))
    }

    @Test(arguments: TestEngine.allCases) func suspendingReachesNestedGroups(_ engine: TestEngine) async throws {
        let url = try await Self.slowURL()
        let operation = Self.patientGet(url, on: engine)
        let inner = GO<Int>(sync: { context in try context.syncRun(operation).receivedData.count })
        let outer = GO<Int> { context in try await context.run(inner) + 1 }
        let suspension = whenBodies(of: [operation], reach: Self.midBody) { [weak outer] in outer?.startSuspendResume() == .suspended }
        #expect(outer.startSuspendResume() == .working)
        guard await Self.pressed(suspension, [operation]) else { return }
        #expect(outer.state == .suspended)
        #expect(inner.state == .suspended)
        #expect(operation.state == .suspended)
        #expect(outer.startSuspendResume() == .working)
        #expect(inner.state == .working)
        #expect(try await outer.run() == Self.size + 1)
        #expect(sha256(operation.receivedData) == payloadSHA256(size: Self.size))
    }

    @Test(arguments: TestEngine.allCases) func cancellingASuspendedGroupCancelsWhatItRuns(_ engine: TestEngine) async throws {
        let url = try await Self.slowURL()
        let operation = Self.patientGet(url, on: engine)
        let group = GO<Int> { context in try await context.run(operation).receivedData.count }
        let suspension = whenBodies(of: [operation], reach: Self.midBody) { [weak group] in group?.suspend() ?? false }
        group.start()
        guard await Self.pressed(suspension, [operation]) else { return }
        group.cancel()
        #expect(group.state == .cancelled)
        #expect(operation.state == .cancelled)
        await group.finished()
        #expect(group.isFinished && !group.isExecuting)
        guard case .cancelled? = group.error as? GroupError else {
            Issue.record("the group's error is \(String(describing: group.error))")
            return
        }
    }

    @Test(arguments: TestEngine.allCases) func aBodyThatEndsWhileSuspendedEndsTheGroup(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("bytes/100")
        let gate = Locked(false)
        let group = GO<Int> { context in
            let count = try await context.run(Self.patientGet(url, on: engine)).receivedData.count
            while !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            return count
        }
        group.start()
        #expect(await eventually { group.progress.completedOperations == 1 })
        #expect(group.suspend())
        gate.withLock { $0 = true }
        await group.finished()
        #expect(group.state == .successFinished)
        #expect(group.result == 100)
    }

    @Test(arguments: TestEngine.allCases) func retainAndStartKeepsAGroupUntilItEnds(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("bytes/1000")
        let ended = Locked<Int?>(nil)
        let reference = WeakReference()
        do {
            let group = GO<Int> { context in try await context.run(Self.patientGet(url, on: engine)).receivedData.count }
            group.onCompletion { group in ended.withLock { $0 = group.result } }
            reference.object = group
            group.retainAndStart()
        }
        #expect(await eventually(within: 20) { ended.withLock { $0 } == 1000 })
        #expect(await eventually(within: 20) { reference.object == nil }, "the group was let go once it ended")
    }
}

/// Holds an object weakly, from any thread.
private final class WeakReference: @unchecked Sendable {
    // @unchecked: written once before any reader runs; weak loads are atomic.
    weak var object: AnyObject?
}
