/// The responses an `HTTPCache` keeps in memory, within a byte bound: the least recently used
/// entry goes first. Not locked: its owner (`HTTPCache`) holds it under its lock.
struct MemoryCacheStore {
    private struct Node {
        var entry: CachedResponse
        var newer: String?
        var older: String?
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
        if let stored = nodes[key]?.entry, entry.byteCount <= maximumBytes {
            // The same key again (a 304 freshened it): the node and the URL's keys stay.
            nodes[key]?.entry = entry
            bytes += entry.byteCount - stored.byteCount
            if newest != key {
                unlink(key)
                link(key, entry)
            }
        } else {
            remove(key)
            guard entry.byteCount <= maximumBytes else { return [] }
            link(key, entry)
            bytes += entry.byteCount
            keysByURL[entry.url, default: []].insert(key)
        }
        var evicted: [CachedResponse] = []
        while bytes > maximumBytes, let victim = oldest, victim != key {
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
        bytes -= node.entry.byteCount
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

    private mutating func link(_ key: String, _ entry: CachedResponse) {
        nodes[key] = Node(entry: entry, newer: nil, older: newest)
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
