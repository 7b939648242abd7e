import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process (and the `apilayer` built beside it) runs under a sanitizer's runtime.
///
/// Read from the process's dynamic symbols: `swift test --sanitize=thread|address` links the
/// runtime into every executable of the build and exports its entry point.
public enum SanitizerRuntime {
    /// ThreadSanitizer or AddressSanitizer is linked into this process.
    public static let isActive: Bool = isThread || isAddress

    /// ThreadSanitizer is linked into this process.
    public static let isThread: Bool = exports("__tsan_init")

    /// AddressSanitizer is linked into this process.
    public static let isAddress: Bool = exports("__asan_init")

    private static func exports(_ symbol: String) -> Bool {
        #if canImport(Glibc)
        // A null handle is RTLD_DEFAULT: the executable and every library it loaded.
        return dlsym(nil, symbol) != nil
        #else
        return false
        #endif
    }
}
