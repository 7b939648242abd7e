import FuzzSupport
import Foundation
import Validator

/// libFuzzer entry: the Validator given a fuzzed template and a fuzzed response.
///
/// The input is split at its first NUL byte: the template before it, the response after it
/// (without a NUL, the input is both). Either may fail to parse or be an invalid template;
/// nothing may crash, whatever the mask.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidator(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let split = data.firstIndex(of: 0)
    let templateBytes = split.map { data[data.startIndex..<$0] } ?? data
    let responseBytes = split.map { data[data.index(after: $0)...] } ?? data
    guard let templateJSON = try? JSONValue(parsing: Data(templateBytes)) else { return 0 }
    _ = Validator.checkTemplate(templateJSON)
    guard let template = try? Template(templateJSON),
          let response = try? JSONValue(parsing: Data(responseBytes)) else { return 0 }
    for mask in [ValidationMask.all, .keys, [.keys, .valueTypes], .extendedRules] {
        let errors = Validator.validate(response, against: template, mask: mask)
        let first = Validator.validate(response, against: template, mask: mask, failFast: true)
        if errors.isEmpty != first.isEmpty || first.count > 1 {
            fatalError("failFast disagrees with the full run: \(errors.count) vs \(first.count) errors")
        }
        for error in errors { _ = String(describing: error) }
    }
    return 0
}

/// The process entry (`FuzzValidator_main`, see `runLibFuzzer`).
@_cdecl("FuzzValidator_main")
public func fuzzValidatorMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { bytes, size in
        guard let bytes else { return 0 }
        return fuzzValidator(bytes, size)
    }
}
