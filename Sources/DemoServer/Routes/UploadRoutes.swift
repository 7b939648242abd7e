import Crypto
import Foundation
import Hummingbird
import MultipartKit

extension DemoRoutes {
    /// `POST /upload` (any body: its length, SHA-256 and the `Content-Type` it came with) and `POST /multipart` (each part described).
    static func addUploadRoutes(to router: Router<BasicRequestContext>) {
        for method in [HTTPRequest.Method.post, .put] {
            router.on("upload", method: method) { request, _ in
                var hasher = SHA256()
                var length = 0
                for try await buffer in request.body {
                    buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                    length += buffer.readableBytes
                }
                let type = request.headers[.contentType].map { #","contentType":\#(quoted($0))"# } ?? ""
                return json(#"{"length":\#(length),"sha256":"\#(hex(hasher.finalize()))"\#(type)}"#)
            }
        }

        router.post("multipart") { request, _ in
            guard let contentType = request.headers[.contentType],
                let boundary = boundary(of: contentType)
            else {
                throw HTTPError(.badRequest, message: "expected multipart/form-data with a boundary")
            }
            let body = try await request.body.collect(upTo: 256 << 20)
            let parts = try describeParts(body, boundary: boundary)
            return json(#"{"parts":[\#(parts.joined(separator: ","))]}"#)
        }
    }

    /// Lowercase hexadecimal of a digest.
    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The boundary of a `multipart/form-data` content type, or nil for another type.
    static func boundary(of contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// One JSON object per part: name, filename, content type, length, SHA-256, and the text of small parts.
    private static func describeParts(_ body: ByteBuffer, boundary: String) throws -> [String] {
        let parser = MultipartParser(boundary: boundary)
        var described: [String] = []
        var headers: [String: String] = [:]
        var hasher = SHA256()
        var content: [UInt8] = []
        parser.onHeader = { name, value in headers[name.lowercased()] = value }
        parser.onBody = { buffer in
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            if content.count < 4_096 { content.append(contentsOf: buffer.readableBytesView.prefix(4_096 - content.count)) }
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        }
        var lengths = 0
        parser.onPartComplete = {
            let disposition = headers["content-disposition"] ?? ""
            let name = dispositionParameter("name", in: disposition) ?? ""
            let filename = dispositionParameter("filename", in: disposition)
            let digest = hex(hasher.finalize())
            var fields = [#""name":\#(quoted(name))"#, #""sha256":"\#(digest)""#, #""length":\#(lengths)"#]
            if let filename { fields.append(#""filename":\#(quoted(filename))"#) }
            if let type = headers["content-type"] { fields.append(#""contentType":\#(quoted(type))"#) }
            if filename == nil { fields.append(#""value":\#(quoted(String(decoding: content, as: UTF8.self)))"#) }
            described.append("{\(fields.joined(separator: ","))}")
            headers = [:]
            hasher = SHA256()
            content = []
            lengths = 0
        }
        let countingBody = parser.onBody
        parser.onBody = { buffer in
            lengths += buffer.readableBytes
            countingBody(&buffer)
        }
        try parser.execute(body)
        return described
    }

    /// The bytes of the first part of a multipart body that carries a file name, or nil when no
    /// part does (or the body is not well formed).
    ///
    /// Searches for the delimiters with `Data.range(of:)` rather than a byte-by-byte parser, so
    /// that large photos are quick to take apart even in a debug or sanitizer build.
    static func firstFile(in body: ByteBuffer, boundary: String) -> Data? {
        let data = Data(buffer: body)
        let opening = Data("--\(boundary)".utf8)
        let closing = Data("\r\n--\(boundary)".utf8)
        let blankLine = Data("\r\n\r\n".utf8)
        guard var part = data.range(of: opening) else { return nil }
        while let headersEnd = data.range(of: blankLine, in: part.upperBound..<data.endIndex),
            let next = data.range(of: closing, in: headersEnd.upperBound..<data.endIndex)
        {
            let headers = String(decoding: data[part.upperBound..<headersEnd.lowerBound], as: UTF8.self)
            let disposition = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-disposition:") }
            if let disposition, dispositionParameter("filename", in: String(disposition)) != nil {
                return data.subdata(in: headersEnd.upperBound..<next.lowerBound)
            }
            part = next
        }
        return nil
    }

    /// A parameter (`name`, `filename`) of a `Content-Disposition` header value.
    static func dispositionParameter(_ name: String, in disposition: String) -> String? {
        for parameter in disposition.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == name {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}
