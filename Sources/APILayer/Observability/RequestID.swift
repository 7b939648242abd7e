import Synchronization

/// The ID that ties one API call's log lines and spans together: 16 lowercase hex digits.
///
/// Each ID is the process's call counter, offset by a key drawn once per process and mixed with
/// SplitMix64's finalizer, which maps 64-bit values one to one: no two calls of a process share
/// an ID, two processes almost never do, and making one costs an atomic add instead of the
/// `getrandom` system call a random number per call cost. The IDs are not secrets: someone who
/// sees one may work out the next.
package enum RequestID {
    private static let key = UInt64.random(in: UInt64.min...UInt64.max)
    private static let counter = Atomic<UInt64>(0)
    private static let digits = Array("0123456789abcdef".utf8)

    /// The next ID of this process.
    package static func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return hexadecimal(mix(count &+ key))
    }

    /// SplitMix64's finalizer: a bijection of `UInt64` that spreads every input bit over the
    /// output.
    package static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }

    /// `value` as exactly 16 lowercase hex digits.
    package static func hexadecimal(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                buffer[index] = digits[Int((value >> UInt64(60 - 4 * index)) & 0xf)]
            }
            return 16
        }
    }
}
