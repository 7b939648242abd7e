import Foundation
import NIOHTTP1
import NetOps
import Testing

@testable import NetOpsNIO

/// What the NIO engine remembers of the origins that answered over HTTP/2 (`HTTP2Pinning`):
/// an origin is pinned once it answered over HTTP/2 and unpinned by an answer over HTTP/1.x.
struct HTTP2PinningTests {
    @Test func anOriginIsSchemeHostAndPortWithDefaultPorts() throws {
        let origin = try #require(Origin(URL(string: "https://API.Example.com/v1/users?page=2")!))
        #expect(origin == Origin(URL(string: "https://api.example.com:443/other")!))
        #expect(origin != Origin(URL(string: "https://api.example.com:8443/v1")!))
        #expect(origin != Origin(URL(string: "http://api.example.com/v1")!))
        #expect(Origin(URL(string: "http://api.example.com/")!)?.port == 80)
        #expect(Origin(URL(string: "file:///tmp/x")!) == nil)
    }

    @Test func anAnswerOverHTTP2PinsAndAnAnswerOverHTTP1Unpins() throws {
        let pinning = HTTP2Pinning()
        let origin = try #require(Origin(URL(string: "https://api.example.com/")!))
        let other = try #require(Origin(URL(string: "https://other.example.com/")!))
        #expect(!pinning.pins(origin))
        // Unknown: the request ran unpinned; ALPN chose HTTP/2.
        HTTP2Watch(pinning: pinning, origin: origin, pinned: false).observe(.http2)
        #expect(pinning.pins(origin))
        #expect(!pinning.pins(other))
        // A pinned request answered over HTTP/2 changes nothing.
        HTTP2Watch(pinning: pinning, origin: origin, pinned: true).observe(.http2)
        #expect(pinning.pins(origin))
        // The server went back to HTTP/1.1: the origin's requests run unpinned again.
        HTTP2Watch(pinning: pinning, origin: origin, pinned: true).observe(.http1_1)
        #expect(!pinning.pins(origin))
        // An unpinned request answered over HTTP/1.1 changes nothing either.
        HTTP2Watch(pinning: pinning, origin: other, pinned: false).observe(.http1_1)
        #expect(!pinning.pins(other))
    }
}
