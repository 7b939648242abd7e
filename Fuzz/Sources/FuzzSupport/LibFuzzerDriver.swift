/// What libFuzzer calls with each input: its bytes (nil when empty) and their count.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Hands the process to libFuzzer's driver with `callback` as the fuzz target.
///
/// SwiftPM links an executable's `main` to `<Target>_main`, so each fuzz target defines that
/// symbol with `@_cdecl` and calls this; libFuzzer's own `main` is then never linked in.
public func runLibFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ callback: FuzzTestOneInput
) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runFuzzerDriver(&count, &arguments, callback)
}

/// libFuzzer's `LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzTestOneInput
) -> CInt
