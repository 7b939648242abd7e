import Foundation
import LocalPostgres
import TestSupport
import Testing

/// A private PostgreSQL cluster starts, answers, goes away as on a crash, comes back on its port,
/// and leaves nothing behind.
@Suite(.timeLimit(.minutes(2)), .requires(.postgresql))
struct LocalPostgresClusterTests {
    @Test func aClusterStartsHaltsResumesAndStops() throws {
        let cluster = try LocalPostgresCluster.start()
        defer { cluster.stop() }
        #expect(cluster.host == "127.0.0.1")
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
}
