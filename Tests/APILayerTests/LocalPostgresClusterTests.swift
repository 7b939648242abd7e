import Foundation
import LocalPostgres
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster starts, answers, goes away as on a crash, comes back on its port,
/// and leaves nothing behind.
@Suite(.timeLimit(.minutes(2)), .requires(.postgresql))
struct LocalPostgresClusterTests {
    @Test func aClusterStartsHaltsResumesAndStops() throws {
        let cluster = try LocalPostgresCluster.start()
        defer { cluster.stop() }
        #expect(cluster.port > 0)
        #expect(try cluster.psql("SELECT 1") == "1")
        #expect(try cluster.psql("SELECT current_user") == "apilayer")

        try cluster.psql("CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)")
        try cluster.halt()
        #expect(throws: LocalPostgresError.self) { try cluster.psql("SELECT 1") }
        #expect(FileManager.default.fileExists(atPath: cluster.directory.path))

        try cluster.resume()
        #expect(try cluster.psql("SELECT 1") == "1")
        #expect(try cluster.psql("SELECT id FROM kept") == "7")

        cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: cluster.directory.path))
        cluster.stop()
        #expect(throws: LocalPostgresError.self) { try cluster.psql("SELECT 1") }
    }

    /// The cluster's superuser connects without a password: the server listens on a Unix socket
    /// in the cluster's 0700 folder only, which no other local user can reach — never on a TCP
    /// port of 127.0.0.1, where any local user could.
    @Test func aClusterListensOnItsPrivateSocketOnly() throws {
        let cluster = try LocalPostgresCluster.start()
        defer { cluster.stop() }
        #expect(try cluster.psql("SELECT 1") == "1")
        var status = stat()
        #expect(stat(cluster.socketPath, &status) == 0, "no socket at \(cluster.socketPath)")
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(stat(cluster.directory.path, &status) == 0)
        #expect(status.st_mode & 0o077 == 0, "the cluster's folder is open to others")
        #expect(!Self.acceptsTCP(port: cluster.port), "the server listens on 127.0.0.1:\(cluster.port)")
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
    static func acceptsTCP(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
