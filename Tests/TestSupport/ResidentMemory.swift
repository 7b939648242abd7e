import Foundation

/// The resident memory of the test process (Linux `/proc/self/status`), for tests that check a
/// transfer does not hold its whole body in memory.
public enum ResidentMemory {
    /// Whether resident sizes can say what a transfer holds: not under AddressSanitizer, whose
    /// quarantine keeps freed memory resident (up to 256 MiB by default), so every chunk a
    /// stream frees counts as held.
    public static let isMeaningful: Bool = current() != nil && !SanitizerRuntime.isAddress

    /// Resident set size now, in bytes (`VmRSS`); nil where `/proc` does not say.
    public static func current() -> Int64? { statusField("VmRSS:") }

    /// The most resident memory since the process started or since `resetPeak()`, in bytes
    /// (`VmHWM`); nil where `/proc` does not say.
    public static func peak() -> Int64? { statusField("VmHWM:") }

    /// Makes the peak the current resident size (writes 5 to `/proc/self/clear_refs`).
    ///
    /// - Returns: whether the kernel took it (the peak is then within a page or so of `current()`).
    @discardableResult
    public static func resetPeak() -> Bool {
        guard (try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))) != nil,
            let peak = peak(), let current = current()
        else { return false }
        return peak - current < 1 << 20
    }

    /// How much the peak resident size grew over the resident size when `body` started, in
    /// bytes; nil where the peak cannot be measured or reset. Other threads of the process
    /// count too: measure with nothing else loading it (`.processGate(.exclusive)`).
    public static func peakGrowth(during body: () async throws -> Void) async rethrows -> Int64? {
        guard resetPeak(), let start = current() else {
            try await body()
            return nil
        }
        try await body()
        guard let peak = peak() else { return nil }
        return max(0, peak - start)
    }

    private static func statusField(_ name: String) -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.split(separator: " ").dropFirst().first.flatMap { Int64($0) }.map { $0 * 1_024 }
        }
        return nil
    }
}
