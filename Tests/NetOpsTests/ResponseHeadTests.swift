import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The response head the NIO engine hands over without making an `HTTPURLResponse`.
struct ResponseHeadTests {
    let url = URL(string: "http://127.0.0.1/items")!

    @Test func fieldsAreFoundInAnyCaseAndRepeatedOnesJoined() {
        let head = ResponseHead(
            url: url, statusCode: 206, httpVersion: "HTTP/1.1",
            fields: [("Content-Type", "application/json"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2"), ("ETag", "\"v1\"")])
        #expect(head.statusCode == 206)
        #expect(head.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(head.value(forHTTPHeaderField: "SET-COOKIE") == "a=1, b=2")
        #expect(head.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(head.value(forHTTPHeaderField: "Content-Typ") == nil)
        #expect(head.headerFields == ["Content-Type": "application/json", "set-cookie": "a=1, b=2", "ETag": "\"v1\""])
        #expect(BaseOperation.rangeValidator(of: head) == "\"v1\"")
    }

    @Test func orderedFieldsKeepTheOrderAndTheRepeatsAsTheyArrived() {
        let fields = [("B", "1"), ("a", "2"), ("b", "3")]
        let head = ResponseHead(url: url, statusCode: 200, httpVersion: "HTTP/1.1", fields: fields)
        #expect(head.orderedFields.map { "\($0.name)=\($0.value)" } == ["B=1", "a=2", "b=3"])
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["X-One": "1"])!
        #expect(ResponseHead(response).orderedFields.map { "\($0.name)=\($0.value)" } == ["X-One=1"])
    }

    @Test func contentLengthIsReadOnlyWhenItIsOneNumber() {
        func length(_ values: [String]) -> Int64? {
            ResponseHead(url: url, statusCode: 200, httpVersion: "HTTP/1.1", fields: values.map { ("content-length", $0) })
                .expectedContentLength
        }
        #expect(length(["42"]) == 42)
        #expect(length([" 42 "]) == 42)
        #expect(length(["42", "42"]) == 42)
        #expect(length(["42", "43"]) == nil)
        #expect(length(["-1"]) == nil)
        #expect(length(["4x"]) == nil)
        #expect(length([]) == nil)
        #expect(length(["+42"]) == nil)
        #expect(length(["4 2"]) == nil)
        #expect(length(["42, 42"]) == nil)
        #expect(length(["\t0"]) == 0)
        #expect(length(["  "]) == nil)
        #expect(length(["9223372036854775807"]) == Int64.max)
        #expect(length(["9223372036854775808"]) == nil)
    }

    @Test func theHTTPURLResponseIsMadeOnceWhenAskedFor() throws {
        let head = ResponseHead(url: url, statusCode: 404, httpVersion: "HTTP/1.1", fields: [("X-Trace", "abc"), ("Content-Length", "7")])
        let response = head.httpURLResponse
        #expect(response === head.httpURLResponse)
        #expect(response.statusCode == 404)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "x-trace") == "abc")
        #expect(response.expectedContentLength == 7)

        let made = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "3"]))
        let wrapped = ResponseHead(made)
        #expect(wrapped.httpURLResponse === made)
        #expect(wrapped.expectedContentLength == 3)
        #expect(wrapped.value(forHTTPHeaderField: "content-length") == "3")
    }
}
