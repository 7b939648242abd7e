import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how soon a failed request is sent again.
///
/// Only requests that may be sent twice are retried: idempotent methods (GET, HEAD, PUT,
/// DELETE, OPTIONS) or an operation marked `isReplayable`. They are retried on the statuses in
/// `retryableStatuses` and on transient transport failures (connection refused or lost, a
/// truncated body, an idle timeout), never on a failure that would come back the same
/// (`deterministicTransportCodes`: a decompression bomb, a redirect loop or too many redirects,
/// a body over the size limit), after an exponential backoff with full jitter — or after
/// the server's `Retry-After` (seconds or an HTTP date) when it sends one — until
/// `maximumAttempts` requests were sent or waiting longer would exceed `retryBudget`.
///
/// ```swift
/// let session = NetworkSession(options: .init(retryPolicy: .standard))   // on for the session
/// operation.retryPolicy = .none                                         // off for one
/// ```
public struct RetryPolicy: Sendable, Equatable {
    /// The most requests sent in all, the first included (1: never retry).
    public var maximumAttempts: Int
    /// The most seconds spent waiting between attempts, all waits together.
    public var retryBudget: TimeInterval
    /// The first backoff's upper bound; each further attempt doubles it.
    public var baseDelay: TimeInterval
    /// The largest upper bound a backoff may have.
    public var maximumDelay: TimeInterval
    /// The HTTP statuses worth another attempt.
    public var retryableStatuses: Set<Int>

    /// A policy with these limits.
    public init(
        maximumAttempts: Int = 4,
        retryBudget: TimeInterval = 30,
        baseDelay: TimeInterval = 0.2,
        maximumDelay: TimeInterval = 10,
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.retryBudget = max(0, retryBudget)
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.retryableStatuses = retryableStatuses
    }

    /// Never retry.
    public static let none = RetryPolicy(maximumAttempts: 1)
    /// Up to 4 attempts within 30 s of waiting, backoff from 0.2 s up to 10 s.
    public static let standard = RetryPolicy()

    /// The methods that may be sent twice without changing the result (RFC 9110 §9.2.2).
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// How long to wait before attempt number `attemptsMade + 1`, or nil for no retry.
    ///
    /// - Parameters:
    ///   - error: why the last attempt failed.
    ///   - response: its response head, when one arrived.
    ///   - attemptsMade: requests sent so far.
    ///   - waited: seconds already spent waiting between attempts.
    ///   - replayable: whether the request may be sent twice.
    ///   - random: a source of randomness for the jitter (tests pass a seeded one).
    public func delay(
        after error: NetOpsError,
        response: HTTPURLResponse?,
        attemptsMade: Int,
        waited: TimeInterval,
        replayable: Bool,
        random: inout some RandomNumberGenerator
    ) -> TimeInterval? {
        guard replayable, attemptsMade < maximumAttempts, isTransient(error) else { return nil }
        let delay: TimeInterval
        if let response, let retryAfter = Self.retryAfter(response) {
            delay = retryAfter
        } else {
            let ceiling = min(maximumDelay, baseDelay * pow(2, Double(max(0, attemptsMade - 1))))
            delay = ceiling > 0 ? Double.random(in: 0...ceiling, using: &random) : 0
        }
        guard waited + delay <= retryBudget else { return nil }
        return delay
    }

    /// Transport failure codes that the same request meets again: a body that decodes past the
    /// decompression bomb bound (-1016), a redirect loop or too many redirects (-1007), a body
    /// over the operation's size limit (`BaseOperation.responseBodyTooLargeCode`, -1103). They
    /// are never retried.
    public static let deterministicTransportCodes: Set<Int> = [
        ContentDecoding.failureCode, SessionDelegateRouter.tooManyRedirectsCode, BaseOperation.responseBodyTooLargeCode,
    ]

    /// Whether `error` is worth another attempt.
    public func isTransient(_ error: NetOpsError) -> Bool {
        switch error.kind {
        case let .httpStatus(status): return retryableStatuses.contains(status)
        case .cannotConnect, .offline, .connectionLost, .truncatedBody, .idleTimeout: return true
        case let .transport(code, _): return !Self.deterministicTransportCodes.contains(code)
        default: return false
        }
    }

    /// The `Retry-After` header in seconds from now: delta-seconds or an HTTP date.
    public static func retryAfter(_ response: HTTPURLResponse, now: Date = Date()) -> TimeInterval? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After").map({ String($0.trimmingHTTPWhitespace()) }) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// The system's random numbers, for the jitter of retry delays.
///
/// `SystemRandomNumberGenerator` is an empty struct, and an `inout` access to an empty local has
/// no storage of its own: ThreadSanitizer saw two operations' jitter draws as one variable
/// written by two threads. This generator has a byte of state, and draws through the standard
/// library's `random(in:)`.
struct JitterRandom: RandomNumberGenerator {
    private var draws: UInt8 = 0

    mutating func next() -> UInt64 {
        draws &+= 1
        return UInt64.random(in: UInt64.min...UInt64.max)
    }
}
