import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The resolver half of a connectivity check: does a host name resolve?
///
/// `getaddrinfo(3)` blocks and cannot be cancelled, so each lookup runs on a thread of its own
/// and the answer is "no" once `timeout` has passed; a lookup that returns later is ignored.
package enum ResolverProbe {
    /// Whether `host` resolves to at least one address within `timeout` seconds.
    package static func resolves(_ host: String, timeout: TimeInterval) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answered = Locked(false)
            let answer: @Sendable (Bool) -> Void = { resolved in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: resolved) }
            }
            let lookup = Thread { answer(lookUp(host)) }
            lookup.name = "NetOps resolver probe"
            lookup.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { answer(false) }
        }
    }

    private static func lookUp(_ host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        if let result { freeaddrinfo(result) }
        return status == 0
    }
}
