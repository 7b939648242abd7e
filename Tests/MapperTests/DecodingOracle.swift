import Foundation
import Testing

@testable import Mapper

/// Decodes with `JSONValueDecoder` and with Foundation's `JSONDecoder` (the oracle), under the
/// same strategies, and reduces what each gives to a comparable `Outcome`.
struct DecodingOracle {
    var keys: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys
    var dates: JSONDecoder.DateDecodingStrategy = .deferredToDate

    /// What `JSONValueDecoder` gives for `json` (raw `DecodingError`s: the context is called
    /// directly, not through `Mapper.map`, which rewords them).
    func ours<T: Decodable>(_ type: T.Type, _ json: String) -> Result<T, DecodingError> {
        do {
            let value = try JSONValue(parsing: Data(json.utf8))
            return .success(try DecodingContext(keyStrategy: keys, dateStrategy: dates).decode(type, from: value, at: []))
        } catch let error as DecodingError {
            return .failure(error)
        } catch {
            Issue.record("not a DecodingError: \(error)")
            return .failure(.dataCorrupted(.init(codingPath: [], debugDescription: "\(error)")))
        }
    }

    /// What `JSONDecoder` gives for `json`.
    func foundation<T: Decodable>(_ type: T.Type, _ json: String) -> Result<T, DecodingError> {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = keys
        decoder.dateDecodingStrategy = dates
        do {
            return .success(try decoder.decode(type, from: Data(json.utf8)))
        } catch let error as DecodingError {
            return .failure(error)
        } catch {
            Issue.record("not a DecodingError: \(error)")
            return .failure(.dataCorrupted(.init(codingPath: [], debugDescription: "\(error)")))
        }
    }
}

/// A decoding's result reduced to what both decoders must agree on: the value, or the error's
/// case, its coding path and (for `typeMismatch`, `valueNotFound`, `keyNotFound`) its type or key.
/// Debug descriptions are left out: the two word some of them differently.
enum Outcome: Equatable, Sendable, CustomStringConvertible {
    case value(String)
    case typeMismatch(String, path: [String])
    case valueNotFound(String, path: [String])
    case keyNotFound(String, path: [String])
    case dataCorrupted(path: [String])

    init<T>(_ result: Result<T, DecodingError>) {
        switch result {
        case let .success(value): self = .value(String(describing: value))
        case let .failure(error): self.init(error)
        }
    }

    init(_ error: DecodingError) {
        switch error {
        case let .typeMismatch(type, context): self = .typeMismatch("\(type)", path: Self.path(context.codingPath))
        case let .valueNotFound(type, context): self = .valueNotFound("\(type)", path: Self.path(context.codingPath))
        case let .keyNotFound(key, context): self = .keyNotFound(key.stringValue, path: Self.path(context.codingPath))
        case let .dataCorrupted(context): self = .dataCorrupted(path: Self.path(context.codingPath))
        @unknown default: self = .dataCorrupted(path: ["unknown DecodingError"])
        }
    }

    /// Whether `foundation`, what `JSONDecoder` gave, says the same: equal, except that
    /// `JSONDecoder` reports some `dataCorrupted` errors (a number that does not fit, an ISO 8601
    /// date it cannot read) at the root, where ours names the value's path.
    func agrees(withFoundation foundation: Outcome) -> Bool {
        if case .dataCorrupted = self, case .dataCorrupted(path: []) = foundation { return true }
        return self == foundation
    }

    /// The outcome with the type an error names left out (as `_`), for where the two decoders
    /// name different types.
    var typeLeftOut: Outcome {
        switch self {
        case let .typeMismatch(_, path): .typeMismatch("_", path: path)
        case let .valueNotFound(_, path): .valueNotFound("_", path: path)
        default: self
        }
    }

    /// A coding path as strings: an index as `#n`, a key as its string value.
    static func path(_ codingPath: [any CodingKey]) -> [String] {
        codingPath.map { key in key.intValue.map { "#\($0)" } ?? key.stringValue }
    }

    var description: String {
        switch self {
        case let .value(value): "value \(value)"
        case let .typeMismatch(type, path): "typeMismatch(\(type)) at \(path)"
        case let .valueNotFound(type, path): "valueNotFound(\(type)) at \(path)"
        case let .keyNotFound(key, path): "keyNotFound(\(key)) at \(path)"
        case let .dataCorrupted(path): "dataCorrupted at \(path)"
        }
    }
}

/// A coding key made from any string or index, for containers read by hand.
struct Key: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    init(stringLiteral value: String) { self.init(stringValue: value) }
}
