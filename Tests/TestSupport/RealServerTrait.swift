import Foundation
import NIOConcurrencyHelpers
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a suite or test only where `servers` are installed, or where the environment requires
    /// them (``RealServer/isRequired(in:)``: CI sets `APILAYER_REQUIRE_SERVERS=1`), so that their
    /// absence fails it with its fixture's message instead.
    ///
    /// A skip is noted, and the test process ends its output with one line that names every
    /// skipped suite and the `apt-get install` that enables them (``MissingServers``).
    public static func requires(_ servers: RealServer..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let comment = Comment(rawValue: "needs \(servers.map(\.rawValue).joined(separator: ", "))")
        let suite = MissingServers.suiteName(of: sourceLocation)
        return .enabled(comment, sourceLocation: sourceLocation) {
            MissingServers.mayRun(suite, needing: servers)
        }
    }
}

/// The suites skipped in this process because a server they need is missing, and the line that
/// names them when the process ends.
public enum MissingServers {
    private static let skipped = NIOLockedValueBox<[String: Set<RealServer>]>([:])
    private static let summaryAtExit: Void = {
        atexit { MissingServers.printSummary() }
    }()

    /// Whether `suite`, which needs `servers`, may run: every one is installed or required. When
    /// it may not, the skip is noted for the summary line.
    public static func mayRun(_ suite: String, needing servers: [RealServer]) -> Bool {
        let missing = skipping(servers)
        guard !missing.isEmpty else { return true }
        note(suite, missing: missing)
        return false
    }

    /// Those of `servers` whose absence skips a test: not installed (as `isInstalled` says),
    /// and not required by `environment`.
    public static func skipping(
        _ servers: [RealServer], environment: [String: String] = ProcessInfo.processInfo.environment,
        isInstalled: (RealServer) -> Bool = { $0.isInstalled }
    ) -> [RealServer] {
        servers.filter { !isInstalled($0) && !$0.isRequired(in: environment) }
    }

    /// Notes that `suite` (or some of its cases) did not run for want of `missing`.
    public static func note(_ suite: String, missing: [RealServer]) {
        _ = summaryAtExit
        skipped.withLockedValue { $0[suite, default: []].formUnion(missing) }
    }

    /// The line the process ends with, or nil when nothing was skipped.
    public static var summary: String? { summary(of: skipped.withLockedValue { $0 }) }

    /// The line for `skipped` (suite → the servers it lacked): the suites, the missing servers,
    /// and the command that installs them.
    public static func summary(of skipped: [String: Set<RealServer>]) -> String? {
        guard !skipped.isEmpty else { return nil }
        let servers = RealServer.allCases.filter { server in skipped.values.contains { $0.contains(server) } }
        let suites = skipped.keys.sorted().joined(separator: ", ")
        return "Skipped for want of \(servers.map(\.rawValue).joined(separator: ", ")): \(suites). "
            + "`apt-get install -y \(servers.map(\.package).joined(separator: " "))` enables them; "
            + "\(RealServer.requireAllVariable)=1 makes a missing server fail instead."
    }

    /// The suite's name from where its trait is written: the file's name without `.swift`.
    static func suiteName(of location: SourceLocation) -> String {
        let file = location.fileID.split(separator: "/").last.map(String.init) ?? location.fileID
        return file.hasSuffix(".swift") ? String(file.dropLast(6)) : file
    }

    private static func printSummary() {
        guard let line = summary else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
