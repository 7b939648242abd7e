import NIOConcurrencyHelpers

/// One value per realm name, made on first use: the token authority or the SampleService state
/// of `/realm/{name}/…` and `/api/{name}/…`.
final class PerRealm<Value: Sendable>: Sendable {
    private let values = NIOLockedValueBox<[String: Value]>([:])
    private let make: @Sendable () -> Value

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// The value of `realm`, made now if it is new.
    subscript(realm: String) -> Value {
        values.withLockedValue { values in
            if let existing = values[realm] { return existing }
            let made = make()
            values[realm] = made
            return made
        }
    }
}

/// The token authorities of a DemoServer's realms.
typealias TokenRealms = PerRealm<TokenAuthority>

/// The SampleService state of a DemoServer's realms.
typealias SampleServices = PerRealm<SampleService>
