import Foundation
import NetOps

/// Prints the demo's sections as they run, and keeps the checks and figures for the summary.
final class DemoReport: Sendable {
    /// One verified claim of the demo.
    struct Check: Encodable, Sendable {
        let section: String
        let passed: Bool
        let detail: String
    }

    /// What `--json` prints.
    struct Summary: Encodable {
        let passed: Int
        let failed: Int
        let sections: Int
        let seconds: Double
        let figures: [String: Double]
        let checks: [Check]
    }

    private struct State {
        var checks: [Check] = []
        var figures: [String: Double] = [:]
        var sections: [String] = []
    }

    private let state = Locked(State())
    private let started = Date()
    /// Whether sections are printed (not with `--json`).
    let quiet: Bool

    init(quiet: Bool) { self.quiet = quiet }

    /// How many checks failed so far.
    var failures: Int { state.withLock { $0.checks.filter { !$0.passed }.count } }

    /// Starts a section: later checks belong to it.
    func section(_ title: String) {
        state.withLock { $0.sections.append(title) }
        say("\n== \(title)")
    }

    /// Prints a line (unless quiet).
    func say(_ line: String) {
        guard !quiet else { return }
        print(line)
        fflush(nil)
    }

    /// Records a check and prints it with a mark.
    func check(_ passed: Bool, _ detail: String) {
        state.withLock { $0.checks.append(Check(section: $0.sections.last ?? "", passed: passed, detail: detail)) }
        say("  \(passed ? "✓" : "✗") \(detail)")
    }

    /// Records a figure of the summary (`refreshes`, `profile-cancel-ms`, …).
    func figure(_ name: String, _ value: Double) {
        state.withLock { $0.figures[name] = value }
    }

    /// A progress bar drawn in place on a terminal, or at every quarter otherwise.
    func progressBar(_ label: String) -> @Sendable (Double) -> Void {
        let lastQuarter = Locked(-1)
        let terminal = isatty(STDOUT_FILENO) == 1
        return { [quiet] fraction in
            guard !quiet else { return }
            let width = 30
            let filled = Int(min(1, fraction) * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let text = String(format: "  %@ [%@] %3.0f%%", label, bar, min(1, fraction) * 100)
            if terminal {
                print("\r" + text, terminator: fraction >= 1 ? "\n" : "")
                fflush(nil)
            } else {
                let quarter = Int(fraction * 4)
                let isNew = lastQuarter.withLock { last -> Bool in
                    guard quarter > last else { return false }
                    last = quarter
                    return true
                }
                if isNew {
                    print(text)
                    fflush(nil)
                }
            }
        }
    }

    /// Prints the summary: a line of totals, or the whole summary as JSON.
    func finish(json: Bool) {
        let (checks, figures, sections) = state.withLock { ($0.checks, $0.figures, $0.sections) }
        let seconds = Date().timeIntervalSince(started)
        let passed = checks.filter(\.passed).count
        if json {
            let summary = Summary(
                passed: passed, failed: checks.count - passed, sections: sections.count,
                seconds: (seconds * 100).rounded() / 100, figures: figures, checks: checks)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self))
        } else {
            print("\n== Summary")
            print("  \(sections.count) sections, \(passed) checks passed, \(checks.count - passed) failed, in \(String(format: "%.1f", seconds)) s")
        }
    }
}
