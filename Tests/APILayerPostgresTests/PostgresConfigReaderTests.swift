import APILayerPostgres
import Configuration
import Crypto
import Foundation
import NetOps
import NetOpsHTTP
import Testing

/// `PostgresTokenStore.Configuration(configReader:)` and `PostgresTokenStore.key(configReader:)`.
@Suite struct PostgresConfigReaderTests {
    static func reader(_ values: [AbsoluteConfigKey: ConfigValue]) -> ConfigReader {
        ConfigReader(provider: InMemoryProvider(values: values))
    }

    @Test func everyKeyIsRead() throws {
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let config = Self.reader([
            "api": "billing", "account": "eu", "table": "tokens_eu", "lease": 7, "lockWaitTimeout": 20, "pollInterval": 0.1,
            "queryTimeout": 2, "expiryLeeway": 0, "holder": "pod-3",
            "key": ConfigValue(.string(key), isSecret: true),
        ])
        let configuration = try PostgresTokenStore.Configuration(configReader: config)
        #expect(configuration.api == "billing" && configuration.account == "eu" && configuration.table == "tokens_eu")
        #expect(configuration.lease == 7 && configuration.lockWaitTimeout == 20 && configuration.pollInterval == 0.1)
        #expect(configuration.queryTimeout == 2 && configuration.expiryLeeway == 0 && configuration.holder == "pod-3")
        let read = try PostgresTokenStore.key(configReader: config)
        #expect(read.withUnsafeBytes { Data($0) } == Data((0..<32).map { UInt8($0) }))
    }

    @Test func wrongValuesNameTheirKey() throws {
        #expect(throws: ConfigurationError(key: "api", reason: .missing)) {
            try PostgresTokenStore.Configuration(configReader: Self.reader([:]))
        }
        #expect(throws: ConfigurationError.self) {
            try PostgresTokenStore.Configuration(configReader: Self.reader(["api": "a", "table": "x; DROP TABLE y"]))
        }
        #expect(throws: ConfigurationError(key: "lease", reason: .outOfRange("at least 1 second"))) {
            try PostgresTokenStore.Configuration(configReader: Self.reader(["api": "a", "lease": 0.5]))
        }
        let short = Data(repeating: 1, count: 16).base64EncodedString()
        let error = #expect(throws: ConfigurationError.self) {
            try PostgresTokenStore.key(configReader: Self.reader(["key": ConfigValue(.string(short), isSecret: true)]))
        }
        #expect(error?.key == "key")
        #expect(error.map { "\($0)" }?.contains(short) == false)
        #expect(throws: ConfigurationError(key: "key", reason: .missing)) { try PostgresTokenStore.key(configReader: Self.reader([:])) }
    }

    /// The key from a mounted secret file.
    @Test func theKeyFromAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try (Data(repeating: 7, count: 32).base64EncodedString() + "\n").write(to: file, atomically: true, encoding: .utf8)
        // A key file others may read is refused (`SecretFile`).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let key = try PostgresTokenStore.key(configReader: Self.reader(["keyFile": .init(.string(file.path), isSecret: false)]))
        #expect(key.withUnsafeBytes { Data($0) } == Data(repeating: 7, count: 32))
    }
}
