import Foundation

/// Gives the memory freed by finished transfers back to the system (glibc's `malloc_trim`).
///
/// glibc keeps what a thread frees in that thread's arena for its next allocations, and gives it
/// back to the system only from the top of an arena's heap. FoundationNetworking allocates a
/// download's chunks on whichever of libdispatch's worker threads runs libcurl at that moment,
/// so a long download spreads them over as many arenas as threads took part, and each arena
/// keeps its share resident after the chunks were written and freed. How many threads take part
/// is the machine's load's doing: the peak of a 1 GiB download moved between 10 and 33 MiB from
/// run to run, while what is alive at once stays under 4 MiB (`Docs/operations.md`, "Segment size, and memory given back").
/// A segmented download gives the freed memory back every few segments: after each one it
/// would cost half the throughput (the pages must be faulted in again).
enum FreedMemory {
    /// `malloc_trim`, looked up once (it is not in the Glibc module map); nil where the C
    /// library has none.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// Returns the free pages of every arena to the system.
    static func giveBack() {
        _ = trim?(0)
    }
}
