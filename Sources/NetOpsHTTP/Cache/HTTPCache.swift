import Crypto
import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) as a stage of the chain: fresh responses answer without a
/// request, stale ones are revalidated with `If-None-Match` / `If-Modified-Since`, and a 304
/// becomes the stored response.
///
/// What it stores: the answer to a GET without a body that arrived whole, with a status RFC 9110
/// calls cacheable, not marked `no-store`, not `Vary: *`, not partial, not after a redirect,
/// no larger than `Configuration.maximumEntryBytes`, and worth keeping — an explicit lifetime
/// (`max-age`, `Expires`) or a validator (`ETag`, `Last-Modified`). Nothing is fresh by
/// heuristics: without a lifetime, an entry is revalidated every time. `s-maxage` and
/// `public`/`private` are for shared caches and do not matter here.
///
/// Keys: the URL and a digest of every request header field except trace context (W3C
/// `baggage` is kept: it may carry a tenant), request IDs and the cache's own directives, and of what the request presents outside its fields: the
/// engine, the TLS client certificate and trust roots, the proxy. Two requests with different
/// tokens, cookies, client certificates, proxies or any other field never share an entry; no
/// token is kept in a key or written to disk.
///
/// What it honours: a request's `no-store` (bypass), `no-cache` and `max-age=0` (revalidate),
/// `max-age`, `min-fresh`, `max-stale`, `only-if-cached` (a 504 when nothing fits); a
/// response's `no-store`, `no-cache`, `max-age` (capped at `maximumFreshness`), `Expires`,
/// `must-revalidate`, `Age` and `Date`. A request that brings conditions or a `Range` of its own
/// goes past the cache untouched. A PUT, POST, DELETE or PATCH answered with a 2xx or 3xx
/// removes the entries of its URL, and of its `Location` and `Content-Location` on the same
/// origin (RFC 9111 §4.4).
///
/// The entries live in memory within `maximumMemoryBytes` (least recently used first out; a
/// value made from a body and kept with it, an API call's model, counts as the body's size
/// again) and, when the configuration names a folder, on disk too (`maximumDiskBytes`), where
/// they survive a restart. The folder is read and written on queues of the cache's, never on
/// the thread that starts or answers a request. An API scope takes one with `APIScope.Configuration.cache`; give each
/// scope its own.
///
/// ```swift
/// let cache = try HTTPCache(configuration: .init(directory: cacheFolder))
/// let issues = DTO.get(url).use(cache)
/// ```
public final class HTTPCache: NetworkMiddleware, Sendable {
    /// Where and how much the cache keeps.
    public struct Configuration: Sendable, Equatable {
        /// Bytes of entries kept in memory (default 32 MiB).
        public var maximumMemoryBytes: Int
        /// The largest body stored (default 4 MiB); larger answers pass through unstored.
        public var maximumEntryBytes: Int
        /// The folder entries are also written to (made with mode 0700 if missing), or nil to
        /// keep them in memory only (the default).
        public var directory: URL?
        /// Bytes of entries kept in `directory` (default 256 MiB).
        public var maximumDiskBytes: Int
        /// The longest a response stays fresh, whatever its `max-age` or `Expires` say
        /// (default one day).
        public var maximumFreshness: TimeInterval
        /// Header fields, lower case, left out of the key (default: trace context and request
        /// IDs, as `RequestCoalescer` leaves them out). A credential (a name the standard
        /// `Redaction` calls secret: `Authorization`, `Cookie`, `X-Api-Key`…) is dropped from it:
        /// two tokens never share an entry.
        public var ignoredHeaders: Set<String>
        /// The longest an entry is kept, fresh or stale, since the server last sent or confirmed
        /// it (default 7 days): an older one is never served nor revalidated, and its file is
        /// deleted when the folder is opened. Revalidation keeps a stale entry useful, but an
        /// answer kept for months is a copy of someone's data nobody asked to keep.
        public var maximumStoredAge: TimeInterval

        /// A configuration; every part has a default.
        public init(
            maximumMemoryBytes: Int = 32 << 20, maximumEntryBytes: Int = 4 << 20, directory: URL? = nil,
            maximumDiskBytes: Int = 256 << 20, maximumFreshness: TimeInterval = 86_400,
            ignoredHeaders: Set<String> = RequestCoalescer.Configuration.standardIgnoredHeaders,
            maximumStoredAge: TimeInterval = 7 * 86_400
        ) {
            self.maximumMemoryBytes = max(0, maximumMemoryBytes)
            self.maximumEntryBytes = max(0, maximumEntryBytes)
            self.directory = directory
            self.maximumDiskBytes = max(0, maximumDiskBytes)
            self.maximumFreshness = max(0, maximumFreshness)
            self.ignoredHeaders = RequestCoalescer.Configuration.ignorable(ignoredHeaders)
            self.maximumStoredAge = max(0, maximumStoredAge)
        }
    }

    /// How the cache took part in one request.
    public enum Outcome: String, Sendable {
        /// A fresh entry answered; nothing was sent.
        case hit
        /// A stale entry was revalidated: the server answered 304 and the entry answered.
        case revalidated
        /// The network answered (nothing stored fitted, or the server sent a new answer).
        case miss
        /// The request is not one the cache takes part in (a body, a `Range`, conditions of
        /// its own, `no-store`, a file download).
        case bypass
    }

    /// What the cache did so far.
    public struct Statistics: Sendable, Equatable {
        /// Requests answered by a fresh entry.
        public var hits = 0
        /// Requests answered by an entry a 304 freshened.
        public var revalidations = 0
        /// Requests the network answered.
        public var misses = 0
        /// Responses stored.
        public var stores = 0
        /// Entries removed because an unsafe request changed their URL.
        public var invalidations = 0
        /// Entries evicted from memory to stay within its bound.
        public var evictions = 0
        /// Writes to the folder that failed (it is full or read-only); the memory cache goes on.
        public var diskWriteFailures = 0
        /// Writes to the folder not made because the writes waiting already held
        /// `maximumMemoryBytes` (the folder is slower than the answers arrive).
        public var diskWritesSkipped = 0
    }

    private struct State {
        var memory: MemoryCacheStore
        var statistics = Statistics()
    }

    /// The cache's settings.
    public let configuration: Configuration
    private let state: Locked<State>
    private let disk: DiskCacheStore?
    /// The text of the last partition digested, and its digest.
    private let lastPartition = Locked<(text: String, digest: String)?>(nil)

    /// A cache; throws when `configuration.directory` cannot be used safely: it cannot be made,
    /// is not a folder, belongs to another user or others may write to it.
    public init(configuration: Configuration = Configuration()) throws(HTTPCacheError) {
        self.configuration = configuration
        let state = Locked(State(memory: MemoryCacheStore(maximumBytes: configuration.maximumMemoryBytes)))
        self.state = state
        if let directory = configuration.directory {
            disk = try DiskCacheStore(
                directory: directory, maximumBytes: configuration.maximumDiskBytes,
                maximumFreshness: configuration.maximumFreshness, maximumAge: configuration.maximumStoredAge,
                maximumPendingBytes: configuration.maximumMemoryBytes,
                onWriteSkipped: { state.withLock { $0.statistics.diskWritesSkipped += 1 } },
                onWriteFailure: { _ in state.withLock { $0.statistics.diskWriteFailures += 1 } })
        } else {
            disk = nil
        }
    }

    /// What the cache did so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Entries in memory, and the bytes they hold.
    public var memoryUsage: (entries: Int, bytes: Int) { state.withLock { ($0.memory.count, $0.memory.bytes) } }

    /// Entries in the folder, and the bytes their files hold (0 without a folder).
    public var diskUsage: (entries: Int, bytes: Int) { disk.map { ($0.count, $0.bytes) } ?? (0, 0) }

    /// Forgets every entry, in memory and on disk.
    public func removeAll() {
        state.withLock { $0.memory.removeAll() }
        disk?.removeAll()
    }

    /// Removes the entries of `url`, whatever the request headers they were stored for.
    public func remove(_ url: URL) {
        invalidate(Self.key(url))
    }

    /// Returns once every write to the folder asked for so far is done (for tests and an
    /// orderly shutdown).
    public func flush() {
        disk?.flush()
    }

    // MARK: Lookups

    /// Whether the entry for `url` and `partition` must be read from the folder: it is not in
    /// memory, and the folder has a file for it.
    func needsDiskRead(url: String, partition: String) -> Bool {
        guard let disk, disk.holds(url: url, partition: partition) else { return false }
        let key = MemoryCacheStore.key(url: url, partition: partition)
        return state.withLock { !$0.memory.contains(key) }
    }

    /// Runs `work` where the folder is read: never on the thread that starts a transfer (an
    /// event loop, maybe).
    func onDiskReader(_ work: @escaping @Sendable () -> Void) {
        guard let disk else { return work() }
        disk.reader.async(execute: work)
    }

    /// The stored entry for `url` and `partition`: from memory, else from the folder (then
    /// kept in memory too); nil, and the entry forgotten, when it is older than
    /// `maximumStoredAge`.
    func entry(url: String, partition: String, now: Date = Date()) -> CachedResponse? {
        let key = MemoryCacheStore.key(url: url, partition: partition)
        let found: CachedResponse
        if let kept = state.withLock({ $0.memory.entry(for: key) }) {
            found = kept
        } else {
            guard let read = disk?.entry(url: url, partition: partition) else { return nil }
            found = read
            if !isTooOld(read, now: now) {
                state.withLock { state in
                    state.statistics.evictions += state.memory.store(read).count
                }
            }
        }
        guard !isTooOld(found, now: now) else {
            forget(url: url, partition: partition)
            return nil
        }
        return found
    }

    /// Whether the server sent or confirmed `entry` longer than `maximumStoredAge` ago.
    private func isTooOld(_ entry: CachedResponse, now: Date) -> Bool {
        now.timeIntervalSince(entry.responseTime) > configuration.maximumStoredAge
    }

    /// Keeps `entry` in memory and on disk. A value made from its body later (an API call's
    /// model) counts in the memory bound as the body's size again.
    func store(_ entry: CachedResponse) {
        let key = MemoryCacheStore.key(url: entry.url, partition: entry.partition)
        let derived = entry.derived
        let bodyBytes = entry.body.count
        // Watched before it is stored: a value made meanwhile is counted by the store. The
        // closure holds neither the entry nor the values (they hold it).
        derived.watch { [weak self, weak derived] change in
            guard let derived else { return }
            self?.state.withLock { state in
                state.statistics.evictions += state.memory.charge(change * bodyBytes, to: key, derived: derived).count
            }
        }
        state.withLock { state in
            state.statistics.stores += 1
            state.statistics.evictions += state.memory.store(entry).count
        }
        disk?.store(entry)
    }

    /// Forgets the entry of `url` and `partition` (a 304 that matched no stored validator).
    func forget(url: String, partition: String) {
        _ = state.withLock { $0.memory.remove(MemoryCacheStore.key(url: url, partition: partition)) }
        disk?.remove(url: url, partition: partition)
    }

    /// Forgets every entry of `url` (an unsafe request changed it).
    func invalidate(_ url: String) {
        state.withLock { state in
            state.statistics.invalidations += state.memory.removeAll(url: url)
        }
        disk?.removeAll(url: url)
    }

    func count(_ outcome: Outcome) {
        state.withLock { state in
            switch outcome {
            case .hit: state.statistics.hits += 1
            case .revalidated: state.statistics.revalidations += 1
            case .miss: state.statistics.misses += 1
            case .bypass: break
            }
        }
    }

    // MARK: Keys

    /// The URL as a key: without its fragment.
    static func key(_ url: URL) -> String {
        let text = url.absoluteString
        // By UTF-8 code unit: a search by `Character` segments the whole URL into graphemes.
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    /// The digest of what may change `request`'s answer: its header fields — all of them but the
    /// ignored ones, `contextHeaders`, the cache's own directives and conditions — whether it
    /// follows redirects, and who it is to the server beyond its fields (`transport`: the
    /// engine, client certificate, trust and proxy).
    func partition(of request: URLRequest, contextHeaders: Set<String>, followsRedirects: Bool, transport: String = "") -> String {
        var fields: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            let lowered = name.lowercased()
            if configuration.ignoredHeaders.contains(lowered) || contextHeaders.contains(lowered) || Self.directiveFields.contains(lowered) {
                continue
            }
            fields.append(lowered + ":" + value)
        }
        fields.sort()
        fields.append(followsRedirects ? "redirects:follow" : "redirects:stop")
        fields.append("transport:" + transport)
        let text = fields.joined(separator: "\n")
        // Calls of one API mostly send the same fields: the last digest is kept.
        if let digest = lastPartition.withLock({ $0?.text == text ? $0?.digest : nil }) { return digest }
        let digest = Self.hex(SHA256.hash(data: Data(text.utf8)))
        lastPartition.withLock { $0 = (text, digest) }
        return digest
    }

    /// A digest as lower-case hex.
    static func hex(_ digest: SHA256.Digest) -> String {
        String(unsafeUninitializedCapacity: SHA256.byteCount * 2) { text in
            var index = 0
            for byte in digest {
                text[index] = hexDigits[Int(byte >> 4)]
                text[index + 1] = hexDigits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Fields that steer the cache rather than ask for another answer.
    private static let directiveFields: Set<String> = ["cache-control", "pragma"]
}

/// Why an `HTTPCache` could not be made.
public enum HTTPCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configured folder cannot hold the cache safely.
    case unusableDirectory(path: String, reason: String)

    /// The reason, naming the folder.
    public var description: String {
        switch self {
        case let .unusableDirectory(path, reason): "the HTTP cache folder \(path) cannot be used: \(reason)"
        }
    }
}
