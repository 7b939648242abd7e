import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPCache: TransferStage {
    /// How the chain's `HTTPCache` took part in the call's last attempt: a `.hit` sent nothing,
    /// a `.revalidated` one was answered 304 and the stored response stood in. Written before
    /// the attempt's first event (again when a revalidation's answer changes it). With several
    /// caches in a chain, the last one a cache wrote.
    public enum OutcomeKey: CallValueKey {
        /// How the cache took part.
        public typealias Value = HTTPCache.Outcome
    }

    /// The values kept with the entry that answered the call's last attempt, or that its answer
    /// was stored as (an API call keeps its mapped model there); nil when no entry did.
    package enum StoredValuesKey: CallValueKey {
        package typealias Value = DerivedValues
    }

    /// Starts `request` through the cache: answers it from a fresh entry (its events arrive
    /// before this returns), revalidates a stale one, or hands it to `next` and stores what
    /// comes back. The fields in the call's `ContextHeaderNames` (but `baggage`, which may carry
    /// a tenant) are left out of the key besides the configured ones, and who the request is
    /// to the server beyond its fields (the engine, client certificate, trust, proxy) is in it.
    /// A streamed body, one going to a file, a body sent, a `Range` or conditions of the
    /// request's own go past the cache.
    public func startTransfer(
        _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
    ) throws -> any TransferHandle {
        let method = request.httpMethod?.uppercased() ?? "GET"
        let values = context.values
        let send: @Sendable (URLRequest, any TransferEvents) -> any TransferHandle = { next($0, events: $1) }
        guard let url = request.url else { return next(request, events: events) }
        guard method == "GET" else {
            values[StoredValuesKey.self] = nil
            values[OutcomeKey.self] = .bypass
            guard !Self.safeMethods.contains(method) else { return next(request, events: events) }
            return next(request, events: InvalidatingEvents(cache: self, requestURL: url, events: events))
        }
        let requestControl = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"), pragma: request.value(forHTTPHeaderField: "Pragma"))
        guard case .none = context.body, request.httpBody == nil, request.httpBodyStream == nil, !context.bodyGoesToFile, !context.isStreamed,
            !requestControl.noStore, !Self.conditionFields.contains(where: { request.value(forHTTPHeaderField: $0) != nil })
        else {
            values[StoredValuesKey.self] = nil
            values[OutcomeKey.self] = .bypass
            return next(request, events: events)
        }
        var contextHeaders = values[ContextHeaderNames.self] ?? []
        contextHeaders.remove("baggage")
        let key = Self.key(url)
        let partition = partition(
            of: request, contextHeaders: contextHeaders, followsRedirects: context.followsRedirects,
            transport: context.transportIdentity(for: url))
        let lookup = Lookup(request: request, url: url, key: key, partition: partition, control: requestControl, values: values)
        guard needsDiskRead(url: key, partition: partition) else {
            return answer(lookup, stored: entry(url: key, partition: partition), events: events, next: send)
        }
        // The entry is in the folder only: read there, not on this thread (an event loop, maybe).
        let pending = PendingLookup()
        onDiskReader { [self] in
            let stored = entry(url: key, partition: partition)
            guard !pending.isCancelled else {
                events.transferDidComplete(failure: .cancelled)
                return
            }
            pending.attach(answer(lookup, stored: stored, events: events, next: send))
        }
        return pending
    }

    /// What a request asks of the cache, worked out once.
    private struct Lookup {
        let request: URLRequest
        let url: URL
        let key: String
        let partition: String
        let control: CacheControl
        /// Where the outcome and the entry's values are noted for the call's stages.
        let values: CallValues

        /// Notes how the cache took part, and the answering entry's values.
        func note(_ outcome: HTTPCache.Outcome, _ derived: DerivedValues?) {
            values[StoredValuesKey.self] = derived
            values[OutcomeKey.self] = outcome
        }
    }

    /// Answers `lookup` from `stored` when it is fresh, else sends it (revalidating `stored`
    /// when it has validators) through `next`.
    private func answer(
        _ lookup: Lookup, stored: CachedResponse?, events: any TransferEvents,
        next: @escaping @Sendable (URLRequest, any TransferEvents) -> any TransferHandle
    ) -> any TransferHandle {
        let (request, url, key, partition, requestControl) = (lookup.request, lookup.url, lookup.key, lookup.partition, lookup.control)
        let now = Date()
        if let stored, stored.isFresh(for: requestControl, at: now) {
            count(.hit)
            lookup.note(.hit, stored.derived)
            CachingTransfer.deliver(stored, now: now, url: url, to: events)
            return AnsweredTransfer()
        }
        if requestControl.onlyIfCached {
            count(.miss)
            lookup.note(.miss, nil)
            events.transferDidReceive(head: ResponseHead(url: url, statusCode: 504, httpVersion: "HTTP/1.1", fields: [("Content-Length", "0")]))
            events.transferDidComplete(failure: nil)
            return AnsweredTransfer()
        }
        var sent = request
        var revalidating: CachedResponse?
        if let stored, stored.hasValidators {
            // The conditions are added after the operation's check of what goes on the wire:
            // they pass the same check here. An entry whose validator would not (a control
            // byte from a server, or from an edited file) is dropped, never sent.
            guard stored.validatorsAreFieldValues else {
                forget(url: key, partition: partition)
                let transfer = CachingTransfer(
                    cache: self, request: request, url: url, key: key, partition: partition, revalidating: nil, values: lookup.values,
                    events: events, next: next)
                transfer.reportMiss()
                transfer.begin(request)
                return transfer
            }
            if let etag = stored.etag { sent.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let lastModified = stored.lastModified { sent.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
            revalidating = stored
        }
        let transfer = CachingTransfer(
            cache: self, request: request, url: url, key: key, partition: partition, revalidating: revalidating, values: lookup.values,
            events: events, next: next)
        if revalidating == nil { transfer.reportMiss() }
        transfer.begin(sent)
        return transfer
    }

    /// Methods that change nothing: their answers invalidate no entry.
    private static let safeMethods: Set<String> = ["HEAD", "OPTIONS", "TRACE"]

    /// A request with any of these asks the server something of its own: the cache stays out.
    private static let conditionFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// Whether a response to a GET may be stored (RFC 9111 §3), before its lifetime and
    /// validators are known.
    static func isStorable(_ head: ResponseHead, requestURL: URL) -> Bool {
        guard cacheableStatuses.contains(head.statusCode), head.url == requestURL else { return false }
        if CacheControl(head.value(forHTTPHeaderField: "Cache-Control")).noStore { return false }
        if let vary = head.value(forHTTPHeaderField: "Vary"),
            vary.split(separator: ",").contains(where: { $0.trimmingHTTPWhitespace() == "*" })
        {
            return false
        }
        return head.value(forHTTPHeaderField: "Content-Range") == nil
    }

    /// The statuses RFC 9110 §15.1 calls heuristically cacheable (the only ones stored).
    private static let cacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
}

/// A request whose entry is being read from the folder: a cancel before the read ends ends it
/// there; after, it goes to what the lookup started.
private final class PendingLookup: TransferHandle, Sendable {
    private struct State {
        var cancelled = false
        var handle: (any TransferHandle)?
    }

    private let state = Locked(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let handle = state.withLock { state -> (any TransferHandle)? in
            state.cancelled = true
            return state.handle
        }
        handle?.cancel()
    }

    /// Keeps what the lookup started, or cancels it when the request was cancelled meanwhile.
    func attach(_ handle: any TransferHandle) {
        let cancelled = state.withLock { state -> Bool in
            if !state.cancelled { state.handle = handle }
            return state.cancelled
        }
        if cancelled { handle.cancel() }
    }
}

/// The events of one request that went to the network through the cache: passes them on,
/// keeps a copy of the body to store it, and turns a 304 to a revalidation into the stored
/// response. A 304 that matches no stored validator drops the entry and asks again without
/// conditions, once.
final class CachingTransfer: TransferEvents, TransferHandle, Sendable {
    private enum Phase {
        /// Events pass through; the body is kept while it may still be stored.
        case passing(head: ResponseHead?, kept: Data?)
        /// A 304 freshened the entry: it answers when the transfer ends.
        case notModified(CachedResponse)
        /// A 304 that selected nothing: ask again when the transfer ends.
        case mismatched
        case ended
    }

    private struct State {
        var phase = Phase.passing(head: nil, kept: nil)
        var handle: (any TransferHandle)?
        var cancelled = false
        var requestTime = Date()
    }

    private let cache: HTTPCache
    private let request: URLRequest
    /// The request's URL (a request without one never reaches the cache).
    private let url: URL
    private let key: String
    private let partition: String
    private let revalidating: CachedResponse?
    private let values: CallValues
    private let events: any TransferEvents
    private let next: @Sendable (URLRequest, any TransferEvents) -> any TransferHandle
    private let state = Locked(State())

    init(
        cache: HTTPCache, request: URLRequest, url: URL, key: String, partition: String, revalidating: CachedResponse?,
        values: CallValues, events: any TransferEvents, next: @escaping @Sendable (URLRequest, any TransferEvents) -> any TransferHandle
    ) {
        self.cache = cache
        self.request = request
        self.url = url
        self.key = key
        self.partition = partition
        self.revalidating = revalidating
        self.values = values
        self.events = events
        self.next = next
    }

    /// Sends `request` (through the stages below the cache: a coalescer, the engine).
    func begin(_ request: URLRequest) {
        state.withLock { $0.requestTime = Date() }
        let handle = next(request, self)
        let cancelled = state.withLock { state -> Bool in
            if !state.cancelled { state.handle = handle }
            return state.cancelled
        }
        if cancelled { handle.cancel() }
    }

    func reportMiss() {
        cache.count(.miss)
        note(.miss, nil)
    }

    /// Notes how the cache took part, and the entry's values, for the call's stages.
    private func note(_ outcome: HTTPCache.Outcome, _ derived: DerivedValues?) {
        values[HTTPCache.StoredValuesKey.self] = derived
        values[HTTPCache.OutcomeKey.self] = outcome
    }

    /// Delivers `entry` as a whole response to `events`, the answer to a request for `url`.
    static func deliver(_ entry: CachedResponse, now: Date, url: URL, to events: any TransferEvents) {
        events.transferDidReceive(head: entry.head(age: entry.age(at: now), requestURL: url))
        if !entry.body.isEmpty { events.transferDidReceive(data: entry.body) }
        events.transferDidComplete(failure: nil)
    }

    // MARK: TransferHandle

    func cancel() {
        let handle = state.withLock { state -> (any TransferHandle)? in
            state.cancelled = true
            defer { state.handle = nil }
            return state.handle
        }
        handle?.cancel()
    }

    // MARK: TransferEvents

    func transferDidReceive(head: ResponseHead) {
        if let revalidating, head.statusCode == 304 {
            guard revalidating.isSelected(by: head) else {
                state.withLock { $0.phase = .mismatched }
                cache.forget(url: key, partition: partition)
                return
            }
            let requestTime = state.withLock { $0.requestTime }
            let freshened = revalidating.updated(
                with: head, requestTime: requestTime, responseTime: Date(), maximumFreshness: cache.configuration.maximumFreshness)
            state.withLock { $0.phase = .notModified(freshened) }
            return
        }
        if revalidating != nil {
            // A new answer replaces the entry (or, not storable, leaves none behind).
            if state.withLock({ state -> Bool in
                if case .passing(nil, _) = state.phase { return true }
                return false
            }) {
                reportMiss()
            }
        }
        let storable = HTTPCache.isStorable(head, requestURL: request.url ?? head.url)
        state.withLock { $0.phase = .passing(head: head, kept: storable ? Data() : nil) }
        events.transferDidReceive(head: head)
    }

    func transferDidReceive(data: Data) {
        let passes = state.withLock { state -> Bool in
            guard case let .passing(head, kept) = state.phase else { return false }
            if var kept {
                state.phase = .passing(head: head, kept: nil)
                if kept.count + data.count <= cache.configuration.maximumEntryBytes {
                    kept.append(data)
                    state.phase = .passing(head: head, kept: kept)
                }
            }
            return true
        }
        if passes { events.transferDidReceive(data: data) }
    }

    func transferDidSend(sent: Int64, expected: Int64?) {
        events.transferDidSend(sent: sent, expected: expected)
    }

    func transferDidComplete(failure: TransferFailure?) {
        let (phase, cancelled) = state.withLock { state -> (Phase, Bool) in
            defer {
                state.phase = .ended
                state.handle = nil
            }
            return (state.phase, state.cancelled)
        }
        switch phase {
        case let .passing(head, kept):
            if failure == nil, let head, let kept, let entry = makeEntry(head: head, body: kept) {
                cache.store(entry)
                note(.miss, entry.derived)
            }
            events.transferDidComplete(failure: failure)
        case let .notModified(entry):
            guard failure == nil else {
                events.transferDidComplete(failure: failure)
                return
            }
            cache.store(entry)
            cache.count(.revalidated)
            note(.revalidated, entry.derived)
            Self.deliver(entry, now: Date(), url: url, to: events)
        case .mismatched:
            guard failure == nil, !cancelled else {
                events.transferDidComplete(failure: failure ?? .cancelled)
                return
            }
            let again = CachingTransfer(
                cache: cache, request: request, url: url, key: key, partition: partition, revalidating: nil, values: values, events: events,
                next: next)
            again.reportMiss()
            state.withLock { $0.phase = .ended }
            again.begin(request)
            let stop = state.withLock { state -> Bool in
                if !state.cancelled { state.handle = again }
                return state.cancelled
            }
            if stop { again.cancel() }
        case .ended:
            events.transferDidComplete(failure: failure)
        }
    }

    /// The entry a whole answer makes, when it is worth keeping: a lifetime or a validator.
    private func makeEntry(head: ResponseHead, body: Data) -> CachedResponse? {
        let requestTime = state.withLock { $0.requestTime }
        let fields = head.orderedFields.map { CachedResponse.Field(name: $0.name, value: $0.value) }
        let entry = CachedResponse(
            url: key, partition: partition, status: head.statusCode, httpVersion: "HTTP/1.1", fields: fields, body: body,
            requestTime: requestTime, responseTime: Date(), maximumFreshness: cache.configuration.maximumFreshness)
        guard entry.freshnessLifetime > 0 || entry.hasValidators, !entry.control.noStore, entry.validatorsAreFieldValues else { return nil }
        return entry
    }
}

/// The events of an unsafe request (PUT, POST, DELETE, PATCH…): a 2xx or 3xx answer removes
/// the entries of its URL, and of its `Location` and `Content-Location` on the same origin.
private final class InvalidatingEvents: TransferEvents, Sendable {
    private let cache: HTTPCache
    private let requestURL: URL
    private let events: any TransferEvents

    init(cache: HTTPCache, requestURL: URL, events: any TransferEvents) {
        self.cache = cache
        self.requestURL = requestURL
        self.events = events
    }

    func transferDidReceive(head: ResponseHead) {
        if (200..<400).contains(head.statusCode) {
            cache.invalidate(HTTPCache.key(requestURL))
            for name in ["Location", "Content-Location"] {
                guard let value = head.value(forHTTPHeaderField: name), let target = URL(string: value, relativeTo: requestURL)?.absoluteURL,
                    Origin.same(target, requestURL)
                else { continue }
                cache.invalidate(HTTPCache.key(target))
            }
        }
        events.transferDidReceive(head: head)
    }

    func transferDidReceive(data: Data) { events.transferDidReceive(data: data) }
    func transferDidSend(sent: Int64, expected: Int64?) { events.transferDidSend(sent: sent, expected: expected) }
    func transferDidComplete(failure: TransferFailure?) { events.transferDidComplete(failure: failure) }
}
