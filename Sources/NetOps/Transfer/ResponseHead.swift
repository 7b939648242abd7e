import Foundation
import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response head as an engine received it: status, URL and header fields (what a
/// `TransferStage` that answers a request itself reports to its `TransferEvents`).
///
/// Making an `HTTPURLResponse` on Linux parses and sanitises every header field (a tenth of an
/// operation's CPU on the NIO engine), and most operations never look at one. The NIO engine hands
/// over the fields as they came; the `HTTPURLResponse` is made the first time someone asks for it
/// and kept, and so is the `HTTPResponse` of swift-http-types, made from the fields directly. The
/// URLSession engine, which has an `HTTPURLResponse` already, wraps it.
public final class ResponseHead: @unchecked Sendable {
    /// The URL the response came from (the last one after redirects).
    public let url: URL
    /// The HTTP status code.
    public let statusCode: Int
    /// The body length the server announced, or nil without a usable `Content-Length`.
    public let expectedContentLength: Int64?
    /// `HTTP/1.1` or `HTTP/2.0` as the engine read it (always `HTTP/1.1` over an `HTTPURLResponse`,
    /// which does not say).
    public let httpVersion: String
    /// The fields in the order they arrived, repeated names kept apart (empty for a head over
    /// an `HTTPURLResponse`, which answers for its own fields).
    private let fields: [(name: String, value: String)]
    /// The response this head was made over, if an engine made one.
    private let foundation: HTTPURLResponse?

    /// The protocol version as OpenTelemetry's `network.protocol.version` writes it (`1.1`,
    /// `2`), or nil when the engine did not say (a head over an `HTTPURLResponse`: libcurl may
    /// have spoken HTTP/2 without FoundationNetworking telling).
    package var protocolVersion: String? {
        guard foundation == nil || !fields.isEmpty else { return nil }
        switch httpVersion {
        case "HTTP/1.1": return "1.1"
        case "HTTP/2.0", "HTTP/2": return "2"
        case "HTTP/1.0": return "1.0"
        default: return httpVersion.hasPrefix("HTTP/") ? String(httpVersion.dropFirst(5)) : nil
        }
    }

    /// The `HTTPURLResponse` and the `HTTPResponse`, once made; each written once, read under
    /// `made`'s lock.
    private let made: Locked<Made>

    /// What a head makes on first use and keeps.
    private struct Made {
        var foundation: HTTPURLResponse?
        var httpTypes: HTTPResponse?
    }

    /// A head for a response from `url` with `statusCode`, over HTTP `httpVersion` (`HTTP/1.1`),
    /// with the header `fields` in the order they came (repeated names kept apart). A
    /// `Content-Length` among them sets `expectedContentLength`.
    public init(url: URL, statusCode: Int, httpVersion: String, fields: [(name: String, value: String)]) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.fields = fields
        self.foundation = nil
        self.made = Locked(Made())
        self.expectedContentLength = Self.announcedLength(in: fields)
    }

    /// A head over a response an engine made already (its fields are not copied).
    package init(_ response: HTTPURLResponse) {
        self.url = response.url ?? URL(fileURLWithPath: "/")
        self.statusCode = response.statusCode
        self.httpVersion = "HTTP/1.1"
        self.fields = []
        self.foundation = response
        self.made = Locked(Made())
        self.expectedContentLength = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
    }

    /// The value of the field `name` (any case); repeated fields joined with ", ".
    public func value(forHTTPHeaderField name: String) -> String? {
        if let foundation { return foundation.value(forHTTPHeaderField: name) }
        var found: String?
        for field in fields where field.name.caseInsensitiveEquals(name) {
            found = found.map { $0 + ", " + field.value } ?? field.value
        }
        return found
    }

    private static func announcedLength(in fields: [(name: String, value: String)]) -> Int64? {
        var announced: Int64?
        for field in fields where field.name.caseInsensitiveEquals("Content-Length") {
            guard let length = decimalLength(field.value), announced == nil || announced == length else { return nil }
            announced = length
        }
        return announced
    }

    /// A `Content-Length` value: decimal digits, spaces or tabs around them allowed; nil for
    /// anything else (a sign, a list, an overflow).
    private static func decimalLength(_ value: String) -> Int64? {
        var length: Int64 = 0
        var digits = 0
        var trailing = false
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !trailing else { return nil }
                let (shifted, overflow) = length.multipliedReportingOverflow(by: 10)
                let (sum, carry) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                length = sum
                digits += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                trailing = digits > 0
            default:
                return nil
            }
        }
        return digits > 0 ? length : nil
    }

    /// The values of every field named `name` (any case), as they came; over an
    /// `HTTPURLResponse`, its one joined value.
    package func fields(named name: String) -> [String] {
        if let foundation { return foundation.value(forHTTPHeaderField: name).map { [$0] } ?? [] }
        return fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Every field in the order it arrived, repeated names kept apart (over an
    /// `HTTPURLResponse`, its fields as it holds them).
    public var orderedFields: [(name: String, value: String)] {
        guard let foundation else { return fields }
        return foundation.allHeaderFields.compactMap { name, value in
            guard let name = name as? String, let value = value as? String else { return nil }
            return (name, value)
        }
    }

    /// Each field once, repeated fields joined with ", " under the name first seen.
    package var headerFields: [String: String] {
        if let foundation {
            var fields: [String: String] = [:]
            for (name, value) in foundation.allHeaderFields {
                if let name = name as? String, let value = value as? String { fields[name] = value }
            }
            return fields
        }
        var joined: [String: String] = [:]
        var spelled: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            let spelling = spelled[key] ?? name
            spelled[key] = spelling
            joined[spelling] = joined[spelling].map { $0 + ", " + value } ?? value
        }
        return joined
    }

    /// The head as an `HTTPURLResponse`, made on first use.
    public var httpURLResponse: HTTPURLResponse {
        if let foundation { return foundation }
        if let response = made.withLock({ $0.foundation }) { return response }
        // Made outside the lock; two threads racing here make two equal responses and keep one.
        let response =
            HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
            ?? HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: [:])!
        return made.withLock { kept in
            if let foundation = kept.foundation { return foundation }
            kept.foundation = response
            return response
        }
    }

    /// The head as swift-http-types' `HTTPResponse`, made on first use and kept; nil for a status
    /// outside 0...999, which `HTTPResponse` cannot hold.
    ///
    /// From the fields as they arrived (the NIO engine, a cache's answer): in their order,
    /// repeated fields apart, no `HTTPURLResponse` made. Over an `HTTPURLResponse` (the URLSession
    /// engine): its fields, each name once with repeated values joined by ", ", in no set order.
    /// A field whose name is not an HTTP token is left out.
    package var httpResponse: HTTPResponse? {
        guard (0...999).contains(statusCode) else { return nil }
        if let response = made.withLock({ $0.httpTypes }) { return response }
        // Made outside the lock, as `httpURLResponse` is.
        let response = HTTPResponse(status: .init(code: statusCode), headerFields: httpFields)
        return made.withLock { kept in
            if let httpTypes = kept.httpTypes { return httpTypes }
            kept.httpTypes = response
            return response
        }
    }

    /// The fields as swift-http-types' `HTTPFields`.
    private var httpFields: HTTPFields {
        guard let foundation else {
            var converted = HTTPFields()
            converted.reserveCapacity(fields.count)
            for (name, value) in fields {
                guard let name = HTTPField.Name(name) else { continue }
                converted.append(HTTPField(name: name, value: value))
            }
            return converted
        }
        #if canImport(FoundationNetworking)
        // FoundationNetworking reads a header line as UTF-8 text; HTTPTypesFoundation's
        // `httpResponse` takes that text for ISO Latin-1, as Apple's Foundation makes it, and would
        // turn a value past ASCII into other bytes (`é` into a lone 0xE9). Converted here as UTF-8.
        var converted = HTTPFields()
        for (name, value) in foundation.allHeaderFields {
            guard let name = name as? String, let value = value as? String, let fieldName = HTTPField.Name(name) else { continue }
            converted.append(HTTPField(name: fieldName, value: value))
        }
        return converted
        #else
        return foundation.httpResponse?.headerFields ?? HTTPFields()
        #endif
    }
}
