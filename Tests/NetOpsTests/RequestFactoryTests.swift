import Foundation
import Testing

@testable import NetOps

/// Building requests and parsing the headers resumption depends on, without a server.
struct RequestFactoryTests {
    /// The byte-level escape gives what Foundation's `addingPercentEncoding` with the
    /// unreserved set gives, for ASCII, Unicode, emoji, controls and every reserved character.
    @Test func escapeMatchesFoundationsPercentEncoding() {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var samples = ["", "plain", "two words", "a&b=c?d/e#f", "héllo ✓", "日本語", "👩‍💻 x", "\u{0}\u{7F}\t\n", "%41", "-._~"]
        samples.append(String((0..<128).compactMap { UnicodeScalar($0).map(Character.init) }))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0..<20, using: &generator)).compactMap { _ in
                UnicodeScalar(UInt32.random(in: 0..<0x1_0000, using: &generator))
            }
            samples.append(String(String.UnicodeScalarView(scalars)))
        }
        for sample in samples {
            #expect(RequestFactory.escape(sample) == sample.addingPercentEncoding(withAllowedCharacters: unreserved), "\(sample.debugDescription)")
        }
    }

    @Test func queryParametersAreSortedEscapedAndAppended() throws {
        let request = try RequestFactory.make(.get, "http://host/path?v=5", parameters: ["b": "x y", "a": ["1", "2"], "c": ["k": "v"]]).get()
        #expect(request.url?.absoluteString == "http://host/path?v=5&a=1&a=2&b=x%20y&c%5Bk%5D=v")
        #expect(request.httpBody == nil)
    }

    @Test func everyKindOfValueIsFormEncodedAsItReads() {
        let parameters: Parameters = [
            "text": "a b&c", "flag": true, "off": false, "int": -42, "double": 1.5, "big": UInt64.max, "sub": Substring("x/y"),
            "list": [1, "two", true] as [any Sendable], "nested": ["b": 2, "a": ["z": "1"] as [String: any Sendable]] as [String: any Sendable],
            "number": NSNumber(value: 7), "empty": [] as [any Sendable],
        ]
        #expect(
            RequestFactory.formEncoded(parameters)
                == "big=18446744073709551615&double=1.5&flag=true&int=-42&list=1&list=two&list=true&nested%5Ba%5D%5Bz%5D=1"
                + "&nested%5Bb%5D=2&number=7&off=false&sub=x%2Fy&text=a%20b%26c")
        #expect(RequestFactory.formEncoded([:]).isEmpty)
    }

    @Test func jsonBodyWithContentType() throws {
        let request = try RequestFactory.make(.post, "http://host/p", parameters: ["n": 1, "s": "t"]).get()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.httpBody == Data(#"{"n":1,"s":"t"}"#.utf8))
    }

    @Test func callerHeadersWin() throws {
        let request = try RequestFactory.make(
            .post, "http://host/p", parameters: ["a": 1], encoding: .form,
            headers: ["Content-Type": "text/plain"]
        ).get()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }

    @Test(arguments: ["", "no scheme", "http://", "://x"])
    func invalidURLsAreReportedNotTrapped(_ text: String) {
        guard case let .failure(error) = RequestFactory.make(.get, text) else {
            Issue.record("'\(text)' was accepted")
            return
        }
        #expect(error.kind == .invalidURL(text))
    }

    struct RangeCase: Sendable {
        let header: String
        let parsed: ContentRange?
    }

    @Test(arguments: [
        RangeCase(header: "bytes 100-199/1000", parsed: ContentRange(first: 100, last: 199, total: 1000)),
        RangeCase(header: "bytes 0-0/*", parsed: ContentRange(first: 0, last: 0, total: nil)),
        RangeCase(header: "bytes 5-4/10", parsed: nil),
        RangeCase(header: "items 1-2/3", parsed: nil),
        RangeCase(header: "bytes */1000", parsed: nil),
    ])
    func contentRange(_ testCase: RangeCase) {
        #expect(ContentRange(testCase.header) == testCase.parsed)
    }
}

extension ContentRange {
    init(first: Int64, last: Int64, total: Int64?) {
        self.init("bytes \(first)-\(last)/\(total.map(String.init) ?? "*")")!
    }
}
