import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The private HTTP cache against DemoServer's `/cacheable/{key}`: fresh entries answer without
/// a request, stale ones are revalidated, a 304 stands for the stored answer, unsafe requests
/// invalidate, and no token's answer reaches another.
@Suite(.timeLimit(.minutes(2)))
struct HTTPCacheTests {
    struct Stats: Decodable, Equatable {
        var served: Int
        var notModified: Int
        var conditional: Int
    }

    /// A resource of its own for each test.
    static func resource(_ query: String) async throws -> (url: URL, key: String) {
        let key = UUID().uuidString
        return (try await TestServer.url("cacheable/\(key)\(query.isEmpty ? "" : "?" + query)"), key)
    }

    static func stats(_ key: String) async throws -> Stats {
        let operation = DTO.get(try await TestServer.url("cacheable-stats/\(key)"))
        try await operation.run()
        return try JSONDecoder().decode(Stats.self, from: operation.receivedData)
    }

    /// Runs a GET of `url` through `cache` and returns it ended.
    @discardableResult
    static func get(_ url: URL, _ cache: HTTPCache, _ engine: TestEngine, headers: [String: String] = [:]) async throws -> DataTaskOperation {
        let operation = DTO.get(url, headers: headers).use(cache).on(engine)
        try await operation.run()
        return operation
    }

    static func cacheUse(_ operation: BaseOperation) -> HTTPCache.Outcome? {
        operation.values[HTTPCache.OutcomeKey.self]
    }

    static func version(_ operation: DataTaskOperation) throws -> Int {
        let object = try JSONSerialization.jsonObject(with: operation.receivedData) as? [String: Any]
        return try #require(object?["version"] as? Int)
    }

    @Test(arguments: TestEngine.allCases) func aFreshEntryAnswersWithoutARequest(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=600&items=3")
        let cache = try HTTPCache()
        let first = try await Self.get(url, cache, engine)
        let second = try await Self.get(url, cache, engine)
        #expect(try await Self.stats(key) == Stats(served: 1, notModified: 0, conditional: 0))
        #expect(Self.cacheUse(first) == .miss)
        #expect(Self.cacheUse(second) == .hit)
        #expect(second.statusCode == 200)
        #expect(second.receivedData == first.receivedData)
        #expect(second.response?.value(forHTTPHeaderField: "Age") != nil)
        #expect(second.response?.value(forHTTPHeaderField: "Cache-Control") == "max-age=600")
        #expect(cache.statistics.hits == 1 && cache.statistics.misses == 1 && cache.statistics.stores == 1)
    }

    @Test(arguments: TestEngine.allCases) func aStaleEntryIsRevalidatedAndA304StandsForIt(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=0&etag=1&items=2")
        let cache = try HTTPCache()
        let first = try await Self.get(url, cache, engine)
        let second = try await Self.get(url, cache, engine)
        #expect(try await Self.stats(key) == Stats(served: 1, notModified: 1, conditional: 1))
        #expect(Self.cacheUse(second) == .revalidated)
        #expect(second.statusCode == 200, "the operation sees the stored answer, not the 304")
        #expect(second.receivedData == first.receivedData)
        #expect(second.response?.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(cache.statistics.revalidations == 1)
    }

    @Test func lastModifiedAloneIsAValidatorToo() async throws {
        let (url, key) = try await Self.resource("lastModified=1")
        let cache = try HTTPCache()
        try await Self.get(url, cache, .nio)
        let second = try await Self.get(url, cache, .nio)
        #expect(Self.cacheUse(second) == .revalidated)
        #expect(try await Self.stats(key) == Stats(served: 1, notModified: 1, conditional: 1))
    }

    @Test(arguments: TestEngine.allCases) func aChangedResourceReplacesTheEntry(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=0&etag=1")
        let cache = try HTTPCache()
        try await Self.get(url, cache, engine)
        // Changed behind the cache's back: the revalidation gets the new version.
        try await DTO.put(url).on(engine).run()
        let second = try await Self.get(url, cache, engine)
        #expect(try Self.version(second) == 2)
        #expect(Self.cacheUse(second) == .miss)
        let third = try await Self.get(url, cache, engine)
        #expect(Self.cacheUse(third) == .revalidated)
        #expect(try Self.version(third) == 2)
        #expect(try await Self.stats(key) == Stats(served: 2, notModified: 1, conditional: 2))
    }

    @Test(arguments: TestEngine.allCases) func anUnsafeRequestInvalidatesItsURLAndItsLocation(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=600")
        let other = UUID().uuidString
        let otherURL = try await TestServer.url("cacheable/\(other)?maxAge=600")
        let cache = try HTTPCache()
        try await Self.get(url, cache, engine)
        try await Self.get(otherURL, cache, engine)
        #expect(cache.memoryUsage.entries == 2)
        try await DTO.post(try await TestServer.url("cacheable/\(key)?location=\(other)%3FmaxAge%3D600")).use(cache).on(engine).run()
        // The POST's URL has a query the GET's has not: the Location names `other`.
        #expect(cache.memoryUsage.entries == 1)
        try await DTO.delete(url).use(cache).on(engine).run()
        #expect(cache.memoryUsage.entries == 0)
        let again = try await Self.get(url, cache, engine)
        #expect(Self.cacheUse(again) == .miss)
        #expect(try Self.version(again) == 3)
        #expect(cache.statistics.invalidations == 2)
    }

    @Test func twoTokensNeverShareAnEntry() async throws {
        let (url, key) = try await Self.resource("maxAge=600")
        let cache = try HTTPCache()
        try await Self.get(url, cache, .nio, headers: ["Authorization": "Bearer alice"])
        let bob = try await Self.get(url, cache, .nio, headers: ["Authorization": "Bearer bob"])
        #expect(Self.cacheUse(bob) == .miss)
        let noToken = try await Self.get(url, cache, .nio)
        #expect(Self.cacheUse(noToken) == .miss)
        let aliceAgain = try await Self.get(url, cache, .nio, headers: ["Authorization": "Bearer alice"])
        #expect(Self.cacheUse(aliceAgain) == .hit)
        // Trace context does not split entries.
        let traced = try await Self.get(url, cache, .nio, headers: ["Authorization": "Bearer alice", "traceparent": "00-1-2-01"])
        #expect(Self.cacheUse(traced) == .hit)
        #expect(try await Self.stats(key).served == 3)
    }

    @Test(arguments: ["cacheControl=no-store", "maxAge=600&vary=*", "items=1"])
    func answersWorthNothingOrForbiddenAreNotStored(_ query: String) async throws {
        let (url, key) = try await Self.resource(query)
        let cache = try HTTPCache()
        try await Self.get(url, cache, .nio)
        try await Self.get(url, cache, .nio)
        #expect(try await Self.stats(key).served == 2)
        #expect(cache.memoryUsage.entries == 0)
    }

    @Test func theRequestsOwnDirectivesAreHonoured() async throws {
        let (url, key) = try await Self.resource("maxAge=600&etag=1")
        let cache = try HTTPCache()
        try await Self.get(url, cache, .nio)
        let noCache = try await Self.get(url, cache, .nio, headers: ["Cache-Control": "no-cache"])
        #expect(Self.cacheUse(noCache) == .revalidated)
        let maxAgeZero = try await Self.get(url, cache, .nio, headers: ["Cache-Control": "max-age=0"])
        #expect(Self.cacheUse(maxAgeZero) == .revalidated)
        let noStore = try await Self.get(url, cache, .nio, headers: ["Cache-Control": "no-store"])
        #expect(Self.cacheUse(noStore) == .bypass)
        let ranged = try await Self.get(url, cache, .nio, headers: ["Range": "bytes=0-3"])
        #expect(Self.cacheUse(ranged) == .bypass)
        #expect(try await Self.stats(key) == Stats(served: 3, notModified: 2, conditional: 2))
    }

    @Test func onlyIfCachedWithNothingStoredIsA504() async throws {
        let (url, key) = try await Self.resource("maxAge=600")
        let cache = try HTTPCache()
        let operation = DTO.get(url, headers: ["Cache-Control": "only-if-cached"]).use(cache)
        _ = try? await operation.run()
        #expect(operation.statusCode == 504)
        #expect(operation.error?.httpStatus == 504)
        #expect(try await Self.stats(key).served == 0)
    }

    @Test func a304ThatMatchesNoStoredValidatorIsAskedAgainWithoutConditions() async throws {
        let (url, key) = try await Self.resource("maxAge=0&etag=1&wrongTag=1")
        let cache = try HTTPCache()
        let first = try await Self.get(url, cache, .nio)
        let second = try await Self.get(url, cache, .nio)
        #expect(second.statusCode == 200)
        #expect(second.receivedData == first.receivedData)
        #expect(Self.cacheUse(second) == .miss)
        #expect(try await Self.stats(key) == Stats(served: 2, notModified: 1, conditional: 1))
    }

    @Test func a304TheCallerAskedForHimselfPassesThrough() async throws {
        let (url, _) = try await Self.resource("maxAge=600&etag=1")
        let cache = try HTTPCache()
        let operation = DTO.get(url, headers: ["If-None-Match": "\"v1\""]).use(cache)
        _ = try? await operation.run()
        #expect(operation.statusCode == 304)
        #expect(Self.cacheUse(operation) == .bypass)
        #expect(cache.memoryUsage.entries == 0)
    }

    @Test(arguments: TestEngine.allCases) func cancellingARevalidationEndsTheCallAndKeepsTheEntry(_ engine: TestEngine) async throws {
        let (url, _) = try await Self.resource("maxAge=0&etag=1&conditionalDelay=30")
        let cache = try HTTPCache()
        try await Self.get(url, cache, engine)
        let revalidation = DTO.get(url).use(cache).on(engine)
        revalidation.start()
        try await Task.sleep(for: .milliseconds(300))
        revalidation.cancel()
        await revalidation.finished()
        #expect(revalidation.state == .cancelled)
        #expect(cache.memoryUsage.entries == 1, "a cancelled revalidation leaves the entry")
        let stale = try await Self.get(url, cache, engine, headers: ["Cache-Control": "max-stale=3600"])
        #expect(Self.cacheUse(stale) == .hit)
    }

    @Test func aHugeMaxAgeIsCappedAndAMalformedOneIgnored() {
        let now = Date()
        func entry(_ fields: [(String, String)]) -> CachedResponse {
            CachedResponse(
                url: "http://x/", partition: "p", status: 200, httpVersion: "HTTP/1.1",
                fields: fields.map { CachedResponse.Field(name: $0.0, value: $0.1) }, body: Data(), requestTime: now, responseTime: now,
                maximumFreshness: 86_400)
        }
        #expect(entry([("Cache-Control", "max-age=100000000000000000000")]).freshnessLifetime == 86_400)
        #expect(entry([("Cache-Control", "max-age=-5, max-age=abc")]).freshnessLifetime == 0)
        #expect(entry([("Expires", "0")]).freshnessLifetime == 0)
        #expect(entry([("Cache-Control", "max-age=60"), ("Age", "100")]).isFresh(for: CacheControl(nil), at: now) == false)
        #expect(entry([("Cache-Control", "max-age=60"), ("Age", "nan")]).isFresh(for: CacheControl(nil), at: now))
        let stale = entry([("Cache-Control", "max-age=10"), ("Age", "20")])
        #expect(stale.isFresh(for: CacheControl("max-stale=30"), at: now))
        #expect(!entry([("Cache-Control", "max-age=10, must-revalidate"), ("Age", "20")]).isFresh(for: CacheControl("max-stale"), at: now))
    }

    @Test func httpDatesAreReadByHandAsTheFormatterReadsThem() throws {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        for seconds in [0, 951_782_400, 1_709_164_799, 1_795_000_000, 4_102_444_800] {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.imfFixdate(HTTPDate.format(date)) == date, "\(HTTPDate.format(date))")
        }
        for bad in ["Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 36 Nov 1994 08:49:37 GMT", "Sun, 06 Nox 1994 08:49:37 GMT", "0", ""] {
            #expect(HTTPDate.imfFixdate(bad) == nil, "\(bad)")
        }
    }

    @Test func memoryStaysWithinItsBoundLeastRecentlyUsedFirstOut() {
        let now = Date()
        func entry(_ url: String) -> CachedResponse {
            CachedResponse(
                url: url, partition: "p", status: 200, httpVersion: "HTTP/1.1", fields: [], body: Data(count: 1000), requestTime: now,
                responseTime: now, maximumFreshness: 0)
        }
        let size = entry("a").byteCount
        var store = MemoryCacheStore(maximumBytes: size * 3)
        store.store(entry("a"))
        store.store(entry("b"))
        store.store(entry("c"))
        _ = store.entry(for: MemoryCacheStore.key(url: "a", partition: "p"))
        let evicted = store.store(entry("d"))
        #expect(evicted.map(\.url) == ["b"])
        #expect(store.count == 3 && store.bytes <= size * 3)
        #expect(
            store.store(
                CachedResponse(
                    url: "huge", partition: "p", status: 200, httpVersion: "HTTP/1.1", fields: [], body: Data(count: size * 4),
                    requestTime: now, responseTime: now, maximumFreshness: 0)
            ).isEmpty)
        #expect(store.entry(for: MemoryCacheStore.key(url: "huge", partition: "p")) == nil)
    }

    @Test func aStoredEntryReplacedByItsFreshenedCopyKeepsTheByteCountAndTheOrder() {
        let now = Date()
        func entry(_ url: String, bytes: Int) -> CachedResponse {
            CachedResponse(
                url: url, partition: "p", status: 200, httpVersion: "HTTP/1.1", fields: [], body: Data(count: bytes), requestTime: now,
                responseTime: now, maximumFreshness: 0)
        }
        let small = entry("a", bytes: 1000).byteCount
        var store = MemoryCacheStore(maximumBytes: small * 3)
        store.store(entry("a", bytes: 1000))
        store.store(entry("b", bytes: 1000))
        // "a" again, larger: it replaces itself, becomes the newest, and the bytes follow.
        store.store(entry("a", bytes: 1500))
        #expect(store.count == 2 && store.bytes == small * 2 + 500)
        let evicted = store.store(entry("c", bytes: 1000))
        #expect(evicted.map(\.url) == ["b"], "b was the least recently used")
        #expect(store.count == 2 && store.bytes == small * 2 + 500)
        // Replaced by a copy larger than the whole bound: the entry goes.
        store.store(entry("a", bytes: small * 4))
        #expect(store.entry(for: MemoryCacheStore.key(url: "a", partition: "p")) == nil)
        #expect(store.count == 1 && store.bytes == small)
        #expect(store.removeAll(url: "c") == 1 && store.bytes == 0)
    }

    @Test func a304ReplacesTheFieldsItBringsAndKeepsThoseOfTheBody() {
        let now = Date()
        let stored = CachedResponse(
            url: "http://x/", partition: "p", status: 200, httpVersion: "HTTP/1.1",
            fields: [
                .init(name: "Content-Type", value: "application/json"), .init(name: "Content-Length", value: "2"),
                .init(name: "ETag", value: "\"v1\""), .init(name: "Cache-Control", value: "max-age=0"), .init(name: "X-Kept", value: "1"),
                .init(name: "Link", value: "<a>"), .init(name: "Link", value: "<b>"),
            ],
            body: Data("{}".utf8), requestTime: now, responseTime: now, maximumFreshness: 86_400)
        let notModified = ResponseHead(
            url: URL(string: "http://x/")!, statusCode: 304, httpVersion: "HTTP/1.1",
            fields: [
                ("etag", " W/\"v1\"\t"), ("cache-control", "max-age=60"), ("Content-Type", "text/plain"), ("Content-Length", "0"),
                ("link", "<c>"), ("Set-Cookie", "a=1"),
            ])
        #expect(stored.isSelected(by: notModified), "weak comparison, whitespace around the tag ignored")
        let freshened = stored.updated(with: notModified, requestTime: now, responseTime: now, maximumFreshness: 86_400)
        let fields = freshened.fields.map { "\($0.name): \($0.value)" }
        #expect(
            fields == [
                "cache-control: max-age=60", "Content-Length: 2", "Content-Type: application/json", "etag:  W/\"v1\"\t", "link: <c>",
                "X-Kept: 1",
            ])
        #expect(freshened.freshnessLifetime == 60)
        #expect(freshened.etag == " W/\"v1\"\t")
        #expect(freshened.body == stored.body && freshened.derived === stored.derived)
        #expect(freshened.byteCount == Data("{}".utf8).count + fields.reduce(256) { $0 + $1.utf8.count + 2 } + "http://x/".utf8.count)
    }

    @Test func cacheControlIsReadInAnyCaseWithQuotesEmptyPartsAndUnknownDirectives() {
        let response = CacheControl("MAX-AGE=\"60\", , No-Cache=\"Set-Cookie\",x-private=1,Proxy-Revalidate, stale-if-error=30")
        #expect(response.maxAge == 60 && response.noCache && response.mustRevalidate && response.staleIfError == 30)
        #expect(!response.noStore && !response.onlyIfCached && response.maxStale == nil)
        #expect(CacheControl("max-stale").maxStale == .infinity)
        #expect(CacheControl("max-stale=").maxStale == .infinity, "an empty argument is no argument")
        #expect(CacheControl("max-stale=abc").maxStale == nil, "a malformed one is ignored")
        #expect(CacheControl("min-fresh=5, only-if-cached, no-store").minFresh == 5)
        #expect(CacheControl("no-store ,only-if-cached").onlyIfCached && CacheControl("no-store ,only-if-cached").noStore)
        #expect(CacheControl("max-agex=5").maxAge == nil && CacheControl("max-ag=5").maxAge == nil)
        #expect(CacheControl("").maxAge == nil && CacheControl(",,,").maxAge == nil)
        #expect(CacheControl(nil, pragma: "No-Cache").noCache)
        #expect(!CacheControl("max-age=5", pragma: "no-cache").noCache, "Pragma counts only without Cache-Control")
    }

    @Test func httpWhitespaceIsSpacesAndTabsOnly() {
        #expect(" \t max-age=60 \t ".trimmingHTTPWhitespace() == "max-age=60")
        #expect("a b".trimmingHTTPWhitespace() == "a b")
        #expect("   ".trimmingHTTPWhitespace().isEmpty)
        #expect("".trimmingHTTPWhitespace().isEmpty)
        #expect(" é ".trimmingHTTPWhitespace() == "é")
        #expect("\r\nx\n".trimmingHTTPWhitespace() == "\r\nx\n", "line breaks are not optional whitespace")
        let list = "gzip , br,\tdeflate"
        #expect(list.split(separator: ",").map { String($0.trimmingHTTPWhitespace()) } == ["gzip", "br", "deflate"])
        #expect(CacheControl(" max-age = 60 , no-cache").noCache && CacheControl(" max-age = 60 , no-cache").maxAge == 60)
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == Date(timeIntervalSince1970: 784_111_777))
    }
}
