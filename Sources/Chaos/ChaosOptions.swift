import Foundation
import Logging

/// What a chaos run does.
public struct ChaosOptions: Sendable {
    /// Top-level operations to run (a group counts as one; its sub-operations are checked too).
    public var operations: Int
    /// The seed of the plan (kinds, routes, how each operation is started).
    public var seed: UInt64
    /// The engine under test.
    public var engine: ChaosEngine
    /// A folder of its own for downloads and upload files; it must be empty or absent.
    public var workDirectory: URL
    /// Seconds without any operation finishing, while some are unfinished, after which the
    /// watchdog declares the rest hung.
    public var stallLimit: TimeInterval = 60
    /// Seconds the run waits, once everything finished, for operations to be released.
    public var releaseGrace: TimeInterval = 10
    /// Where the run (and the authentication coordinator it creates) logs.
    public var logger: Logger

    /// Options for `operations` operations from `seed` on `engine`, working in `workDirectory`.
    public init(
        operations: Int, seed: UInt64, engine: ChaosEngine = .urlsession, workDirectory: URL,
        logger: Logger = Logger(label: "APILayer.Chaos")
    ) {
        self.operations = operations
        self.seed = seed
        self.engine = engine
        self.workDirectory = workDirectory
        self.logger = logger
    }
}
