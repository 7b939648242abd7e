import Foundation

/// Whether a host is this machine's own: `localhost` (and names under it), `127.0.0.0/8` and
/// `::1`. Traffic to it never leaves the machine, so cleartext there exposes nothing a network
/// can read: a sidecar, a local agent, a test server.
package enum Loopback {
    /// Whether `host` (a URL's host, with or without the brackets of an IPv6 literal, any case,
    /// maybe with a trailing dot) is a loopback name or address.
    package static func contains(host: String?) -> Bool {
        guard var name = host?.lowercased(), !name.isEmpty else { return false }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
        }
        return false
    }

    /// Whether `url` is `http://` (or another scheme than https) to a host that is not loopback:
    /// what crosses the network there can be read and changed on the way.
    package static func isCleartextOffMachine(_ url: URL?) -> Bool {
        guard let url else { return false }
        return url.scheme?.lowercased() != "https" && !contains(host: url.host)
    }
}
