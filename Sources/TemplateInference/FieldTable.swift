/// The keys of an object place and their fields, in the order they were first seen, found by a
/// hash cheaper than `Hasher`'s.
///
/// Recording merges every key of every object of every sampled response, so the lookup of a
/// key's field is most of a merge's cost. `Dictionary` hashes each key with SipHash; keys are
/// short, so FNV-1a over their UTF-8 bytes, from a seed chosen at random per process (a server
/// cannot aim keys at one slot without knowing it), costs a fraction of that. A place holds at
/// most `InferenceOptions.maximumKeysPerObject` keys, which also bounds any chain of collisions.
struct FieldTable: Sendable {
    /// The keys, in the order they were first seen.
    private(set) var keys: [String] = []
    /// The fields, at the positions of their keys.
    private(set) var fields: [ShapeNode.Field] = []
    /// Open addressing: a key's position plus one, or 0 for an empty slot. A power of two long,
    /// at least twice the keys.
    private var slots: [Int32] = []

    private static let seed = UInt64.random(in: .min ... .max) | 1

    /// How many keys the place has.
    var count: Int { keys.count }

    /// The position of `key`, or nil.
    func position(of key: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Self.hash(key) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return nil }
            if keys[entry - 1] == key { return entry - 1 }
            slot = (slot + 1) & mask
        }
    }

    /// The field at `position`, changed in place.
    subscript(position: Int) -> ShapeNode.Field {
        get { fields[position] }
        _modify { yield &fields[position] }
    }

    /// Adds a key that is not in the table yet.
    mutating func append(_ key: String, _ field: ShapeNode.Field) {
        keys.append(key)
        fields.append(field)
        if slots.count < keys.count * 2 {
            rehash(capacity: max(16, slots.count * 2))
        } else {
            insertSlot(keys.count - 1)
        }
    }

    /// Every key and field, in the order first seen.
    var entries: Zip2Sequence<[String], [ShapeNode.Field]> { zip(keys, fields) }

    private mutating func rehash(capacity: Int) {
        slots = [Int32](repeating: 0, count: capacity)
        for position in keys.indices { insertSlot(position) }
    }

    private mutating func insertSlot(_ position: Int) {
        let mask = slots.count - 1
        var slot = Self.hash(keys[position]) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(position + 1)
    }

    /// FNV-1a of the key's UTF-8 bytes from the process's seed, folded to an `Int`.
    private static func hash(_ key: String) -> Int {
        var hash = seed
        var key = key
        key.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
