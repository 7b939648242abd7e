import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stage that makes identical requests in flight at the same time share one network transfer.
///
/// When an operation whose chain holds the coalescer is about to send a request that another
/// operation of the same coalescer is sending already — same method, same URL, same headers
/// (the token included, so two tokens never share an answer), no body — it joins that
/// transfer instead of opening one of its own. Each operation stays its own: it receives the
/// response head and body as they arrive (what arrived before it joined first), applies its
/// own body limit, timeouts, checks, retries and completion, has its own owner and is
/// cancelled on its own; the network transfer stops only when every operation sharing it was
/// cancelled. A retry sends its request again and may join another transfer.
///
/// Only the methods in `Configuration.methods` coalesce (GET and HEAD by default; no other may
/// be added: only for a safe method is the answer the same whether it is asked once or twice).
/// Headers that differ on every request without changing its answer — trace context, request
/// identifiers — are left out of the comparison (`Configuration.ignoredHeaders`, and the fields
/// an API scope's tracer propagates); the shared request carries those of the operation that
/// opened it. A credential (a name the standard `Redaction` calls secret: `Authorization`,
/// `Cookie`, `X-Api-Key`…) and `baggage` (which may carry a tenant or a user) are always
/// compared.
///
/// ```swift
/// let coalescer = RequestCoalescer()
/// let first = DTO.get(url).use(coalescer)
/// let second = DTO.get(url).use(coalescer)   // started while `first` is in flight: no new request
/// ```
public final class RequestCoalescer: TransferStage, Sendable {
    /// Which requests coalesce and how much of a shared answer is kept for late joiners.
    public struct Configuration: Sendable, Equatable {
        /// The HTTP methods whose requests coalesce, upper case (default: GET and HEAD, the only
        /// ones allowed).
        public var methods: Set<String>
        /// Header fields, lower case, left out when requests are compared (default: the trace
        /// context of W3C and B3 and the usual request identifiers). A credential is never left
        /// out.
        public var ignoredHeaders: Set<String>
        /// The bytes of a shared answer kept for operations that join after it began to arrive
        /// (default 8 MiB); past that, later identical requests open a transfer of their own.
        public var maximumBacklogBytes: Int

        /// A configuration; by default GET and HEAD requests coalesce. A method other than GET
        /// and HEAD is dropped from `methods`, and a credential field (one the standard
        /// `Redaction` calls secret) from `ignoredHeaders`: neither can make two callers share
        /// what they must not.
        public init(
            methods: Set<String> = ["GET", "HEAD"],
            ignoredHeaders: Set<String> = Self.standardIgnoredHeaders,
            maximumBacklogBytes: Int = 8 << 20
        ) {
            self.methods = Set(methods.map { $0.uppercased() }).intersection(Self.safeMethods)
            self.ignoredHeaders = Self.ignorable(ignoredHeaders)
            self.maximumBacklogBytes = max(0, maximumBacklogBytes)
        }

        /// `traceparent`, `tracestate`, `b3`, the `X-B3-…` fields, `X-Request-ID` and
        /// `X-Correlation-ID`. Not `baggage`: W3C baggage may carry a tenant or a user, on which
        /// a server may base its answer.
        public static let standardIgnoredHeaders: Set<String> = [
            "traceparent", "tracestate", "b3", "x-b3-traceid", "x-b3-spanid", "x-b3-parentspanid", "x-b3-sampled", "x-b3-flags",
            "x-request-id", "x-correlation-id",
        ]

        /// The methods that may coalesce: asked once or twice, their answer is the same.
        public static let safeMethods: Set<String> = ["GET", "HEAD"]

        /// Whether a field may be left out of a comparison of requests (the coalescer's or an
        /// `HTTPCache`'s key): a credential never may.
        static func mayIgnore(_ name: String) -> Bool {
            !Redaction.standard.isSecret(header: name)
        }

        /// `names` lowered, without the credentials.
        static func ignorable(_ names: Set<String>) -> Set<String> {
            Set(names.map { $0.lowercased() }.filter(mayIgnore))
        }
    }

    /// What a coalescer did so far.
    public struct Statistics: Sendable, Equatable {
        /// Network transfers opened for requests that may coalesce.
        public var transfersOpened = 0
        /// Requests that joined a transfer another operation opened.
        public var requestsJoined = 0
    }

    /// What is compared: two requests with equal keys get the same answer.
    private struct Key: Hashable {
        let method: String
        let url: String
        let headers: [String]
        let followsRedirects: Bool
        let cookieJar: ObjectIdentifier?
        let toFile: Bool
        /// The transfer's own TLS settings (by identity) and HTTP/2 switch: requests that would
        /// not share a connection do not share a transfer.
        let tls: ObjectIdentifier?
        let allowsHTTP2: Bool
        let proxy: ProxyChoice?
        /// The session (so the engine, with its own TLS settings and proxy) the request runs in.
        let session: ObjectIdentifier?
    }

    private struct State {
        var inFlight: [Key: SharedTransfer] = [:]
        var statistics = Statistics()
    }

    /// The coalescer's settings.
    public let configuration: Configuration
    private let state = Locked(State())
    private let onJoin: (@Sendable (URLRequest) -> Void)?

    /// A coalescer with `configuration`; `onJoin` hears each request that joined a transfer
    /// in flight (to count it), outside the coalescer's lock.
    public init(configuration: Configuration = Configuration(), onJoin: (@Sendable (URLRequest) -> Void)? = nil) {
        self.configuration = configuration
        self.onJoin = onJoin
    }

    /// Transfers opened and requests that joined one, so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Requests in flight that others may join now.
    public var transfersInFlight: Int { state.withLock { $0.inFlight.count } }

    // MARK: Transfers

    /// Whether the call's last attempt joined a transfer another operation opened, instead of
    /// going to the network itself. Written before the attempt's first event.
    public enum JoinedKey: CallValueKey {
        /// True when the attempt joined.
        public typealias Value = Bool
    }

    /// Hands `request` on, or joins the identical request in flight of the same session. The
    /// fields in the call's `ContextHeaderNames` (but `baggage`) are left out of the comparison
    /// besides the configured ones. Requests that may not coalesce (a body, a method not
    /// configured, a streamed body) go on as they are.
    public func startTransfer(
        _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
    ) throws -> any TransferHandle {
        guard let key = key(of: request, context: context) else {
            context.values[JoinedKey.self] = false
            return next(request, events: events)
        }
        while true {
            let found = state.withLock { $0.inFlight[key] }
            if let found {
                if let part = found.join(events, beforeFirstEvent: { context.values[JoinedKey.self] = true }) {
                    state.withLock { $0.statistics.requestsJoined += 1 }
                    onJoin?(request)
                    return part
                }
                // It closed since: forget it, unless someone replaced it meanwhile, and look again.
                state.withLock { state in
                    if state.inFlight[key] === found { state.inFlight[key] = nil }
                }
                continue
            }
            let opened = SharedTransfer(
                redirectRules: context.redirectRules, transport: context.transport, bodyGoesToFile: context.bodyGoesToFile,
                maximumBacklogBytes: configuration.maximumBacklogBytes
            ) { [weak self] closed in
                self?.forget(closed, key: key)
            }
            let won = state.withLock { state -> Bool in
                guard state.inFlight[key] == nil else { return false }
                state.inFlight[key] = opened
                state.statistics.transfersOpened += 1
                return true
            }
            guard won, let part = opened.join(events, beforeFirstEvent: { context.values[JoinedKey.self] = false }) else { continue }
            opened.started(next(request, events: opened))
            return part
        }
    }

    /// Removes `transfer` from the requests others may join.
    private func forget(_ transfer: SharedTransfer, key: Key) {
        state.withLock { state in
            if state.inFlight[key] === transfer { state.inFlight[key] = nil }
        }
    }

    /// The comparison key of `request`, or nil when it may not coalesce.
    private func key(of request: URLRequest, context: TransferContext) -> Key? {
        guard case .none = context.body, request.httpBody == nil, request.httpBodyStream == nil, !context.isStreamed, let url = request.url
        else { return nil }
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard configuration.methods.contains(method) else { return nil }
        var contextHeaders = context.values[ContextHeaderNames.self] ?? []
        // What a tracer propagates is left out, but for `baggage`: it may carry a tenant or a
        // user, on which a server may base its answer.
        contextHeaders.remove("baggage")
        var headers: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            let lowered = name.lowercased()
            if configuration.ignoredHeaders.contains(lowered) || contextHeaders.contains(lowered) { continue }
            headers.append(lowered + ":" + value)
        }
        headers.sort()
        let rules = context.redirectRules
        let transport = context.transport
        return Key(
            method: method, url: url.absoluteString, headers: headers, followsRedirects: rules.follows,
            cookieJar: rules.cookies.map(ObjectIdentifier.init), toFile: context.bodyGoesToFile,
            tls: transport.tls?.identity, allowsHTTP2: transport.allowsHTTP2, proxy: transport.proxy,
            session: ObjectIdentifier(context.session))
    }
}
