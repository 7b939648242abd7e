import Testing

/// Runs each case of a test holding `ProcessGate.tests` (see `ProcessGate` for who takes which
/// side, and why).
///
/// On a suite it applies to every test in it. A test that gets the trait twice (from its suite
/// and from itself) holds the gate once, with the stronger access. The gate is held per test
/// case: two cases of one exclusive test never run side by side.
///
/// Waiting for the gate counts against Swift Testing's `.timeLimit`, and on a busy machine a
/// shared test may wait minutes behind the exclusive ones. So a gated suite gives its limit to
/// the gate (`.processGate(.shared, minutes: 2)`), which counts it from the moment the case
/// enters: the limit bounds the test's own work, not its place in the queue (see
/// ``withinTimeLimit(_:_:)``).
public struct ProcessGateTrait: TestTrait, SuiteTrait, TestScoping {
    /// The access each test case holds.
    public let access: ProcessGate.Access
    /// How long a case may run once inside the gate; nil: no limit of the gate's.
    public let timeLimit: Duration?

    /// Applies to every test of a suite that carries it.
    public var isRecursive: Bool { true }

    /// The trait that holds the gate around one test case, or nil where it must not.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Per test case only: never around a whole suite or a whole parameterised function.
        guard testCase != nil else { return nil }
        // A shared trait on the suite gives way to an exclusive one on the test (holding both
        // would be an upgrade); a second trait of the same access re-enters the gate at once.
        let exclusive = test.traits.contains { ($0 as? Self)?.access == .exclusive }
        return access == .exclusive || !exclusive ? self : nil
    }

    /// Runs the test case while holding the gate with this trait's access.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // The shortest limit any of the test's gate traits gives (its suite's and its own).
        let limit = test.traits.compactMap { ($0 as? Self)?.timeLimit }.min()
        try await ProcessGate.tests.withAccess(access) {
            guard let limit else { return try await function() }
            // The group inside waits for `function` before it returns: it does not escape.
            try await withoutActuallyEscaping(function) { try await withinTimeLimit(limit, $0) }
        }
    }
}

extension Trait where Self == ProcessGateTrait {
    /// Holds the test process's gate for each test case: `.exclusive` for a test that loads the
    /// process or acts on every parked operation, `.shared` for one that must not run beside
    /// such a test (it times something, depends on a server-side deadline, or parks operations).
    public static func processGate(_ access: ProcessGate.Access) -> Self {
        ProcessGateTrait(access: access, timeLimit: nil)
    }

    /// Holds the gate as `processGate(_:)` does, and fails a case that runs longer than
    /// `minutes` once inside the gate (in place of the suite's `.timeLimit`, which would count
    /// the wait for the gate too).
    public static func processGate(_ access: ProcessGate.Access, minutes: Int) -> Self {
        ProcessGateTrait(access: access, timeLimit: .seconds(60 * minutes))
    }
}

/// Runs `body`; when it has not returned within `limit`, records a time-limit issue and
/// cancels it (then waits for it to return, as Swift Testing's `.timeLimit` does).
public func withinTimeLimit(_ limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            try await body()
            return true
        }
        group.addTask {
            try await Task.sleep(for: limit)
            return false
        }
        defer { group.cancelAll() }
        guard let finished = try await group.next(), finished else {
            Issue.record("Time limit was exceeded: \(limit) inside the process gate")
            return
        }
    }
}
