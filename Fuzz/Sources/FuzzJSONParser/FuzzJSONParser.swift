import FuzzSupport
import Foundation
import JSONCore

/// libFuzzer entry: JSONCore's JSON parser on arbitrary bytes.
///
/// Any input may be refused with a `JSONParseError` whose offset lies inside the input, never
/// crash. The parser reads strings eight bytes at a time, so the same bytes at another
/// alignment (one byte into a larger buffer) must give the same answer. A document that parses
/// must survive the serializer's round trip: serialized and parsed again, it is the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var shifted = Data([0x20])
    shifted.append(data)
    let parsed = Result { try JSONValue(parsing: data) }
    let parsedShifted = Result { try JSONValue(parsing: shifted.dropFirst()) }
    switch (parsed, parsedShifted) {
    case let (.success(one), .success(other)) where one == other:
        break
    case let (.failure(one as JSONParseError), .failure(other as JSONParseError)) where one == other:
        guard one.offset >= 0, one.offset <= count else { fatalError("error offset \(one.offset) outside \(count) bytes: \(one)") }
    default:
        fatalError("the same bytes at another alignment parse differently: \(parsed) / \(parsedShifted)")
    }
    guard case let .success(value) = parsed else { return 0 }
    let text = value.serialized()
    guard let again = try? JSONValue(parsing: text) else {
        fatalError("the serialization of a parsed document does not parse: \(String(decoding: text, as: UTF8.self))")
    }
    if again != value {
        fatalError("round trip changed the value: \(String(decoding: text, as: UTF8.self))")
    }
    _ = value.serialized(pretty: true)
    return 0
}

/// The process entry (`FuzzJSONParser_main`, see `runLibFuzzer`).
@_cdecl("FuzzJSONParser_main")
public func fuzzJSONParserMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { bytes, size in
        guard let bytes else { return 0 }
        return fuzzJSONParser(bytes, size)
    }
}
