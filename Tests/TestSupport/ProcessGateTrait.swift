import Testing

/// Runs each case of a test holding `ProcessGate.tests` (see `ProcessGate` for who takes which
/// side, and why).
///
/// On a suite it applies to every test in it. A test that gets the trait twice (from its suite
/// and from itself) holds the gate once, with the stronger access. The gate is held per test
/// case: two cases of one exclusive test never run side by side.
///
/// Waiting for the gate counts against a test's `.timeLimit`: a gated suite's limit allows for
/// the exclusive tests it may queue behind.
public struct ProcessGateTrait: TestTrait, SuiteTrait, TestScoping {
    /// The access each test case holds.
    public let access: ProcessGate.Access

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
        try await ProcessGate.tests.withAccess(access) { try await function() }
    }
}

extension Trait where Self == ProcessGateTrait {
    /// Holds the test process's gate for each test case: `.exclusive` for a test that loads the
    /// process or acts on every parked operation, `.shared` for one that must not run beside
    /// such a test (it times something, depends on a server-side deadline, or parks operations).
    public static func processGate(_ access: ProcessGate.Access) -> Self {
        ProcessGateTrait(access: access)
    }
}
