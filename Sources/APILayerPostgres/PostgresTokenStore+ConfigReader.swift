import Configuration
import Crypto
import Foundation
import NetOps
import NetOpsHTTP

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension PostgresTokenStore.Configuration {
    /// The row and the lease read from `configReader`, scoped by the caller (by convention the
    /// API's `tokenStore` section: `billing.tokenStore.lease`, `BILLING_TOKEN_STORE_LEASE`).
    ///
    /// ## Configuration keys
    /// - `api` (string, required): the API the token is for.
    /// - `account` (string, default `default`).
    /// - `table` (lower-case SQL identifier, or `schema.table`; default `apilayer_tokens`, in
    ///   schema `public`).
    /// - `lease` (seconds ≥ 1, default 15), `lockWaitTimeout` (seconds > 0, default 30),
    ///   `pollInterval` (seconds > 0, default 0.05), `queryTimeout` (seconds > 0, default 5),
    ///   `expiryLeeway` (seconds ≥ 0, default 5).
    /// - `holder` (string, default `host:pid`): the name the lease gives this replica.
    ///
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong.
    public init(configReader: ConfigReader) throws {
        let settings = ConfigSettingsReader(configReader)
        self.init(api: try settings.required("api", try settings.string("api")))
        if let account = try settings.string("account") { self.account = account }
        if let table = try settings.string("table") {
            guard TokenTable.isValidTableName(table) else {
                throw settings.error(
                    "table", .invalid("a lower-case SQL identifier (letters, digits, _), at most 63 characters, or schema.table"))
            }
            self.table = table
        }
        if let lease = try settings.seconds("lease", positive: true) {
            guard lease >= 1 else { throw settings.error("lease", .outOfRange("at least 1 second")) }
            self.lease = lease
        }
        if let wait = try settings.seconds("lockWaitTimeout", positive: true) { lockWaitTimeout = wait }
        if let poll = try settings.seconds("pollInterval", positive: true) { pollInterval = poll }
        if let timeout = try settings.seconds("queryTimeout", positive: true) { queryTimeout = timeout }
        if let leeway = try settings.seconds("expiryLeeway", positive: false) { expiryLeeway = leeway }
        if let holder = try settings.string("holder") { self.holder = holder }
    }
}

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension PostgresTokenStore {
    /// The sealing key read from `configReader` (the same section): `key`, **secret**, 32 bytes
    /// in base64, or `keyFile`, the path of a file holding it (a mounted secret); `key` wins
    /// when both are given.
    ///
    /// - Throws: `ConfigurationError` naming the key when neither is given, the file cannot be
    ///   read or the value is not 32 bytes of base64 (never the value).
    public static func key(configReader: ConfigReader) throws -> SymmetricKey {
        let settings = ConfigSettingsReader(configReader)
        let name = try settings.string("key", isSecret: true) != nil ? "key" : "keyFile"
        let text = try settings.required("key", try settings.string("key", isSecret: true) ?? settings.secretFile("keyFile"))
        guard let bytes = Data(base64Encoded: text), bytes.count == 32 else {
            throw settings.error(name, .invalid("32 bytes (a 256-bit key) in base64"))
        }
        return SymmetricKey(data: bytes)
    }
}
