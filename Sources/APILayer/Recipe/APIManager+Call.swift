import Foundation
import Instrumentation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIManager {
    /// Why the calls of an API configured so cannot go: TLS settings, an HTTP version or a proxy
    /// its session's engine cannot apply.
    static func transportRefusal(_ configuration: APIScope.Configuration) -> String? {
        guard configuration.tls != nil || !configuration.allowsHTTP2 || configuration.proxy != nil else { return nil }
        let session = configuration.session ?? NetworkSession.shared
        let choice = TransportChoice(tls: configuration.tls, allowsHTTP2: configuration.allowsHTTP2, proxy: configuration.proxy)
        return session.refusal(of: choice, for: configuration.baseURL)?.reason
    }

    /// The unstarted operation that calls `method` and makes `Model` of its answer.
    ///
    /// The operation carries the whole pipeline: the request is built now (path placeholders
    /// filled, parameters encoded; a failure makes an operation that fails at start with the
    /// `construction` error), the token of the method's API is placed when the request goes (on
    /// the API's origins only), then transport, status and the method's `bodyError` are checked,
    /// the body validated against the method's template (or its custom checks), passed through
    /// `parser` and mapped at `keyPath`. Under the API's `stubMode` the operation answers from
    /// the method's template and no request leaves the process.
    ///
    /// ```swift
    /// let operation = APIManager.operation(TrackerAPI.getIssue,
    ///                                      properties: ["owner": "octo-org", "repo": "hello-world", "number": 7],
    ///                                      as: Issue.self)
    /// let issue = try await operation.run()
    /// ```
    /// - Parameters:
    ///   - method: The API method.
    ///   - properties: Parameters merged over the method's defaults (the caller's win, arrays concatenate).
    ///   - headers: Headers of this call, over the method's.
    ///   - type: The model decoded.
    ///   - keyPath: Dot-separated keys to the model in the response (`nil`: the whole response).
    ///   - parser: An optional step before mapping.
    /// - Returns: The operation, not started.
    public static func operation<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, properties: Parameters = [:], headers: [String: String] = [:], as type: Model.Type,
        at keyPath: String? = nil, parser: ParseStep? = nil
    ) -> APIOperation<Model> {
        operation(method, properties: properties, headers: headers, as: type, at: keyPath, parser: parser, shape: .data)
    }

    /// The operation of `operation(…)`, `download(…)` or `upload(…)`: made as `shape` says, its
    /// telemetry attached.
    static func operation<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, properties: Parameters, headers: [String: String], as type: Model.Type,
        at keyPath: String?, parser: ParseStep?, shape: CallShape<Model>
    ) -> APIOperation<Model> {
        let scope = Method.api.snapshot
        let made = makeOperation(
            method, scope: scope, properties: properties, headers: headers, as: type, at: keyPath,
            parser: parser, shape: shape)
        var configuration = scope.configuration
        // A token placed as a query parameter of its own name is as secret as `access_token`:
        // hidden from the logs, spans and error texts, and stripped from a cross-origin redirect.
        if let name = method.tokenPlacement?.parameterName {
            configuration.redaction = configuration.redaction.adding(parameters: [name])
        }
        // A path placeholder named like a credential (`{token}`) is a secret path segment; and
        // the secret segments of this call's URL are hidden wherever they appear.
        let secretSegments = PathTemplate.secretPatterns(of: method.path, base: configuration.baseURL, redaction: configuration.redaction)
        if !secretSegments.isEmpty { configuration.redaction = configuration.redaction.adding(paths: secretSegments) }
        if configuration.redaction.hidesPathSecrets { configuration.redaction = configuration.redaction.bound(to: made.request?.url) }
        made.redaction = configuration.redaction
        made.observe(
            with: CallTelemetry(
                api: scope.name, method: method.rawValue,
                urlTemplate: urlTemplate(of: method, base: configuration.baseURL, redaction: configuration.redaction),
                configuration: configuration, backlog: scope.reportBacklog,
                parent: ServiceContext.current ?? .topLevel))
        return made
    }

    /// OpenTelemetry's `url.template` of `method`'s calls: the base URL's path and the method's
    /// path with its placeholders (`/v1/repos/{owner}/{repo}/issues`), the secret segments
    /// `redaction` declares (a bot token in the base URL) replaced.
    static func urlTemplate<Method: APIMethod>(of method: Method, base: URL?, redaction: Redaction = .standard) -> String {
        var prefix = base?.path ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        var path = Substring(method.path)
        while path.hasPrefix("/") { path = path.dropFirst() }
        return redaction.path(prefix + "/" + path)
    }

    /// The operation of `operation(…)`, before its telemetry is attached.
    private static func makeOperation<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, scope: APIScope.Snapshot, properties: Parameters, headers: [String: String], as type: Model.Type,
        at keyPath: String?, parser: ParseStep?, shape: CallShape<Model>
    ) -> APIOperation<Model> {
        let configuration = scope.configuration
        let stubDelay = configuration.stubMode.delay
        let pipeline = ResponsePipeline<Model>(
            method: method, keyPath: keyPath, parser: parser, configuration: configuration,
            validates: stubDelay == nil, savedFile: shape.savedFile, templateWarnings: scope.templateWarnings,
            drift: ValidationDrift(api: scope.name, log: scope.driftLog, configuration: configuration), recorder: scope.templateRecorder)
        var built: RequestConstructor.Built
        do {
            built = try RequestConstructor.request(
                for: method, properties: properties, baseURL: configuration.baseURL, token: nil,
                headers: headers, encoding: shape.encoding(of: method))
            if case let .upload(file) = shape { built = try uploadRequest(built.request, sending: file, method: method) }
        } catch {
            guard stubDelay != nil else { return APIOperation(failing: error, pipeline: pipeline) }
            // A stub needs no reachable URL: it never leaves the process.
            var placeholder = URLRequest(url: URL(string: "http://stub.invalid/")!)
            placeholder.httpMethod = method.httpMethod.rawValue
            built = .plain(placeholder)
        }
        var preflight: APIError?
        var stubEngine: StubEngine?
        if let admission = scope.admission, !admission.isAccepting {
            let refusal = ServiceStoppingError(api: scope.name)
            return APIOperation(failing: APIError(.construction(refusal.description), method: method.rawValue), pipeline: pipeline)
        }
        if stubDelay == nil, let refusal = transportRefusal(configuration) {
            return APIOperation(failing: APIError(.construction(refusal), method: method.rawValue), pipeline: pipeline)
        }
        if let stubDelay {
            // A stray configuration value must not turn a service's answers into fixtures quietly.
            scope.templateWarnings.warnOnce(
                topic: "stubMode", "API \(scope.name) answers its calls from its templates (stubMode): no request reaches the network",
                logger: configuration.logger)
            // The stub answers with a status the method accepts (200 where it does), and with no
            // body for a method that has no template and answers nothing.
            let status = method.acceptedStatuses.contains(200) ? 200 : method.acceptedStatuses.min() ?? 200
            switch pipeline.stubBody() {
            case let .success(body):
                stubEngine = StubEngine(status: status, body: body, delay: stubDelay)
            case .failure where Model.self == NoContent.self || shape.savedFile != nil:
                stubEngine = StubEngine(status: status, body: Data(), delay: stubDelay)
            case let .failure(error):
                preflight = error
            }
        }
        let made: APIOperation<Model>
        switch built {
        case let .plain(request):
            made = APIOperation(
                request: preflight == nil ? .success(request) : rejected(preflight, request.url),
                body: shape.body(sent: stubEngine == nil), ownedBodyFile: nil, destination: shape.destination,
                pipeline: pipeline, preflight: preflight)
        case let .multipart(request, form):
            // A stub sends nothing: its form is never written. Otherwise the form is checked
            // now and written when the operation starts (`deferredForm`), not on this thread.
            var bodyFile: URL?
            if stubEngine == nil {
                do { try form.check() } catch {
                    let failure = APIError(.construction("multipart body: \(error)"), method: method.rawValue)
                    return APIOperation(failing: failure, pipeline: pipeline)
                }
                bodyFile = MultipartFormData.temporaryBodyFile()
            }
            made = APIOperation(
                request: preflight == nil ? .success(request) : rejected(preflight, request.url),
                body: bodyFile.map(TransferBody.file) ?? .none, ownedBodyFile: bodyFile,
                deferredForm: bodyFile == nil ? nil : form, destination: shape.destination, pipeline: pipeline,
                preflight: preflight)
        }
        made.acceptableStatusCodes = method.acceptedStatuses
        if let stubEngine {
            if let queue = configuration.callbackQueue { made.callbackQueue = queue }
            made.privateSession = NetworkSession(engine: stubEngine)
            return made
        }
        // A download's body goes to a file: the limit on what a call keeps in memory is not its.
        scope.equip(made, placement: method.tokenPlacement, keepsBodyInMemory: shape.destination == nil)
        return made
    }

    private static func rejected(_ error: APIError?, _ url: URL?) -> Result<URLRequest, NetOpsError> {
        .failure(NetOpsError(.rejected(reason: error?.description ?? "rejected"), url: url))
    }

    /// Calls `method` and returns its model: `operation(…)` run at once.
    ///
    /// ```swift
    /// let users = try await APIManager.call(DemoAPI.usersGet, properties: ["ids": [1]],
    ///                                       as: [User].self, at: "response")
    /// ```
    /// - Parameters: as `operation(_:properties:headers:as:at:parser:)`.
    /// - Returns: The model.
    /// - Throws: `APIError` naming the stage that failed.
    public static func call<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, properties: Parameters = [:], headers: [String: String] = [:], as type: Model.Type,
        at keyPath: String? = nil, parser: ParseStep? = nil
    ) async throws(APIError) -> Model {
        try await operation(method, properties: properties, headers: headers, as: type, at: keyPath, parser: parser).run()
    }

    /// Calls `method` and hands its model (or the `APIError` naming the failed stage) to
    /// `completion`, on an internal thread: `operation(…)` added to `queue`.
    ///
    /// - Returns: The operation (to cancel, suspend or watch); there is always one, also when
    ///   the request cannot be built or stubs answer.
    @discardableResult
    public static func call<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, properties: Parameters = [:], headers: [String: String] = [:], as type: Model.Type,
        at keyPath: String? = nil, parser: ParseStep? = nil, queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<Model, APIError>) -> Void
    ) -> BaseOperation? {
        let made = operation(method, properties: properties, headers: headers, as: type, at: keyPath, parser: parser)
        made.onCompletion(completion)
        (queue ?? asyncQueue).addOperation(made)
        return made
    }
}
