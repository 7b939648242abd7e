import APILayer
import Testing

/// The IDs of API calls: 16 hex digits, never repeated within a process.
@Suite("Request IDs")
struct RequestIDTests {
    /// The mixer is SplitMix64's finalizer with its published constants: the generator's first
    /// output from seed 0 (whose state is then the golden gamma).
    @Test func theMixerIsSplitMix64sFinalizer() {
        #expect(RequestID.mix(0x9e37_79b9_7f4a_7c15) == 0xe220_a839_7b1d_cdaf)
        #expect(RequestID.mix(0) == 0)
    }

    @Test func valuesAreWrittenAsSixteenLowercaseHexDigits() {
        #expect(RequestID.hexadecimal(0) == "0000000000000000")
        #expect(RequestID.hexadecimal(0xdead_beef) == "00000000deadbeef")
        #expect(RequestID.hexadecimal(0x0123_4567_89ab_cdef) == "0123456789abcdef")
        #expect(RequestID.hexadecimal(.max) == "ffffffffffffffff")
    }

    /// IDs drawn on four threads at once: all distinct, all well formed.
    @Test func idsDrawnConcurrentlyNeverRepeat() async {
        let perTask = 25_000
        let drawn = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<perTask).map { _ in RequestID.next() } }
            }
            var all: [String] = []
            for await ids in group { all += ids }
            return all
        }
        #expect(drawn.count == 4 * perTask)
        #expect(Set(drawn).count == drawn.count)
        let hexDigits = Set("0123456789abcdef")
        #expect(drawn.allSatisfy { $0.count == 16 && $0.allSatisfy(hexDigits.contains) })
    }
}
