import Crypto
import DemoServer
import Foundation
import NetOps

/// Hex SHA-256 of `data`.
func sha256(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// Hex SHA-256 of DemoServer's payload of `size` bytes.
func payloadSHA256(size: Int) -> String {
    sha256(DemoPayload.data(size: size))
}

/// A counter safe to bump from any thread.
final class Counter: Sendable {
    private let count = Locked(0)

    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
