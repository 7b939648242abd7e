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

    /// Open file descriptors of this process now (the entries of `/proc/self/fd`, less the one
    /// the listing itself holds open).
    static func openFileDescriptors() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return max(0, entries.count - 1)
    }

    /// Open file descriptors of this process now, by kind: `TCP ESTABLISHED` (and the other TCP
    /// states), `socket` (not TCP), `pipe`, `anon_inode:[eventfd]`, … or the path of a file (what
    /// `/proc/self/fd/N` links to).
    static func openFileDescriptorKinds() -> [String: Int] {
        let folder = "/proc/self/fd"
        let states = tcpStates()
        var kinds: [String: Int] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)") else { continue }
            let kind: String
            if target.hasPrefix("socket:[") {
                kind = states[String(target.dropFirst(8).dropLast())].map { "TCP \($0)" } ?? "socket"
            } else {
                kind = target.hasPrefix("pipe:") ? "pipe" : target
            }
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    /// The state of each TCP socket of this network namespace, by inode (`/proc/net/tcp`, `tcp6`).
    private static func tcpStates() -> [String: String] {
        let names = [
            "01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2", "06": "TIME_WAIT",
            "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING",
        ]
        var states: [String: String] = [:]
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to its end: a procfs file announces no size, and is longer than a page here.
            guard let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                states[String(fields[9])] = names[String(fields[3])] ?? String(fields[3])
            }
        }
        return states
    }

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
