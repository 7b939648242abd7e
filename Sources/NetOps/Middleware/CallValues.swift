/// The type of one value the stages of a call share (`CallValues`), and the type of what it
/// holds: the key is the type itself, so two modules never collide on a name and a reader
/// gets the type the writer stored.
///
/// ```swift
/// enum TenantKey: CallValueKey {
///     typealias Value = String
/// }
/// operation.values[TenantKey.self] = "acme"          // before start, or in a stage
/// let tenant = context.values[TenantKey.self]        // in another stage: a String?
/// ```
public protocol CallValueKey {
    /// What the key holds.
    associatedtype Value: Sendable
}

/// The values one operation's stages share while it runs: a credential's version, the
/// `Idempotency-Key` its retries resend, how a cache took part in the last attempt.
///
/// One set per operation, from when it is made to its end: every attempt, retry and replay
/// sees what earlier ones wrote (a stage that writes something per attempt writes it on each).
/// Read and written from any thread; each read or write is one hold of the operation's lock.
/// A caller may set values before `start()` for the stages to read (APILayer's
/// `AuthenticationCoordinator.WithoutToken`, say), and read them after the end.
public struct CallValues: Sendable {
    let operation: BaseOperation

    /// The value stored under `key`, nil when none is; setting nil removes it.
    public subscript<Key: CallValueKey>(_ key: Key.Type) -> Key.Value? {
        get { operation.withLock { operation.storage.values[ObjectIdentifier(key)] } as? Key.Value }
        nonmutating set {
            let id = ObjectIdentifier(key)
            operation.withLock { operation.storage.values[id] = newValue }
        }
    }

    /// Changes the value under `key` in one hold of the lock (a read, then a write, atomically)
    /// and returns what `change` returns. `change` runs under the operation's lock: it only
    /// computes, it never calls out.
    @discardableResult
    public func update<Key: CallValueKey, Result>(_ key: Key.Type, _ change: (inout Key.Value?) -> Result) -> Result {
        let id = ObjectIdentifier(key)
        return operation.withLock {
            var value = operation.storage.values[id] as? Key.Value
            let result = change(&value)
            operation.storage.values[id] = value
            return result
        }
    }
}

/// The request header fields, lower case, a stage writes with context rather than content (a
/// tracer's propagation fields: `traceparent`, `b3`…). A stage that compares requests (a cache,
/// a coalescer) leaves them out of its comparison. The stage that writes them adds their names
/// here before the transfer starts.
public enum ContextHeaderNames: CallValueKey {
    /// The field names, lower case.
    public typealias Value = Set<String>
}
