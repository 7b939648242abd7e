import Foundation

extension JSONValue {
    /// Serializes deterministically (object keys sorted), pretty-printed with 2-space indent when `pretty`.
    ///
    /// Keys are sorted by their UTF-8 bytes, so equal values always give equal bytes. Strings
    /// escape `"`, `\` and control characters only (non-ASCII text stays UTF-8). A `.double` is
    /// written so that parsing it back gives the same `Double` and a `.double` again (`2.0`, not
    /// `2`); NaN and infinities, which JSON cannot express, are written as `null`.
    /// - Parameter pretty: Newlines and 2-space indentation, `"key": value` members.
    /// - Returns: UTF-8 bytes of one JSON document.
    public func serialized(pretty: Bool = false) -> Data {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self, indent: 0)
        return Data(writer.output)
    }

    /// The compact serialization as a `String`; see `serialized(pretty:)`.
    public var jsonText: String {
        var writer = JSONWriter(pretty: false)
        writer.write(self, indent: 0)
        return String(decoding: writer.output, as: UTF8.self)
    }
}
