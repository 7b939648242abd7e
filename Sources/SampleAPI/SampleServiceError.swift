import Foundation
import Validator

/// An error SampleService reports in a response body (with HTTP status 200):
/// `{"error":{"error_code":5,"error_msg":"User authorization failed: …"}}`.
public struct SampleServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token is missing, expired or revoked: APILayer refreshes it and replays the request.
    public static let authorizationFailed = 5
    /// A parameter is missing or invalid.
    public static let invalidParameter = 100
    /// No such user.
    public static let invalidUserID = 113
    /// An upload receipt was forged, reused or belongs to someone else.
    public static let invalidHash = 121

    /// The service's error code.
    public let code: Int
    /// The service's message.
    public let message: String

    /// The error in `json`, or nil when `json` is not an error answer.
    public init?(json: JSONValue) {
        guard case let .object(root) = json, case let .object(error)? = root["error"],
            case let .int(code)? = error["error_code"]
        else { return nil }
        self.code = code
        if case let .string(message)? = error["error_msg"] {
            self.message = message
        } else {
            self.message = "no message"
        }
    }

    /// The error in a raw body, or nil when the body is not JSON or not an error answer.
    public init?(body: Data) {
        guard let json = try? JSONValue(parsing: body) else { return nil }
        self.init(json: json)
    }

    /// Whether `body` says the access token failed (error code 5): the rule the
    /// authentication coordinator is given, so such answers refresh the token.
    public static func saysUnauthorized(_ body: Data) -> Bool {
        // An error answer is small; large bodies are data, not worth parsing twice.
        guard body.count <= 16 * 1_024 else { return false }
        return SampleServiceError(body: body)?.code == authorizationFailed
    }

    /// Whether a parsed body says the access token failed (error code 5): the JSON rule the
    /// authentication coordinator is given, which reads the body the call parses anyway.
    public static func saysUnauthorized(json: JSONValue) -> Bool {
        SampleServiceError(json: json)?.code == authorizationFailed
    }

    /// `error 5: User authorization failed: …`.
    public var description: String { "error \(code): \(message)" }
}
