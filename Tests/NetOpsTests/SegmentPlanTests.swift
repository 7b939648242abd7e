import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every transition of the segmented download's state machine, without a network.
struct SegmentPlanTests {
    static let url = URL(string: "http://127.0.0.1/file")!
    static let etag = #""v1""#

    static func response(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    /// A 206 for `first...last` of `total` bytes, with a strong ETag unless `headers` says otherwise.
    static func partial(_ first: Int64, _ last: Int64, of total: Int64, _ headers: [String: String] = ["ETag": etag]) -> HTTPURLResponse {
        var fields = headers
        fields["Content-Range"] = "bytes \(first)-\(last)/\(total)"
        fields["Content-Length"] = String(last - first + 1)
        fields["Accept-Ranges"] = "bytes"
        return response(206, fields)
    }

    static func forwarded(_ action: SegmentPlan.Action) -> HTTPURLResponse? {
        if case let .forwardResponse(response) = action { return response }
        return nil
    }

    @Test func segmentsFollowOneAnotherAndTheCallerSeesOneWholeResponse() throws {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        #expect(plan.firstRequest == .range(first: 0, last: 9, ifRange: nil))
        let head = try #require(Self.forwarded(plan.received(response: Self.partial(0, 9, of: 25), of: 0)))
        #expect(head.statusCode == 200)
        #expect(head.expectedContentLength == 25)
        #expect(head.value(forHTTPHeaderField: "Content-Range") == nil)
        #expect(head.value(forHTTPHeaderField: "ETag") == Self.etag)
        #expect(plan.received(count: 10, of: 0) == .forwardData)
        #expect(plan.completed(nil, of: 0) == .send(.range(first: 10, last: 19, ifRange: Self.etag), number: 1, cancelCurrent: false))
        // A later segment's head is not the caller's business.
        #expect(plan.received(response: Self.partial(10, 19, of: 25), of: 1) == .none)
        #expect(plan.received(count: 10, of: 1) == .forwardData)
        #expect(plan.completed(nil, of: 1) == .send(.range(first: 20, last: 24, ifRange: Self.etag), number: 2, cancelCurrent: false))
        #expect(plan.received(response: Self.partial(20, 24, of: 25), of: 2) == .none)
        #expect(plan.received(count: 5, of: 2) == .forwardData)
        #expect(plan.completed(nil, of: 2) == .complete(nil, cancelCurrent: false))
        #expect(plan.requestsSent == 3)
    }

    @Test func aCallerOffsetIsAnsweredWithA206ToTheEnd() throws {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: 7, callerValidator: Self.etag, readsAhead: false)
        #expect(plan.firstRequest == .range(first: 7, last: 16, ifRange: Self.etag))
        let head = try #require(Self.forwarded(plan.received(response: Self.partial(7, 16, of: 30), of: 0)))
        #expect(head.statusCode == 206)
        #expect(head.value(forHTTPHeaderField: "Content-Range") == "bytes 7-29/30")
        #expect(head.expectedContentLength == 23)
    }

    @Test func aServerWithoutRangesPassesThrough() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        let whole = Self.response(200, ["Content-Length": "25"])
        #expect(plan.received(response: whole, of: 0) == .forwardResponse(whole))
        #expect(plan.received(count: 25, of: 0) == .forwardData)
        #expect(plan.completed(nil, of: 0) == .complete(nil, cancelCurrent: false))
        #expect(plan.requestsSent == 1)
    }

    struct UnprovableCase: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: [String: String]
        let contentRange: String
        var testDescription: String { name }
    }

    static let unprovable = [
        UnprovableCase(name: "no validator", headers: [:], contentRange: "bytes 0-9/25"),
        UnprovableCase(name: "weak ETag only", headers: ["ETag": #"W/"v1""#], contentRange: "bytes 0-9/25"),
        UnprovableCase(name: "gzip", headers: ["ETag": etag, "Content-Encoding": "gzip"], contentRange: "bytes 0-9/25"),
        UnprovableCase(name: "unknown total", headers: ["ETag": etag], contentRange: "bytes 0-9/*"),
        UnprovableCase(name: "another offset", headers: ["ETag": etag], contentRange: "bytes 5-9/25"),
        UnprovableCase(name: "no Content-Range", headers: ["ETag": etag], contentRange: ""),
    ]

    /// Segments that cannot be proven to belong together: the caller's request goes out once, whole.
    @Test(arguments: unprovable) func anUnprovableFirstSegmentFallsBackToOneRequest(_ testCase: UnprovableCase) {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        var headers = testCase.headers
        if !testCase.contentRange.isEmpty { headers["Content-Range"] = testCase.contentRange }
        #expect(plan.received(response: Self.response(206, headers), of: 0) == .send(.whole(withoutRange: false), number: 1, cancelCurrent: true))
        #expect(plan.received(count: 10, of: 0) == .none, "the first request's late bytes are ignored")
        #expect(plan.completed(.cancelled, of: 0) == .none)
        let whole = Self.response(200, ["Content-Length": "25"])
        #expect(plan.received(response: whole, of: 1) == .forwardResponse(whole))
        #expect(plan.received(count: 25, of: 1) == .forwardData)
        #expect(plan.completed(nil, of: 1) == .complete(nil, cancelCurrent: false))
    }

    @Test func anEmptyResourceIsAskedForWhole() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        let unsatisfiable = Self.response(416, ["Content-Range": "bytes */0"])
        #expect(plan.received(response: unsatisfiable, of: 0) == .send(.whole(withoutRange: false), number: 1, cancelCurrent: true))
    }

    @Test func aChangeBetweenSegmentsStartsOverFromByteZero() throws {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 10, of: 0)
        _ = plan.completed(nil, of: 0)
        // If-Range no longer matches: the server sends the new version whole.
        let restart = plan.received(response: Self.response(200, ["ETag": #""v2""#, "Accept-Ranges": "bytes"]), of: 1)
        #expect(restart == .send(.range(first: 0, last: 9, ifRange: nil), number: 2, cancelCurrent: true))
        #expect(plan.restarts == 1)
        let head = try #require(Self.forwarded(plan.received(response: Self.partial(0, 9, of: 30, ["ETag": #""v2""#]), of: 2)))
        #expect(head.statusCode == 200)
        #expect(head.expectedContentLength == 30)
        _ = plan.received(count: 10, of: 2)
        #expect(plan.completed(nil, of: 2) == .send(.range(first: 10, last: 19, ifRange: #""v2""#), number: 3, cancelCurrent: false))
    }

    @Test func aResumedCallerWhoseResourceChangedGetsTheWholeNewVersion() throws {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: 7, callerValidator: Self.etag, readsAhead: false)
        let changed = Self.response(200, ["ETag": #""v2""#, "Accept-Ranges": "bytes"])
        #expect(plan.received(response: changed, of: 0) == .send(.range(first: 0, last: 9, ifRange: nil), number: 1, cancelCurrent: true))
        let head = try #require(Self.forwarded(plan.received(response: Self.partial(0, 9, of: 25, ["ETag": #""v2""#]), of: 1)))
        #expect(head.statusCode == 200, "the caller drops what it kept and takes the new version")
        #expect(head.expectedContentLength == 25)
    }

    @Test func aMismatchedContentRangeCountsAsAChange() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 10, of: 0)
        _ = plan.completed(nil, of: 0)
        #expect(
            plan.received(response: Self.partial(10, 19, of: 40), of: 1)
                == .send(.range(first: 0, last: 9, ifRange: nil), number: 2, cancelCurrent: true))
    }

    @Test func afterTheLastRestartTheNewestVersionComesWhole() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        var number: UInt64 = 0
        for _ in 0..<SegmentPlan.maximumRestarts {
            _ = plan.received(response: Self.partial(0, 9, of: 25), of: number)
            _ = plan.received(count: 10, of: number)
            _ = plan.completed(nil, of: number)
            number += 1
            let changed = Self.response(200, ["Accept-Ranges": "bytes", "ETag": #""v9""#])
            #expect(
                plan.received(response: changed, of: number)
                    == .send(.range(first: 0, last: 9, ifRange: nil), number: number + 1, cancelCurrent: true))
            number += 1
        }
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: number)
        _ = plan.received(count: 10, of: number)
        _ = plan.completed(nil, of: number)
        number += 1
        let newest = Self.response(200, ["Accept-Ranges": "bytes", "ETag": #""v10""#])
        #expect(plan.received(response: newest, of: number) == .forwardResponse(newest))
        #expect(plan.received(count: 25, of: number) == .forwardData)
        #expect(plan.completed(nil, of: number) == .complete(nil, cancelCurrent: false))
    }

    @Test func anErrorStatusMidDownloadFailsTheTransfer() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 10, of: 0)
        _ = plan.completed(nil, of: 0)
        let action = plan.received(response: Self.response(503), of: 1)
        guard case .complete(.connectionLost, cancelCurrent: true) = action else {
            Issue.record("expected the transfer to fail, got \(action)")
            return
        }
        #expect(plan.completed(.cancelled, of: 1) == .none, "the transfer already ended")
    }

    @Test func aShortSegmentFailsTheTransfer() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 6, of: 0)
        guard case .complete(.connectionLost, cancelCurrent: false) = plan.completed(nil, of: 0) else {
            Issue.record("a segment that ended early must fail the transfer")
            return
        }
    }

    @Test func aTransportFailureIsPassedOn() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 4, of: 0)
        let lost = TransferFailure.connectionLost("reset")
        #expect(plan.completed(lost, of: 0) == .complete(lost, cancelCurrent: false))
    }

    @Test func cancelEndsTheTransferWithCancelledEvenWhenTheSegmentFinished() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        let first = plan.cancel()
        let second = plan.cancel()
        #expect(first)
        #expect(!second, "a second cancel has nothing to stop")
        #expect(plan.received(count: 10, of: 0) == .none)
        // The task finished before it saw the cancel: no next segment, the caller hears `.cancelled`.
        #expect(plan.completed(nil, of: 0) == .complete(.cancelled, cancelCurrent: false))
        #expect(plan.completed(nil, of: 0) == .none)
    }

    @Test func eventsOfAnotherRequestAreIgnored() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil, readsAhead: false)
        #expect(plan.received(response: Self.partial(0, 9, of: 25), of: 3) == .none)
        #expect(plan.received(count: 10, of: 3) == .none)
        #expect(plan.completed(nil, of: 3) == .none)
    }

    // MARK: Reading ahead

    @Test func halfwayThroughASegmentTheNextIsAskedForAndItsEventsAreHeldThenReplayed() throws {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil)
        let head = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        #expect(head != .none)
        #expect(plan.received(count: 4, of: 0) == .forwardData, "less than half: nothing ahead yet")
        #expect(plan.received(count: 2, of: 0) == .forwardDataAndSendAhead(.range(first: 10, last: 19, ifRange: Self.etag), number: 1))
        #expect(plan.ahead == 1)
        // The request ahead answers while the current one still streams: held, in order.
        #expect(plan.received(response: Self.partial(10, 19, of: 25), of: 1) == .hold)
        #expect(plan.received(count: 3, of: 1) == .hold)
        #expect(plan.received(count: 4, of: 0) == .forwardData, "only one request is ahead at a time")
        #expect(plan.completed(nil, of: 0) == .replayHeld(number: 1))
        #expect(plan.current == 1)
        #expect(plan.ahead == nil)
        // Replayed as the current request's events.
        #expect(plan.received(response: Self.partial(10, 19, of: 25), of: 1) == .none)
        #expect(plan.received(count: 3, of: 1) == .forwardData)
        #expect(plan.received(count: 3, of: 1) == .forwardDataAndSendAhead(.range(first: 20, last: 24, ifRange: Self.etag), number: 2))
        #expect(plan.received(count: 4, of: 1) == .forwardData)
        // The last segment completed before the current one ended: its completion is held too.
        #expect(plan.received(response: Self.partial(20, 24, of: 25), of: 2) == .hold)
        #expect(plan.received(count: 5, of: 2) == .hold)
        #expect(plan.completed(nil, of: 2) == .hold)
        #expect(plan.completed(nil, of: 1) == .replayHeld(number: 2))
        #expect(plan.received(response: Self.partial(20, 24, of: 25), of: 2) == .none)
        #expect(plan.received(count: 5, of: 2) == .forwardData, "no segment after the last")
        #expect(plan.completed(nil, of: 2) == .complete(nil, cancelCurrent: false))
        #expect(plan.requestsSent == 3)
    }

    @Test func cancelStopsHoldingTheRequestAhead() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 5, of: 0)
        #expect(plan.ahead == 1)
        let cancelled = plan.cancel()
        #expect(cancelled)
        #expect(plan.received(response: Self.partial(10, 19, of: 25), of: 1) == .none)
        #expect(plan.completed(.cancelled, of: 1) == .none)
        #expect(plan.completed(.cancelled, of: 0) == .complete(.cancelled, cancelCurrent: false))
    }

    @Test func aFailingSegmentEndsTheTransferAndTheRequestAheadIsDropped() {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 5, of: 0)
        #expect(plan.received(count: 2, of: 1) == .hold)
        let lost = TransferFailure.connectionLost("reset")
        #expect(plan.completed(lost, of: 0) == .complete(lost, cancelCurrent: false))
        #expect(plan.ahead == nil)
        #expect(plan.received(count: 2, of: 1) == .none)
        #expect(plan.completed(nil, of: 1) == .none)
    }

    @Test func aChangeSeenInTheRequestAheadStartsOverWithANewerNumber() throws {
        var plan = SegmentPlan(segmentLength: 10, callerOffset: nil, callerValidator: nil)
        _ = plan.received(response: Self.partial(0, 9, of: 25), of: 0)
        _ = plan.received(count: 10, of: 0)
        let changed = Self.response(200, ["Accept-Ranges": "bytes", "ETag": #""v2""#, "Content-Length": "25"])
        #expect(plan.received(response: changed, of: 1) == .hold)
        #expect(plan.completed(nil, of: 0) == .replayHeld(number: 1))
        #expect(plan.received(response: changed, of: 1) == .send(.range(first: 0, last: 9, ifRange: nil), number: 2, cancelCurrent: true))
        #expect(plan.received(count: 25, of: 1) == .none, "the replaced request's events are ignored")
    }

    @Test(
        arguments: [
            ("GET", nil, true), ("GET", "bytes=100-", true), ("GET", "bytes=0-99", false), ("GET", "bytes=-100", false),
            ("POST", nil, false), ("HEAD", nil, false),
        ] as [(String, String?, Bool)])
    func onlyBodylessGetsWithAnOpenRangeAreSegmented(_ method: String, _ range: String?, _ expected: Bool) {
        var request = URLRequest(url: Self.url)
        request.httpMethod = method
        request.setValue(range, forHTTPHeaderField: "Range")
        #expect(SegmentedDownload.canSegment(request) == expected)
    }
}
