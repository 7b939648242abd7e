#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The machine's network interfaces, as `getifaddrs(3)` lists them: the local half of a
/// connectivity check, answered in microseconds without any packet sent.
package enum NetworkInterfaces {
    /// The names of the interfaces, loopback excluded, that are up and running and hold an
    /// address that can reach beyond the link (IPv4 other than 169.254/16, IPv6 other than
    /// fe80::/10), sorted and without repeats. Empty when none is, or when `getifaddrs` fails.
    package static func usable() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var names = Set<String>()
        var next: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = next {
            next = entry.pointee.ifa_next
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            let wanted = Int32(IFF_UP) | Int32(IFF_RUNNING)
            guard flags & wanted == wanted, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_addr, reachesBeyondTheLink(address)
            else { continue }
            names.insert(String(cString: entry.pointee.ifa_name))
        }
        return names.sorted()
    }

    private static func reachesBeyondTheLink(_ address: UnsafeMutablePointer<sockaddr>) -> Bool {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                // s_addr is in network order: its first byte in memory is the first octet.
                let octets = withUnsafeBytes(of: ipv4.pointee.sin_addr.s_addr) { Array($0) }
                return !(octets[0] == 169 && octets[1] == 254)
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                let bytes = withUnsafeBytes(of: ipv6.pointee.sin6_addr) { Array($0) }
                return !(bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80)
            }
        default:
            return false
        }
    }
}
