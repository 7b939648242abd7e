import Foundation

/// Resource use of this process, read from the kernel.
enum ProcessMetrics {
    /// User + system CPU seconds used by this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    /// Resident set size now, in bytes (`VmRSS`).
    static func residentBytes() -> Int64 { statusField("VmRSS:") }

    /// Peak resident set size since the process started or since `resetPeak()` (`VmHWM`).
    static func peakResidentBytes() -> Int64 { statusField("VmHWM:") }

    /// Hands memory the allocator keeps after frees back to the system (glibc `malloc_trim`), so
    /// that a transfer measured after a larger one starts from a comparable resident size.
    static func returnFreedMemory() {
        // Not in the Glibc module map: looked up by name (RTLD_DEFAULT is a null handle).
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    /// Resets the peak to the current resident size (Linux `clear_refs` value 5).
    static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    private static func statusField(_ name: String) -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int64($0) } ?? 0
            return kilobytes * 1_024
        }
        return 0
    }
}
