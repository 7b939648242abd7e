import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How both engines treat a response body in a content coding (`Content-Encoding`): decoded when
/// the engine can, bounded against decompression bombs, refused with one clear error when it
/// cannot — never handed on still encoded.
///
/// The failures are `TransferFailure.other` with `failureCode` (Foundation's "cannot decode
/// content data", -1016), so an operation reports `NetOpsError.Kind.transport(code: -1016, …)`
/// with a reason that names the coding or the limit, on either engine.
package enum ContentDecoding {
    /// The code of every decoding failure: `URLError.Code.cannotDecodeContentData`.
    package static let failureCode = -1016

    /// A decoded body may be at most this many times its encoded size (the NIO engine's default,
    /// and the URLSession engine's fixed limit).
    package static let ratioLimit = 100

    /// The most bytes the URLSession engine decodes from an encoded body whose encoded size is
    /// not announced (chunked): it cannot count the encoded bytes libcurl read.
    package static let unannouncedLimit: Int64 = 64 << 20

    /// The codings listed in a `Content-Encoding` value, lowercased, in order, `identity` left out.
    package static func codings(_ header: String?) -> [String] {
        guard let header else { return [] }
        return header.split(separator: ",").map { $0.trimmingHTTPWhitespace().lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
    }

    /// Whether a response with `status` to a request with `method` has a body to decode (HEAD,
    /// 1xx, 204 and 304 answers have none, whatever their headers say).
    package static func mayHaveBody(status: Int, method: String?) -> Bool {
        method?.uppercased() != "HEAD" && status >= 200 && status != 204 && status != 304
    }

    /// The failure for a response in `codings` that the engine cannot decode, nil when it can.
    ///
    /// - Parameters:
    ///   - codings: the response's codings (`codings(_:)`).
    ///   - decodable: what the engine decodes.
    ///   - stacked: whether the engine decodes more than one coding applied in a row.
    ///   - engine: the engine's name, for the reason.
    package static func refusal(of codings: [String], decodable: Set<String>, stacked: Bool, engine: String) -> TransferFailure? {
        guard !codings.isEmpty else { return nil }
        if codings.allSatisfy(decodable.contains), stacked || codings.count == 1 { return nil }
        let listed = codings.joined(separator: ", ")
        let known = decodable.sorted().joined(separator: ", ")
        return .other(
            code: failureCode,
            reason: "the response body is encoded as '\(listed)' (Content-Encoding), which the \(engine) engine cannot decode (it decodes \(known))")
    }

    /// The failure for a decoded body that outgrew `limit` (e.g. "100 times its encoded size"),
    /// with the bytes decoded so far when the engine knows them.
    package static func bomb(decoded: Int64?, limit: String) -> TransferFailure {
        let count = decoded.map { " (\($0) bytes decoded)" } ?? ""
        return .other(code: failureCode, reason: "the decoded response body grew past \(limit)\(count): a decompression bomb?")
    }

    /// The failure for an encoded body that is not valid in its coding.
    package static func corrupt(_ detail: String) -> TransferFailure {
        .other(code: failureCode, reason: "the response body could not be decoded: \(detail)")
    }

    /// `response` as the operation sees a decoded body: without `Content-Length`, which counts
    /// the encoded bytes (the decoded length is not known before the body ends).
    package static func decoded(_ response: HTTPURLResponse) -> HTTPURLResponse {
        guard response.value(forHTTPHeaderField: "Content-Length") != nil, let url = response.url else { return response }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String, !name.caseInsensitiveEquals("Content-Length") else { continue }
            fields[name] = value
        }
        return HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: fields) ?? response
    }
}
