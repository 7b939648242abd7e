/// A key of an object being parsed, waiting on the key stack until its object closes: a
/// trivial value (no reference counting), whose string the key table holds.
struct PendingKey {
    /// The key's number in the parser's key table: equal numbers mean equal keys.
    var id: Int
    /// The byte offset of the key's opening quote, where a duplicate key is reported.
    var offset: Int
}

/// A direct-mapped cache of short strings by their bytes: JSON repeats its keys (and many
/// short values) in every object, and a hit costs two word compares instead of validating and
/// building a new `String`; a collision replaces the entry.
///
/// As a key table, it also numbers keys: every key put in gets a number of its own (its
/// position in `names`), so equal numbers mean equal keys. A key too long to intern, or
/// escaped, gets a new number each time it occurs (`name(_:)`), which only means that its
/// object's shape is not recognized.
final class InternTable {
    /// The longest string kept: two 64-bit words.
    static let maxLength = 16

    /// Where a string's bytes would be found: its words, length and slot.
    struct Probe {
        var low: UInt64
        var high: UInt64
        var length: Int
        var slot: Int
    }

    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var length = -1
        var id = -1
        var string = ""
    }

    private let entries: UnsafeMutablePointer<Entry>
    private let mask: Int
    private let shift: UInt64
    /// The keys numbered so far, by number (used as a key table only).
    private(set) var names: [String] = []

    /// The slot count for an input of `size` bytes: about one slot per 64 bytes, 16 to 512.
    static func slots(forInputSize size: Int) -> Int {
        var slots = 16
        while slots < 512, slots * 64 < size { slots *= 2 }
        return slots
    }

    /// A table of `slots` entries (a power of two).
    init(slots: Int) {
        entries = .allocate(capacity: slots)
        entries.initialize(repeating: Entry(), count: slots)
        mask = slots - 1
        shift = UInt64(64 - slots.trailingZeroBitCount)
    }

    deinit {
        entries.deinitialize(count: mask + 1)
        entries.deallocate()
    }

    /// Reads the string `bytes[start..<end]` (at most `maxLength` bytes) for `hit` and `insert`.
    @inline(__always)
    func probe(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Probe {
        let length = end - start
        var low: UInt64 = 0
        var high: UInt64 = 0
        if start + 16 <= bytes.count {
            // Whole words, then the bytes beyond the string masked off.
            let raw = UnsafeRawPointer(bytes.baseAddress! + start)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if length < 8 {
                low &= (1 &<< UInt64(length * 8)) &- 1
                high = 0
            } else if length < 16 {
                high &= (1 &<< UInt64((length - 8) * 8)) &- 1
            }
        } else {
            // Near the end of the input: byte by byte.
            for offset in 0..<length {
                let byte = UInt64(bytes[start + offset])
                if offset < 8 {
                    low |= byte << UInt64(offset * 8)
                } else {
                    high |= byte << UInt64((offset - 8) * 8)
                }
            }
        }
        let mixed = (low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(length)) &* 0xFF51_AFD7_ED55_8CCD
        return Probe(low: low, high: high, length: length, slot: Int(truncatingIfNeeded: mixed >> shift) & mask)
    }

    /// The number of `probe`'s bytes (a key), if the table holds them.
    @inline(__always)
    func hitID(_ probe: Probe) -> Int? {
        let entry = entries + probe.slot
        guard entry.pointee.length == probe.length, entry.pointee.low == probe.low, entry.pointee.high == probe.high else { return nil }
        return entry.pointee.id
    }

    /// The string and number of `probe`'s bytes, if the table holds them.
    @inline(__always)
    func hit(_ probe: Probe) -> (string: String, id: Int)? {
        let entry = entries + probe.slot
        guard entry.pointee.length == probe.length, entry.pointee.low == probe.low, entry.pointee.high == probe.high else { return nil }
        return (entry.pointee.string, entry.pointee.id)
    }

    /// Puts `string` (whose bytes `probe` read) in the table; returns its new number.
    func insert(_ probe: Probe, _ string: String) -> Int {
        let id = names.count
        names.append(string)
        entries[probe.slot] = Entry(low: probe.low, high: probe.high, length: probe.length, id: id, string: string)
        return id
    }

    /// Puts a short string value in the table (no number).
    func insertValue(_ probe: Probe, _ string: String) {
        entries[probe.slot] = Entry(low: probe.low, high: probe.high, length: probe.length, id: -1, string: string)
    }

    /// Numbers a key that is not interned; returns its new number.
    func name(_ string: String) -> Int {
        names.append(string)
        return names.count - 1
    }
}

/// The object shapes (key sequences) a parse has met, direct-mapped by a hash of their key
/// numbers. A shape seen once is only remembered; seen again, it gets a prototype: a
/// dictionary from each key to its position in the sequence, whose `mapValues` builds an
/// object of that shape without hashing its keys.
final class ShapeTable {
    /// The most keys an object may have to be built from a shape.
    static let maxKeys = 64

    private struct Entry {
        var hash: UInt64 = 0
        var ids: [Int] = []
        var prototype: [String: Int]?
    }

    private let entries: UnsafeMutablePointer<Entry>
    private let mask: Int

    /// A table of `slots` entries (a power of two).
    init(slots: Int) {
        entries = .allocate(capacity: slots)
        entries.initialize(repeating: Entry(), count: slots)
        mask = slots - 1
    }

    deinit {
        entries.deinitialize(count: mask + 1)
        entries.deallocate()
    }

    /// The slot of the shape with `hash`.
    func slot(for hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 40) & mask
    }

    /// Whether the shape in `slot` is the key sequence on `keys` from `start` on.
    @inline(__always)
    func matches(_ slot: Int, hash: UInt64, keys: ScratchStack<PendingKey>, from start: Int) -> Bool {
        let entry = entries + slot
        guard entry.pointee.hash == hash, entry.pointee.ids.count == keys.count - start else { return false }
        return entry.pointee.ids.withUnsafeBufferPointer { ids in
            for (offset, id) in ids.enumerated() where keys.id(at: start + offset) != id { return false }
            return true
        }
    }

    /// Remembers the key sequence on `keys` from `start` on (`count` keys, all distinct) in `slot`.
    func record(_ slot: Int, hash: UInt64, keys: ScratchStack<PendingKey>, from start: Int, count: Int) {
        entries[slot] = Entry(hash: hash, ids: (0..<count).map { keys.id(at: start + $0) }, prototype: nil)
    }

    /// The prototype of the shape in `slot`, which matches the key sequence on `keys` from
    /// `start` on (`count` keys, distinct since an object of this shape was built before).
    func prototype(_ slot: Int, keys: ScratchStack<PendingKey>, from start: Int, count: Int, names: [String]) -> [String: Int] {
        if let prototype = entries[slot].prototype { return prototype }
        var prototype = [String: Int](minimumCapacity: count)
        for offset in 0..<count { prototype[names[keys.id(at: start + offset)]] = offset }
        entries[slot].prototype = prototype
        return prototype
    }
}

extension ScratchStack where Element == PendingKey {
    /// The number of the key at `position`.
    @inline(__always)
    func id(at position: Int) -> Int { pointer(at: position).pointee.id }

    /// A hash of the numbers of the keys from `start` on.
    @inline(__always)
    func shapeHash(from start: Int) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: count - start) &* 0x9E37_79B9_7F4A_7C15
        for position in start..<count {
            hash = (hash ^ UInt64(truncatingIfNeeded: id(at: position))) &* 0xFF51_AFD7_ED55_8CCD
        }
        return hash ^ (hash >> 29)
    }
}

/// A stack of values in one growing buffer, whose elements are moved in and out (never copied):
/// the parser's scratch space for the members of open containers.
///
/// Elements `0..<count` are initialized. A caller that `take`s elements must then drop them
/// with `dropTaken`, which deinitializes those it did not take.
final class ScratchStack<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// How many elements are on the stack.
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Pushes `element`.
    @inline(__always)
    func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// The element at `position`, in place.
    @inline(__always)
    func pointer(at position: Int) -> UnsafeMutablePointer<Element> {
        base + position
    }

    /// Moves the element at `position` out, leaving its slot uninitialized.
    @inline(__always)
    func take(_ position: Int) -> Element {
        (base + position).move()
    }

    /// Pops every element from `start` on, of which the first `taken` were taken already.
    func dropTaken(from start: Int, taken: Int) {
        let rest = start + taken
        if rest < count { (base + rest).deinitialize(count: count - rest) }
        count = start
    }

    /// Pops every element from `start` on.
    func drop(from start: Int) {
        dropTaken(from: start, taken: 0)
    }

    /// Pops every element from `start` on into an array of exactly their number.
    ///
    /// Reserved and appended to rather than `Array(unsafeUninitializedCapacity:)`, whose
    /// allocation runs unspecialized in the standard library (a generic metadata lookup per array).
    func moveOut(from start: Int) -> [Element] {
        var array: [Element] = []
        array.reserveCapacity(count - start)
        for position in start..<count { array.append((base + position).move()) }
        count = start
        return array
    }

    private func grow() {
        let larger = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = larger
    }
}
