import Foundation
import Validator

/// libFuzzer entry: Validator's JSON parser on arbitrary bytes.
///
/// Any input may be refused with a `JSONParseError`, never crash. A document that parses must
/// survive the serializer's round trip: serialized and parsed again, it is the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let value = try? JSONValue(parsing: data) else { return 0 }
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

/// The process entry. SwiftPM links an executable's `main` to `FuzzJSONParser_main`, so this hands
/// control to libFuzzer's driver (its own `main` is then never linked in).
@_cdecl("FuzzJSONParser_main")
public func fuzzJSONParserMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runFuzzerDriver(&count, &arguments) { bytes, size in
        guard let bytes else { return 0 }
        return fuzzJSONParser(bytes, size)
    }
}

/// libFuzzer's `LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
