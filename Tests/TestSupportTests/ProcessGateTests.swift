import NetOps
import TestSupport
import Testing

/// The readers–writer gate: who may enter together, in which order, and what a cancelled wait
/// leaves behind. Every test uses a gate of its own, never `ProcessGate.tests`.
@Suite(.timeLimit(.minutes(1)))
struct ProcessGateTests {
    /// A holder the test lets go of when it chooses.
    final class Holder: Sendable {
        let entered: Task<Void, Never>
        let done: Task<Void, any Error>
        private let letGo: AsyncStream<Void>.Continuation

        /// Asks `gate` for `access`, logs `name` in `log` on entry, and holds until `release()`.
        init(_ gate: ProcessGate, _ access: ProcessGate.Access, _ name: String, log: Log) {
            let (entry, signalEntry) = AsyncStream<Void>.makeStream()
            let (release, letGo) = AsyncStream<Void>.makeStream()
            self.letGo = letGo
            entered = Task { for await _ in entry { return } }
            done = Task {
                try await gate.withAccess(access) {
                    log.append(name)
                    signalEntry.yield()
                    for await _ in release { return }
                }
            }
        }

        func release() { letGo.yield() }
    }

    /// Names in the order their holders got in.
    final class Log: Sendable {
        private let names = Locked<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// Waits until `gate` looks like `expected`, for 20 seconds at most; then records what it
    /// looked like instead. Ends at once when the test's task is cancelled (the suite's time
    /// limit), so a wait that cannot succeed never spins; it throws then, ending the test.
    static func until(
        _ gate: ProcessGate, is expected: ProcessGate.Snapshot, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while gate.snapshot != expected {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(1))) != nil else {
                Issue.record("the gate never looked like \(expected); it looks like \(gate.snapshot)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
        }
    }

    static func snapshot(shared: Int = 0, exclusive: Bool = false, waiting: [ProcessGate.Access] = []) -> ProcessGate.Snapshot {
        ProcessGate.Snapshot(sharedHolders: shared, exclusiveHeld: exclusive, waiting: waiting)
    }

    @Test func sharedHoldersEnterTogether() async throws {
        let gate = ProcessGate()
        let log = Log()
        let first = Holder(gate, .shared, "first", log: log)
        await first.entered.value
        // Entered while the first still holds: no waiting behind a shared holder.
        let second = Holder(gate, .shared, "second", log: log)
        await second.entered.value
        #expect(gate.snapshot == Self.snapshot(shared: 2))
        first.release()
        second.release()
        try await first.done.value
        try await second.done.value
        #expect(gate.snapshot == Self.snapshot())
    }

    @Test func exclusiveWaitsForSharedAndKeepsEveryoneOut() async throws {
        let gate = ProcessGate()
        let log = Log()
        let reader = Holder(gate, .shared, "reader", log: log)
        await reader.entered.value
        let writer = Holder(gate, .exclusive, "writer", log: log)
        try await Self.until(gate, is: Self.snapshot(shared: 1, waiting: [.exclusive]))
        #expect(log.all == ["reader"])

        reader.release()
        await writer.entered.value
        #expect(gate.snapshot == Self.snapshot(exclusive: true))
        // Neither kind gets in beside an exclusive holder.
        // Two tasks made back to back may arrive in either order: the reader is queued first.
        let lateReader = Holder(gate, .shared, "late reader", log: log)
        try await Self.until(gate, is: Self.snapshot(exclusive: true, waiting: [.shared]))
        let lateWriter = Holder(gate, .exclusive, "late writer", log: log)
        try await Self.until(gate, is: Self.snapshot(exclusive: true, waiting: [.shared, .exclusive]))
        #expect(log.all == ["reader", "writer"])

        writer.release()
        await lateReader.entered.value
        lateReader.release()
        await lateWriter.entered.value
        lateWriter.release()
        for holder in [reader, writer, lateReader, lateWriter] { try await holder.done.value }
        #expect(log.all == ["reader", "writer", "late reader", "late writer"])
        #expect(gate.snapshot == Self.snapshot())
    }

    /// A shared request arriving while an exclusive one waits queues behind it: a stream of
    /// readers cannot starve a writer.
    @Test func aWaitingWriterIsNotOvertakenByLaterReaders() async throws {
        let gate = ProcessGate()
        let log = Log()
        let reader = Holder(gate, .shared, "reader", log: log)
        await reader.entered.value
        let writer = Holder(gate, .exclusive, "writer", log: log)
        try await Self.until(gate, is: Self.snapshot(shared: 1, waiting: [.exclusive]))
        let readers = (0..<5).map { Holder(gate, .shared, "reader \($0)", log: log) }
        try await Self.until(gate, is: Self.snapshot(shared: 1, waiting: [.exclusive] + Array(repeating: .shared, count: 5)))

        reader.release()
        await writer.entered.value
        #expect(log.all == ["reader", "writer"])
        writer.release()
        // All five readers get in together once the writer leaves.
        for holder in readers { await holder.entered.value }
        #expect(gate.snapshot == Self.snapshot(shared: 5))
        for holder in readers { holder.release() }
        for holder in [reader, writer] + readers { try await holder.done.value }
        #expect(gate.snapshot == Self.snapshot())
    }

    @Test func exclusiveRequestsAreServedInArrivalOrder() async throws {
        let gate = ProcessGate()
        let log = Log()
        let reader = Holder(gate, .shared, "reader", log: log)
        await reader.entered.value
        var writers: [Holder] = []
        for index in 0..<4 {
            writers.append(Holder(gate, .exclusive, "writer \(index)", log: log))
            try await Self.until(gate, is: Self.snapshot(shared: 1, waiting: Array(repeating: .exclusive, count: index + 1)))
        }
        reader.release()
        for writer in writers {
            await writer.entered.value
            writer.release()
        }
        for holder in [reader] + writers { try await holder.done.value }
        #expect(log.all == ["reader", "writer 0", "writer 1", "writer 2", "writer 3"])
    }

    /// A cancelled waiter leaves the queue at once, its body never runs, and whoever queued
    /// behind it gets in.
    @Test func cancellingAWaitingWriterLetsTheReadersBehindItIn() async throws {
        let gate = ProcessGate()
        let log = Log()
        let reader = Holder(gate, .shared, "reader", log: log)
        await reader.entered.value
        let writer = Holder(gate, .exclusive, "writer", log: log)
        try await Self.until(gate, is: Self.snapshot(shared: 1, waiting: [.exclusive]))
        let laterReader = Holder(gate, .shared, "later reader", log: log)
        try await Self.until(gate, is: Self.snapshot(shared: 1, waiting: [.exclusive, .shared]))

        writer.done.cancel()
        await #expect(throws: CancellationError.self) { try await writer.done.value }
        await laterReader.entered.value
        #expect(gate.snapshot == Self.snapshot(shared: 2))
        reader.release()
        laterReader.release()
        try await reader.done.value
        try await laterReader.done.value
        #expect(log.all == ["reader", "later reader"])
        #expect(gate.snapshot == Self.snapshot())
    }

    @Test func anAlreadyCancelledTaskDoesNotEnter() async throws {
        let gate = ProcessGate()
        let ran = Locked(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.withAccess(.exclusive) { ran.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ran.withLock { $0 })
        #expect(gate.snapshot == Self.snapshot())
        // The gate still works.
        try await gate.withAccess(.exclusive) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    @Test func aHolderReentersWithTheSameOrAWeakerAccessButCannotUpgrade() async throws {
        let gate = ProcessGate()
        try await gate.withAccess(.exclusive) {
            try await gate.withAccess(.shared) {
                try await gate.withAccess(.exclusive) {
                    #expect(gate.snapshot == Self.snapshot(exclusive: true))
                }
            }
        }
        try await gate.withAccess(.shared) {
            await #expect(throws: ProcessGate.UpgradeError.self) { try await gate.withAccess(.exclusive) {} }
            #expect(gate.snapshot == Self.snapshot(shared: 1))
        }
        #expect(gate.snapshot == Self.snapshot())
    }

    @Test func bodyErrorsReleaseTheGate() async throws {
        struct Boom: Error {}
        let gate = ProcessGate()
        await #expect(throws: Boom.self) { try await gate.withAccess(.exclusive) { throw Boom() } }
        #expect(gate.snapshot == Self.snapshot())
    }

    /// 400 random requests, 1 in 5 exclusive, some cancelled: every exclusive holder is alone,
    /// every shared holder sees no exclusive one, nothing deadlocks, the gate ends open.
    @Test func mixedLoadKeepsTheInvariant() async throws {
        let gate = ProcessGate()
        struct Inside { var shared = 0, exclusive = 0, violations = 0, maxShared = 0, entered = 0 }
        final class Box: Sendable {
            let state = Locked(Inside())
            func withLock<T>(_ body: (inout Inside) -> T) -> T { state.withLock { body(&$0) } }
        }
        let inside = Box()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                let access: ProcessGate.Access = index % 5 == 0 ? .exclusive : .shared
                let task = Task {
                    try await gate.withAccess(access) {
                        inside.withLock { state in
                            state.entered += 1
                            switch access {
                            case .exclusive:
                                if state.shared > 0 || state.exclusive > 0 { state.violations += 1 }
                                state.exclusive += 1
                            case .shared:
                                if state.exclusive > 0 { state.violations += 1 }
                                state.shared += 1
                                state.maxShared = max(state.maxShared, state.shared)
                            }
                        }
                        await Task.yield()
                        inside.withLock { state in
                            switch access {
                            case .exclusive: state.exclusive -= 1
                            case .shared: state.shared -= 1
                            }
                        }
                    }
                }
                if index % 37 == 0 { task.cancel() }
                group.addTask { _ = try? await task.value }
            }
        }
        let result = inside.withLock { $0 }
        #expect(result.violations == 0)
        #expect(result.entered >= 400 - 11, "only the cancelled ones may stay out")
        #expect(result.maxShared > 1, "shared holders overlapped")
        #expect(gate.snapshot == Self.snapshot())
    }
}

/// The `.processGate(_:)` trait holds `ProcessGate.tests` around each test case.
@Suite(.processGate(.shared))
struct ProcessGateTraitTests {
    @Test func aSharedSuiteHoldsTheGateShared() {
        let gate = ProcessGate.tests.snapshot
        #expect(gate.sharedHolders >= 1 && !gate.exclusiveHeld)
    }

    /// Exclusive on the test wins over shared on the suite (held once, not upgraded), for each
    /// case on its own: never two cases at once.
    @Test(.processGate(.exclusive), arguments: 0..<3)
    func anExclusiveTestHoldsTheGateAloneForEachCase(_ index: Int) {
        let gate = ProcessGate.tests.snapshot
        #expect(gate.exclusiveHeld && gate.sharedHolders == 0)
    }
}

/// A gated suite's time limit counts from the entry into the gate: the wait behind another
/// holder is not the test's own time.
@Suite(.timeLimit(.minutes(1)))
struct GateTimeLimitTests {
    @Test func aBodyWithinItsLimitEndsNormally() async throws {
        let ran = Locked(false)
        try await withinTimeLimit(.seconds(30)) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    @Test func aBodyPastItsLimitIsCancelledAndRecorded() async throws {
        let cancelled = Locked(false)
        await withKnownIssue("the limit of 0.2 s is exceeded on purpose") {
            try await withinTimeLimit(.milliseconds(200)) {
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.withLock { $0 = true }
                }
            }
        }
        #expect(cancelled.withLock { $0 }, "the body was cancelled")
    }

    /// The limit starts once the gate is entered: a holder that keeps the gate longer than the
    /// limit does not fail the test queued behind it.
    @Test func waitingForTheGateDoesNotCount() async throws {
        let gate = ProcessGate()
        let (release, letGo) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await gate.withAccess(.exclusive) { for await _ in release { return } }
        }
        while !gate.snapshot.exclusiveHeld { try await Task.sleep(for: .milliseconds(1)) }
        let waiter = Task {
            try await gate.withAccess(.shared) {
                try await withinTimeLimit(.seconds(1)) {}
            }
        }
        try await Task.sleep(for: .seconds(2))  // twice the waiter's limit, in the queue
        letGo.finish()
        try await holder.value
        try await waiter.value  // no issue recorded: the limit counted only the empty body
    }
}
