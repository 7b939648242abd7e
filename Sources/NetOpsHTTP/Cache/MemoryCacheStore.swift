import NetOps

/// The responses an `HTTPCache` keeps in memory, within a byte bound: the least recently used
/// entry goes first. An entry counts its size (`CachedResponse.byteCount`) and, for each value
/// made from its body and kept with it (`DerivedValues`, an API call's mapped model), its body's
/// size again. Not locked: its owner (`HTTPCache`) holds it under its lock.
struct MemoryCacheStore {
    private struct Node {
        var entry: CachedResponse
        var newer: String?
        var older: String?
        /// The bytes counted for the values made from the body.
        var derivedBytes = 0
    }

    private var nodes: [String: Node] = [:]
    /// The URLs' keys, for invalidation by URL whatever the partition.
    private var keysByURL: [String: Set<String>] = [:]
    private var newest: String?
    private var oldest: String?
    private(set) var bytes = 0
    let maximumBytes: Int

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    var count: Int { nodes.count }

    static func key(url: String, partition: String) -> String { url + "\n" + partition }

    /// Whether an entry is kept under `key` (its place in the order does not change).
    func contains(_ key: String) -> Bool { nodes[key] != nil }

    /// The entry under `key`, made the most recently used.
    mutating func entry(for key: String) -> CachedResponse? {
        guard let node = nodes[key] else { return nil }
        if newest != key {
            unlink(key)
            link(key, node.entry)
        }
        return node.entry
    }

    /// Stores `entry` as the most recently used; returns the entries evicted to stay within the
    /// bound (an entry larger than the whole bound is not kept).
    @discardableResult
    mutating func store(_ entry: CachedResponse) -> [CachedResponse] {
        let key = Self.key(url: entry.url, partition: entry.partition)
        let derivedBytes = entry.derived.count * entry.body.count
        if let node = nodes[key], entry.byteCount <= maximumBytes {
            // The same key again (a 304 freshened it): the node and the URL's keys stay.
            nodes[key]?.entry = entry
            nodes[key]?.derivedBytes = derivedBytes
            bytes += entry.byteCount - node.entry.byteCount + derivedBytes - node.derivedBytes
            if newest != key {
                unlink(key)
                link(key, entry, derivedBytes: derivedBytes)
            }
        } else {
            remove(key)
            guard entry.byteCount <= maximumBytes else { return [] }
            link(key, entry, derivedBytes: derivedBytes)
            bytes += entry.byteCount + derivedBytes
            keysByURL[entry.url, default: []].insert(key)
        }
        var evicted: [CachedResponse] = []
        while bytes > maximumBytes, let victim = oldest, victim != key {
            if let removed = remove(victim) { evicted.append(removed) }
        }
        return evicted
    }

    /// Counts `change` more bytes for the values made from the body of the entry under `key`,
    /// when that entry still keeps `derived`; returns the entries evicted to stay within the
    /// bound (the entry itself last).
    mutating func charge(_ change: Int, to key: String, derived: DerivedValues) -> [CachedResponse] {
        guard let node = nodes[key], node.entry.derived === derived else { return [] }
        nodes[key]?.derivedBytes = max(0, node.derivedBytes + change)
        bytes += max(0, node.derivedBytes + change) - node.derivedBytes
        var evicted: [CachedResponse] = []
        while bytes > maximumBytes, let victim = oldest {
            if let removed = remove(victim) { evicted.append(removed) }
        }
        return evicted
    }

    /// Removes the entry under `key`.
    @discardableResult
    mutating func remove(_ key: String) -> CachedResponse? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        nodes[key] = nil
        bytes -= node.entry.byteCount + node.derivedBytes
        keysByURL[node.entry.url]?.remove(key)
        if keysByURL[node.entry.url]?.isEmpty == true { keysByURL[node.entry.url] = nil }
        return node.entry
    }

    /// Removes every entry of `url`, whatever its partition; returns how many.
    mutating func removeAll(url: String) -> Int {
        let keys = keysByURL[url] ?? []
        for key in keys { remove(key) }
        return keys.count
    }

    mutating func removeAll() {
        self = MemoryCacheStore(maximumBytes: maximumBytes)
    }

    private mutating func link(_ key: String, _ entry: CachedResponse, derivedBytes: Int? = nil) {
        nodes[key] = Node(entry: entry, newer: nil, older: newest, derivedBytes: derivedBytes ?? nodes[key]?.derivedBytes ?? 0)
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }

    private mutating func unlink(_ key: String) {
        guard let node = nodes[key] else { return }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        nodes[key]?.newer = nil
        nodes[key]?.older = nil
    }
}
