import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state machine of one segmented download: which byte range the URLSession engine asks for
/// next, and what each answer of the server means.
///
/// FoundationNetworking cannot pause libcurl, and it hands body chunks to the delegate queue as
/// fast as the connection delivers them, so a long body piles up in memory whenever the consumer
/// is slower than loopback. Asking for the body in bounded `Range` segments, one after another,
/// bounds what can pile up to one segment. Each event is a `mutating func` that returns what to
/// do; `SegmentedDownload` performs it outside its lock.
///
/// Reading ahead: once half of a segment has arrived, the request for the next one is sent, so
/// that its round trip (the server's time to the first byte, making the task) overlaps the rest
/// of the current segment instead of following it. The events of that request are held
/// (`.hold`) until the current segment ends, then replayed in order as the current request's
/// (`.replayHeld`). At most one request is ahead, so at most one segment is held.
///
/// Races and answers it resolves:
/// - events of a request that was replaced or cancelled arrive late: every request has a number
///   (`current`) and events of any other number are ignored;
/// - the server ignores `Range` (200 to the first request): that answer is the whole body and
///   passes through as it is (the fallback; memory is then unbounded, as before);
/// - the resource changed between segments (a 200 to an `If-Range` request, or a 206 whose
///   `Content-Range` no longer fits): the download starts over from byte 0 of the new version,
///   announced to the caller as a new 200 response (the operation then drops what it kept); after
///   `maximumRestarts` the newest version is taken in one request;
/// - no strong validator, an unknown total, a `Content-Encoding`: segments could not be proven
///   to belong together, so the first request is cancelled and the caller's request is sent as it is;
/// - `cancel()` between two segments: no request is in flight; the next one is not started and
///   the caller hears `.cancelled`.
struct SegmentPlan {
    /// How many times a download starts over because the resource changed, before it takes the
    /// newest version in one request.
    static let maximumRestarts = 3

    /// A request to send.
    enum Request: Equatable {
        /// Bytes `first...last`, with `If-Range: ifRange` when given.
        case range(first: Int64, last: Int64, ifRange: String?)
        /// The caller's own request (without `Range` and `If-Range` when `withoutRange`).
        case whole(withoutRange: Bool)
    }

    /// What the owner does after an event.
    enum Action: Equatable {
        /// Nothing (a stale event, or a segment's head that the caller must not see).
        case none
        /// Pass a response head to the caller.
        case forwardResponse(HTTPURLResponse)
        /// Pass the body chunk to the caller.
        case forwardData
        /// Pass the body chunk to the caller, and send `request` as number `number`, the request
        /// read ahead (the current one goes on).
        case forwardDataAndSendAhead(Request, number: UInt64)
        /// Keep the event (of the request read ahead) until `replayHeld`.
        case hold
        /// The request read ahead became the current one: feed its held events back, in order.
        case replayHeld(number: UInt64)
        /// Cancel every older request in flight (when `cancelCurrent`) and send `request` as
        /// number `number`.
        case send(Request, number: UInt64, cancelCurrent: Bool)
        /// End the transfer with `failure`, cancelling the request in flight when
        /// `cancelCurrent` (and the one read ahead, always).
        case complete(TransferFailure?, cancelCurrent: Bool)
    }

    private enum Phase: Equatable {
        /// The first request of the download (or of a restart) is on its way.
        case probing
        /// The server answered with segments; `next...last` is in flight.
        case segmenting
        /// One response streams through as the server sends it.
        case passingThrough
        /// The caller heard its final event.
        case done
    }

    /// The length of every segment but the last.
    let segmentLength: Int64
    /// Whether the next segment is asked for while the current one is halfway.
    let readsAhead: Bool
    /// The first byte the caller asked for (`Range: bytes=N-`), 0 without a `Range`.
    let callerOffset: Int64
    /// True when the caller's request carried a `Range` (it then expects a 206).
    let callerAskedRange: Bool
    /// The caller's `If-Range`, sent with the first request.
    let callerValidator: String?

    private var phase = Phase.probing
    /// The number of the request whose events count.
    private(set) var current: UInt64 = 0
    /// The number of the request read ahead, whose events are held; nil when there is none.
    private(set) var ahead: UInt64?
    /// The number given to the latest request sent.
    private var issued: UInt64 = 0
    /// The first byte the caller is told about: `callerOffset`, or 0 after a restart.
    private var offset: Int64
    /// True once a restart means the caller gets the whole body again, as a 200.
    private var presentsWhole = false
    /// The first byte of the segment in flight.
    private var next: Int64 = 0
    /// The last byte of the segment in flight, as the server announced it.
    private var last: Int64 = 0
    /// Bytes of the segment in flight received so far.
    private var received: Int64 = 0
    private var total: Int64 = 0
    private var validator: String?
    private(set) var restarts = 0
    /// Requests sent, the first included.
    private(set) var requestsSent = 1
    private var cancelled = false
    /// True while the request in flight carries `If-Range`.
    private var sentIfRange: Bool

    /// A plan for a caller asking for everything (`callerOffset` nil) or from `callerOffset` on
    /// (validated by `callerValidator`).
    init(segmentLength: Int64, callerOffset: Int64?, callerValidator: String?, readsAhead: Bool = true) {
        self.segmentLength = max(1, segmentLength)
        self.readsAhead = readsAhead
        self.callerOffset = callerOffset ?? 0
        callerAskedRange = callerOffset != nil
        self.callerValidator = callerValidator
        offset = callerOffset ?? 0
        sentIfRange = callerValidator != nil
    }

    /// The first request, number 0.
    var firstRequest: Request {
        .range(first: callerOffset, last: callerOffset + segmentLength - 1, ifRange: callerValidator)
    }

    // MARK: Events

    /// The response head of request `number` arrived.
    mutating func received(response: HTTPURLResponse, of number: UInt64) -> Action {
        if isAhead(number) { return .hold }
        guard number == current, !cancelled else { return .none }
        switch phase {
        case .done:
            return .none
        case .passingThrough:
            return .forwardResponse(response)
        case .probing:
            return probed(response)
        case .segmenting:
            return continued(response)
        }
    }

    /// A body chunk of `count` bytes of request `number` arrived.
    mutating func received(count: Int, of number: UInt64) -> Action {
        if isAhead(number) { return .hold }
        guard number == current, !cancelled else { return .none }
        switch phase {
        case .passingThrough:
            return .forwardData
        case .segmenting:
            received += Int64(count)
            let length = last - next + 1
            if readsAhead, ahead == nil, received * 2 >= length, last + 1 < total, received <= length {
                issued &+= 1
                requestsSent += 1
                ahead = issued
                return .forwardDataAndSendAhead(nextSegment, number: issued)
            }
            return .forwardData
        case .probing, .done:
            return .none
        }
    }

    /// Request `number` ended (nil: its whole response arrived).
    mutating func completed(_ failure: TransferFailure?, of number: UInt64) -> Action {
        if isAhead(number) { return .hold }
        guard number == current, phase != .done else { return .none }
        if cancelled {
            phase = .done
            ahead = nil
            return .complete(.cancelled, cancelCurrent: false)
        }
        if phase == .segmenting, failure == nil {
            let expected = last - next + 1
            guard received == expected else {
                phase = .done
                let reason = "the segment \(next)-\(last) ended after \(received) of \(expected) bytes"
                return .complete(.connectionLost(reason), cancelCurrent: false)
            }
            if last + 1 >= total {
                phase = .done
                return .complete(nil, cancelCurrent: false)
            }
            if let ahead {
                // The next segment is on its way already: it becomes the current request.
                current = ahead
                self.ahead = nil
                received = 0
                sentIfRange = validator != nil
                return .replayHeld(number: current)
            }
            return send(nextSegment, cancelCurrent: false)
        }
        phase = .done
        ahead = nil
        return .complete(failure, cancelCurrent: false)
    }

    /// Whether events of request `number` are held: it was read ahead and is still wanted.
    private func isAhead(_ number: UInt64) -> Bool {
        number == ahead && !cancelled && phase == .segmenting
    }

    /// The request for the segment after the one in flight.
    private var nextSegment: Request {
        let first = last + 1
        return .range(first: first, last: min(first + segmentLength, total) - 1, ifRange: validator)
    }

    /// The caller cancelled: true when the request in flight must be cancelled (its completion
    /// then ends the transfer with `.cancelled`).
    mutating func cancel() -> Bool {
        guard phase != .done, !cancelled else { return false }
        cancelled = true
        return true
    }

    /// True once the caller cancelled.
    var isCancelled: Bool { cancelled }

    // MARK: Answers

    private mutating func send(_ request: Request, cancelCurrent: Bool) -> Action {
        // A request read ahead is dropped (the owner cancels every older request when
        // `cancelCurrent`; a plain next segment is only sent when none is ahead).
        ahead = nil
        issued &+= 1
        current = issued
        requestsSent += 1
        received = 0
        if case let .range(_, _, ifRange) = request {
            sentIfRange = ifRange != nil
        } else {
            sentIfRange = false
        }
        return .send(request, number: current, cancelCurrent: cancelCurrent)
    }

    /// The answer to the first request of the download or of a restart.
    private mutating func probed(_ response: HTTPURLResponse) -> Action {
        switch response.statusCode {
        case 206:
            guard let range = ContentRange(ResponseHead(response)), range.first == offset, let announced = range.total,
                announced > range.last, Self.isIdentityEncoded(response),
                let strong = BaseOperation.rangeValidator(of: ResponseHead(response))
            else {
                // Segments of this body cannot be proven to belong together: ask once, whole.
                phase = .passingThrough
                return send(.whole(withoutRange: presentsWhole), cancelCurrent: true)
            }
            phase = .segmenting
            total = announced
            validator = strong
            next = range.first
            last = range.last
            received = 0
            return .forwardResponse(presented(response))
        case 200 where sentIfRange && restarts < Self.maximumRestarts && Self.acceptsRanges(response):
            // The validator no longer matches: the resource changed. Start over, in segments.
            return restart()
        case 416:
            // The segment's range is not satisfiable: the body is empty, or ends before the
            // segment's end (some servers refuse a range that ends past the body instead of
            // shortening it), or ends at the segment's start.
            if offset > 0, !presentsWhole, Self.unsatisfiedLength(response) == offset {
                // It ends where the caller resumes: the caller holds it all already.
                phase = .done
                return .complete(nil, cancelCurrent: true)
            }
            // Ask once for the caller's request as it is (whole, or `bytes=N-` from its offset).
            phase = .passingThrough
            return send(.whole(withoutRange: presentsWhole), cancelCurrent: true)
        default:
            // 200 (no Range support: the fallback), or a status the caller must see.
            phase = .passingThrough
            return .forwardResponse(response)
        }
    }

    /// The answer to a later segment's request.
    private mutating func continued(_ response: HTTPURLResponse) -> Action {
        switch response.statusCode {
        case 206:
            if let range = ContentRange(ResponseHead(response)), range.total == total, range.first == pendingFirst, range.last >= range.first {
                next = range.first
                last = range.last
                received = 0
                return .none
            }
            return changed(response)
        case 200, 416:
            return changed(response)
        default:
            phase = .done
            let reason = "the server answered \(response.statusCode) to the request for bytes \(pendingFirst)-"
            return .complete(.connectionLost(reason), cancelCurrent: true)
        }
    }

    /// The resource changed between two segments.
    private mutating func changed(_ response: HTTPURLResponse) -> Action {
        if restarts < Self.maximumRestarts { return restart() }
        phase = .passingThrough
        if response.statusCode == 200 {
            // The newest version, whole: the caller drops what it kept and takes this one.
            return .forwardResponse(response)
        }
        return send(.whole(withoutRange: true), cancelCurrent: true)
    }

    private mutating func restart() -> Action {
        restarts += 1
        phase = .probing
        offset = 0
        presentsWhole = true
        validator = nil
        return send(.range(first: 0, last: segmentLength - 1, ifRange: nil), cancelCurrent: true)
    }

    /// The first byte of the segment asked for last.
    private var pendingFirst: Int64 { last + 1 }

    /// The head the caller sees for the whole download: a 200 with the total length, or a 206
    /// from the caller's offset to the end.
    private func presented(_ response: HTTPURLResponse) -> HTTPURLResponse {
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let text = value as? String else { continue }
            let lowered = name.lowercased()
            if lowered == "content-range" || lowered == "content-length" { continue }
            fields[name] = text
        }
        let status: Int
        if presentsWhole || !callerAskedRange {
            status = 200
            fields["Content-Length"] = String(total)
        } else {
            status = 206
            fields["Content-Length"] = String(total - offset)
            fields["Content-Range"] = "bytes \(offset)-\(total - 1)/\(total)"
        }
        return HTTPURLResponse(url: response.url ?? URL(fileURLWithPath: "/"), statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
            ?? response
    }

    /// The length a 416 names in its `Content-Range: bytes */length`.
    static func unsatisfiedLength(_ response: HTTPURLResponse) -> Int64? {
        guard let header = response.value(forHTTPHeaderField: "Content-Range")?.trimmingHTTPWhitespace(),
            header.lowercased().hasPrefix("bytes */")
        else { return nil }
        return Int64(header.dropFirst("bytes */".count))
    }

    private static func acceptsRanges(_ response: HTTPURLResponse) -> Bool {
        response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased().contains("bytes") ?? false
    }

    private static func isIdentityEncoded(_ response: HTTPURLResponse) -> Bool {
        guard let encoding = response.value(forHTTPHeaderField: "Content-Encoding") else { return true }
        let trimmed = encoding.trimmingHTTPWhitespace().lowercased()
        return trimmed.isEmpty || trimmed == "identity"
    }
}
