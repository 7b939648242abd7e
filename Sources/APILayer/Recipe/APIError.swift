import Foundation
import Mapper
import NetOps
import Validator

/// Why an API call failed: the stage of the pipeline that stopped it, and the operation.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The pipeline stage that failed, with what a caller needs to know.
    public enum Stage: Sendable {
        /// The request could not be built (no base URL, a bad endpoint, unencodable parameters).
        case construction(String)
        /// The request did not get an HTTP answer (refused, lost, timed out, cancelled).
        case transport(NetOpsError)
        /// The server answered with an unacceptable status, or a body the method's `bodyError`
        /// recognises as an error.
        case server(status: Int?, message: String)
        /// The method's template is absent (`automatic` validation needs one).
        case templateMissing(String)
        /// The method's template could not be read or compiled.
        case templateInvalid(String)
        /// The response broke the method's template or custom checks; each error names its
        /// JSON Pointer.
        case validation([ValidationError])
        /// The body is not JSON, or the method's parser rejected it.
        case parsing(String)
        /// The model could not be decoded.
        case mapping(MapperError)
    }

    /// The stage that failed.
    public let stage: Stage
    /// The API method's name (its endpoint).
    public let method: String
    /// The operation that ran, if one was made.
    public var operation: BaseOperation? {
        switch reference {
        case .none: nil
        case let .strong(operation): operation
        case let .weak(box): box.operation
        }
    }
    /// How the error refers to its operation.
    private let reference: OperationReference
    /// The server's error body decoded into the API's `errorModel`, when the stage is `server`
    /// and the body fits the model.
    public let serverError: (any APIErrorModel)?
    /// What the description hides: the operation's API's redaction, or the standard one.
    private let redaction: Redaction

    /// An error of `stage` for `method`.
    public init(_ stage: Stage, method: String, operation: BaseOperation? = nil, serverError: (any APIErrorModel)? = nil) {
        self.stage = stage
        self.method = method
        reference = operation.map(OperationReference.strong) ?? .none
        self.serverError = serverError
        redaction = operation?.redaction ?? .standard
    }

    private init(copying error: APIError, reference: OperationReference) {
        stage = error.stage
        method = error.method
        serverError = error.serverError
        redaction = error.redaction
        self.reference = reference
    }

    /// The error as its operation keeps it: referring to the operation without keeping it
    /// alive (an operation that kept its own error would keep itself, and every failed call
    /// would stay in memory).
    func keptByItsOperation() -> APIError {
        guard case let .strong(operation) = reference else { return self }
        return APIError(copying: self, reference: .weak(WeakOperation(operation)))
    }

    /// The error as the operation hands it out: the caller that holds it holds the operation.
    func handedOut(by operation: BaseOperation) -> APIError {
        guard case let .weak(box) = reference, box.operation === operation else { return self }
        return APIError(copying: self, reference: .strong(operation))
    }

    /// The stage's name: `construction`, `transport`, `server`, `templateMissing`,
    /// `templateInvalid`, `validation`, `parsing` or `mapping`.
    public var stageName: String {
        switch stage {
        case .construction: return "construction"
        case .transport: return "transport"
        case .server: return "server"
        case .templateMissing: return "templateMissing"
        case .templateInvalid: return "templateInvalid"
        case .validation: return "validation"
        case .parsing: return "parsing"
        case .mapping: return "mapping"
        }
    }

    /// One readable line: method, stage and reason, with credentials and secret parameters
    /// replaced by `<redacted>` and control characters escaped (see `Redaction.text(_:)`).
    ///
    /// The line is bounded whatever the server sent: validation errors are listed while they
    /// fit in `Redaction.textLimit` (8 KiB) and the rest counted (`… 999900 more errors not
    /// shown`); any longer reason is cut with a note of how much was cut. It is built when read,
    /// and the redaction runs on the bounded text only.
    public var description: String {
        redaction.text(unredactedDescription)
    }

    private var unredactedDescription: String {
        let reason: String
        switch stage {
        case let .construction(text), let .templateMissing(text), let .templateInvalid(text), let .parsing(text):
            reason = text
        case let .transport(error):
            reason = error.description
        case let .server(status, message):
            reason = status.map { "HTTP \($0): \(message)" } ?? message
        case let .validation(errors):
            // Room for the method, the stage and the count of the rest within the text limit.
            reason = Self.listing(errors, within: Redaction.textLimit - 512)
        case let .mapping(error):
            reason = error.description
        }
        return "\(method): \(stageName) failed: \(reason)"
    }

    /// The errors' descriptions joined by `; ` while they fit in `budget` UTF-8 bytes (the first
    /// always), then a count of the errors not shown (an omission counts as the errors it stands for).
    private static func listing(_ errors: [ValidationError], within budget: Int) -> String {
        var text = ""
        var shown = 0
        for error in errors {
            let line = error.description
            if shown > 0, text.utf8.count + 2 + line.utf8.count > budget { break }
            if shown > 0 { text += "; " }
            text += line
            shown += 1
        }
        guard shown < errors.count else { return text }
        let more = errors[shown...].reduce(0) { $0 + ($1.omittedCount ?? 1) }
        return text + "; … \(more) more errors not shown"
    }
}

extension APIError {
    /// Whether the method's template was not found.
    var isTemplateMissing: Bool {
        if case .templateMissing = stage { return true }
        return false
    }
}

/// How an `APIError` refers to the operation that ran: strongly where a caller holds the error,
/// weakly where the operation holds it itself.
private enum OperationReference: Sendable {
    case none
    case strong(BaseOperation)
    case weak(WeakOperation)
}

/// A reference to an operation that does not keep it alive.
private final class WeakOperation: Sendable {
    weak let operation: BaseOperation?

    init(_ operation: BaseOperation) {
        self.operation = operation
    }
}
