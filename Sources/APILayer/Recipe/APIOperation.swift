import Foundation
import Instrumentation
import NetOps
import NetOpsHTTP
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The unstarted operation of one API call, typed by the call's model.
///
/// It is a real `BaseOperation`: queue it (`APIManager.asyncQueue`, any `OperationQueue`),
/// `start()` it, `syncStart()` it, `retainAndStart()` it, give it an `owner`, a
/// `privateSession`, timeouts or a `timeLimitBetweenRuns`, suspend and resume it, nest it in a
/// `GroupOperation` (a cancelled group cancels it). When it ends, `result` holds the model or
/// the `APIError` naming the stage that failed; a response that breaks the method's template
/// or does not map ends the operation `.failedFinished`.
///
/// ```swift
/// let operation = APIManager.operation(TrackerAPI.listIssues,
///                                      properties: ["owner": "octo-org", "repo": "hello-world"],
///                                      as: [Issue].self)
/// operation.owner = connection
/// operation.onCompletion { result in print(result) }
/// APIManager.asyncQueue.addOperation(operation)
/// // or: let issues = try await operation.run()
/// ```
public final class APIOperation<Model: Decodable & Sendable>: BaseOperation, ParsedBodyHolder, TraceContextHolder,
    @unchecked Sendable
{
    // @unchecked: the only mutable state is in `Locked` boxes; the rest is immutable.

    /// The API method's name (its raw value).
    public let methodName: String
    private let pipeline: ResponsePipeline<Model>
    /// An error known before the operation started (the request could not be built, a stub has
    /// no template): the operation fails with it at start.
    private let preflight: APIError?
    /// The model the pipeline made of the response, before the operation ended (a failure
    /// travels as the operation's error: `NetOpsError.underlying`).
    private let checked = Locked<Model?>(nil)
    /// The call's outcome, once the operation ended.
    private let outcome = Locked<Result<Model, APIError>?>(nil)
    /// The response body parsed once, for the authentication rule and the pipeline.
    private let parsed = ParsedBodyCache()
    /// The call's metrics, spans and request logs, once attached.
    let telemetry = Locked<CallTelemetry?>(nil)

    init(
        request: Result<URLRequest, NetOpsError>, body: TransferBody, ownedBodyFile: URL?,
        deferredForm: MultipartFormData? = nil, destination: URL? = nil, pipeline: ResponsePipeline<Model>, preflight: APIError?
    ) {
        methodName = pipeline.name
        self.pipeline = pipeline
        self.preflight = preflight
        super.init(request: request, body: body, ownedBodyFile: ownedBodyFile, deferredForm: deferredForm, destination: destination)
        use(PipelineCheck())
        // First of the completions: every later one, and every waiter, sees `result`. It never
        // blocks, so an awaited call still carries out its end on the awaiting task (`EndRelay`).
        onEnd { operation in
            (operation as? APIOperation<Model>)?.settle()
        }
    }

    /// An operation that fails at start with `error` (no request could be built).
    convenience init(failing error: APIError, pipeline: ResponsePipeline<Model>) {
        self.init(
            request: .failure(NetOpsError(.rejected(reason: error.description), url: nil)), body: .none,
            ownedBodyFile: nil, pipeline: pipeline, preflight: error)
    }

    // MARK: Telemetry

    /// The ID of this call in its log lines' metadata (`apilayer.request_id`) and its span's
    /// attributes; nil for an operation made without its API's telemetry.
    public var requestID: String? { telemetry.withLock { $0?.requestID } }

    /// Reports the call through `telemetry` from now on.
    func observe(with telemetry: CallTelemetry) {
        self.telemetry.withLock { $0 = telemetry }
        // A silent call (nothing records its reports) keeps its request ID and nothing else.
        guard !telemetry.isSilent else { return }
        use(telemetry)
    }

    /// The context of the call's span, for work done on its behalf.
    var traceContext: ServiceContext? { telemetry.withLock { $0 }?.spanContext }

    // MARK: The result

    /// The model, or the `APIError` naming the failed stage; nil until the operation ended.
    public var result: Result<Model, APIError>? { outcome.withLock { $0 }?.mapError { $0.handedOut(by: self) } }

    /// Starts the operation (unless it already runs, in a queue or elsewhere), waits for it
    /// without blocking a thread and returns the model. Cancelling the calling `Task` cancels
    /// the operation.
    ///
    /// - Throws: the `APIError` of the stage that failed.
    @discardableResult
    public func run() async throws(APIError) -> Model {
        _ = try? await super.run()
        return try finalResult().get()
    }

    /// Adds a closure called once with the result when the operation ends (at once if it has).
    @discardableResult
    public func onCompletion(_ handler: @escaping @Sendable (Result<Model, APIError>) -> Void) -> Self {
        (self as BaseOperation).onCompletion { operation in
            guard let operation = operation as? APIOperation<Model> else { return }
            handler(operation.finalResult())
        }
        return self
    }

    /// The result of an operation that ended.
    private func finalResult() -> Result<Model, APIError> {
        if let result { return result }
        settle()
        return result ?? .failure(APIError(.transport(NetOpsError(.cancelled, url: request?.url)), method: methodName, operation: self))
    }

    // MARK: The pipeline

    /// Runs the pipeline on a response the operation accepted; an error it returns fails the
    /// operation.
    fileprivate func check() -> APIError? {
        // An answer from the scope's HTTP cache (a fresh entry, a 304) whose body was checked
        // and mapped to this model before, under the same template version: no parse, no
        // validation, no mapping.
        let cached = values[HTTPCache.StoredValuesKey.self]
        let reuseKey = cached == nil ? nil : pipeline.reuseKey(status: statusCode)
        if let cached, let reuseKey, let model = cached.value(for: reuseKey) as? Model {
            checked.withLock { $0 = model }
            report(PipelineReport(passed: [.reused], failedStage: nil))
            return nil
        }
        let body = receivedData
        var stages: [PipelineStage] = []
        let verdict = pipeline.evaluate(
            body, status: statusCode, operation: self, parsed: { self.parsed.json(for: body) },
            passed: { stages.append($0) })
        let failedStage: String? = if case let .failure(error) = verdict { error.stageName } else { nil }
        report(PipelineReport(passed: stages, failedStage: failedStage))
        switch verdict {
        case let .success(model):
            checked.withLock { $0 = model }
            if let cached, let reuseKey { cached.set(model, for: reuseKey) }
            return nil
        case let .failure(error):
            return error
        }
    }

    /// Hands what the pipeline checked to the call's telemetry, when it listens.
    private func report(_ checked: PipelineReport) {
        values.update(PipelineReports.self) { reports in reports?.append(checked) }
    }

    /// The response body parsed as JSON, shared with the authentication rule.
    func parsedBody(_ body: Data) -> Result<JSONValue, any Error> {
        parsed.json(for: body)
    }

    /// Fixes the result once the operation is final.
    private func settle() {
        let model = checked.withLock { $0 }
        let final: Result<Model, APIError>
        if let preflight {
            final = .failure(preflight)
        } else if let error {
            if let rejection = error.underlying as? APIError {
                final = .failure(rejection)
            } else if case let .invalidRequest(reason) = error.kind {
                // Refused before anything was sent: the request as built could not go.
                final = .failure(APIError(.construction(reason), method: methodName, operation: self))
            } else if let status = error.httpStatus {
                let body = receivedData
                final = .failure(
                    pipeline.serverFailure(
                        status: status, body: body, operation: self,
                        parsed: { self.parsed.json(for: body) }))
            } else {
                final = .failure(APIError(.transport(error), method: methodName, operation: self))
            }
        } else if state == .successFinished, let model {
            final = .success(model)
        } else {
            final = .failure(APIError(.transport(NetOpsError(.cancelled, url: request?.url)), method: methodName, operation: self))
        }
        // Kept without a strong reference to this operation: it would keep itself alive.
        let kept = final.mapError { $0.keptByItsOperation() }
        outcome.withLock { if $0 == nil { $0 = kept } }
        parsed.clear()
    }
}

extension APIOperation: TypedOperation {
    /// An API operation gives its model.
    public typealias Output = Model
    /// The `APIError` naming the stage that failed.
    public typealias Failure = APIError
}

/// The stage that runs an API operation's pipeline (parse, validate, map) on a response the
/// other stages accepted: a failure becomes the verdict, the typed `APIError` as it is.
private struct PipelineCheck: NetworkMiddleware {
    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        guard verdict.isAccept, let operation = context.operation as? any PipelineChecked, let error = operation.runPipeline() else { return }
        verdict = .fail(error)
    }
}

/// An operation whose pipeline `PipelineCheck` runs, whatever its model.
private protocol PipelineChecked {
    /// Runs the pipeline on the response; the error of the stage that failed, if one did.
    func runPipeline() -> APIError?
}

extension APIOperation: PipelineChecked {
    /// The failure becomes the operation's own error: kept without a strong reference to it.
    fileprivate func runPipeline() -> APIError? { check()?.keptByItsOperation() }
}

extension APIOperation: CallResultHolder {
    var callFailure: APIError? {
        if case let .failure(error) = finalResult() { return error }
        return nil
    }
}
