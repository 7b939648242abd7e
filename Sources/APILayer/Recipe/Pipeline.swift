import Foundation
import Logging
import Mapper
import NetOps
import TemplateInference
import Templater
import Validator

/// The model of a method that answers with an empty body (a logout, a delete, a 204): asked for
/// as `as: NoContent.self`, an empty body succeeds without validation; a JSON body is still
/// checked and must be an object.
public struct NoContent: Decodable, Sendable, Equatable {
    /// The empty answer.
    public init() {}
}

extension APIManager {
    /// A step between validation and mapping that digs the interesting part out of a deep
    /// response (see `Parser`). A thrown error fails the call at stage `.parsing`.
    public typealias ParseStep = @Sendable (JSONValue) throws -> JSONValue
}

/// A stage of the pipeline a response passed, as an event on the call's span.
enum PipelineStage: String {
    case parsed = "response.parsed"
    case validated = "response.validated"
    case mapped = "response.mapped"
    /// The model made of the same stored response before was used again (`HTTPCache`).
    case reused = "response.reused"
}

/// What happens to a response after its transfer, for one call: the service's body check,
/// validation against the method's template (or its custom checks), the parser step, mapping.
struct ResponsePipeline<Model: Decodable & Sendable>: Sendable {
    let name: String
    let templateName: String
    let validation: ValidationPolicy
    let templateRequirement: TemplateRequirement
    /// Where a missing or invalid template is logged, once per API.
    let templateWarnings: TemplateWarnings
    let logger: Logger
    let bodyError: (@Sendable (JSONValue) -> String?)?
    let errorModel: (any APIErrorModel.Type)?
    let keyPath: String?
    let parser: APIManager.ParseStep?
    let templates: TemplateStore
    let mapperConfiguration: Mapper.Configuration
    /// False for stubs: the answer is the template itself.
    let validates: Bool
    /// The model of a download, known before it starts: the file the body went to. A download's
    /// body is never parsed, validated or mapped.
    let savedFile: Model?
    /// The part of `reuseKey` that is the same for every call (nil: models are not reused).
    private let reuseKeyPrefix: String?
    /// Where validation failures go in report-only mode; nil in strict mode.
    let drift: ValidationDrift?
    /// The scope's recorder of successful responses, if it records them.
    let recorder: TemplateRecorder?

    init<Method: APIMethod>(
        method: Method, keyPath: String?, parser: APIManager.ParseStep?,
        configuration: APIScope.Configuration, validates: Bool, savedFile: Model? = nil,
        templateWarnings: TemplateWarnings = TemplateWarnings(), drift: ValidationDrift? = nil, recorder: TemplateRecorder? = nil
    ) {
        self.savedFile = savedFile
        self.drift = drift
        // Stubs answer with the template itself, and a download's body is never read: neither is recorded.
        self.recorder = validates && savedFile == nil ? recorder : nil
        templateRequirement = method.templateRequirement
        self.templateWarnings = templateWarnings
        logger = configuration.logger
        name = method.rawValue
        templateName = method.templateName
        validation = method.validation
        bodyError = method.bodyError
        errorModel = method.errorModel
        self.keyPath = keyPath
        self.parser = parser
        templates = configuration.templates
        mapperConfiguration = configuration.mapperConfiguration
        self.validates = validates
        reuseKeyPrefix =
            parser == nil && savedFile == nil && validates
            ? "\(method.rawValue)|\(method.templateName)|\(_typeName(Model.self, qualified: true))|\(keyPath ?? "")|\(templates.identity):"
            : nil
    }

    /// Checks, validates, parses and maps a body that arrived with an accepted status.
    ///
    /// The body is parsed once (by `parsed`, which an operation answers from what its
    /// authentication rule already parsed): the body check, validation, the parser step and
    /// mapping all read that one value, and the model is decoded from it directly.
    /// `passed` is told each stage the body passed (`parsed`, `validated`, `mapped`), for the
    /// call's span.
    func evaluate(
        _ body: Data, status: Int?, operation: BaseOperation,
        parsed: () -> Result<JSONValue, any Error>, passed: (PipelineStage) -> Void = { _ in }
    ) -> Result<Model, APIError> {
        func fail(_ stage: APIError.Stage) -> Result<Model, APIError> {
            .failure(APIError(stage, method: name, operation: operation))
        }
        if let savedFile { return .success(savedFile) }
        if Model.self == NoContent.self, body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return .success(NoContent() as! Model)
        }
        let json: JSONValue
        do { json = try parsed().get() } catch {
            return fail(.parsing(body.isEmpty ? "the response is empty" : "the response is not JSON: \(error)"))
        }
        passed(.parsed)
        if let bodyError, let message = bodyError(json) {
            return fail(.server(status: status, message: message))
        }
        // A body that passed authentication, the status check and the body-error check is one
        // of the API's answers: recorded before validation, so that an answer that no longer
        // fits the template is part of what the next inferred template (and its diff) shows.
        recorder?.record(json, for: templateName)
        if validates {
            var template: Template?
            if case .custom = validation {
            } else {
                switch loadTemplate() {
                case let .success(loaded): template = loaded
                case let .failure(error) where templateRequirement == .ifTemplateExists && error.isTemplateMissing: template = nil
                case let .failure(error): return .failure(APIError(error.stage, method: name, operation: operation))
                }
            }
            let errors = validation.validate(json, template: template)
            if errors.isEmpty {
                passed(.validated)
            } else if let drift {
                drift.report(errors, method: name)
            } else {
                return fail(.validation(errors))
            }
        }
        let decoded = decode(json, operation: operation)
        if case .success = decoded { passed(.mapped) }
        return decoded
    }

    /// The key under which a model this pipeline made of a stored response is kept with it
    /// (`HTTPCache`): the method, the model type, the key path, the status and the template's
    /// version, so that a new template checks the body again. Nil when the model cannot be
    /// reused: a parser step (a closure that cannot be compared), a download, a stub.
    func reuseKey(status: Int?) -> String? {
        guard let reuseKeyPrefix else { return nil }
        return reuseKeyPrefix + String(templates.generation) + "|" + String(status ?? 0)
    }

    /// The `server` stage of a body that came with an unaccepted `status`: decoded into the
    /// API's error model when it fits, else its first bytes as text.
    /// `parsed` gives the body as JSON, parsed once (the authentication rule may have parsed it).
    func serverFailure(
        status: Int, body: Data, operation: BaseOperation,
        parsed: () -> Result<JSONValue, any Error>
    ) -> APIError {
        if let errorModel, !body.isEmpty, case let .success(json) = parsed(),
            let decoded = decodeErrorBody(errorModel, from: json)
        {
            return APIError(
                .server(status: status, message: decoded.description), method: name, operation: operation,
                serverError: decoded)
        }
        return APIError(
            .server(status: status, message: String(decoding: body.prefix(512), as: UTF8.self)),
            method: name, operation: operation)
    }

    private func decodeErrorBody<ErrorModel: APIErrorModel>(_ type: ErrorModel.Type, from json: JSONValue) -> (any APIErrorModel)? {
        try? Mapper.map(type, from: json, configuration: mapperConfiguration)
    }

    /// The stub's answer: the method's template without its `-Rules` keys.
    func stubBody() -> Result<Data, APIError> {
        let raw: JSONValue?
        do { raw = try templates.template(for: templateName) } catch {
            return .failure(APIError(.templateInvalid(error.description), method: name))
        }
        guard let raw else { return .failure(APIError(.templateMissing(missingTemplate), method: name)) }
        return .success(Self.strippingRules(raw).serialized())
    }

    private var missingTemplate: String {
        "no template \"\(templateName)\" in \(templates.directory.path)"
    }

    /// The method's compiled template, shared by every call of the template's version. The
    /// first call that finds it missing or invalid logs it, once per API.
    private func loadTemplate() -> Result<Template, APIError> {
        let template: Template?
        do { template = try templates.compiledTemplate(for: templateName) } catch {
            templateWarnings.warnOnce(
                about: templateName, "template \"\(templateName)\" of \(name) is invalid, its calls fail: \(error.description)", logger: logger)
            return .failure(APIError(.templateInvalid(error.description), method: name))
        }
        guard let template else {
            let consequence = templateRequirement == .ifTemplateExists ? "its responses are not validated" : "its calls fail"
            templateWarnings.warnOnce(about: templateName, "\(missingTemplate) for \(name): \(consequence)", logger: logger)
            return .failure(APIError(.templateMissing(missingTemplate), method: name))
        }
        return .success(template)
    }

    private func decode(_ json: JSONValue, operation: BaseOperation) -> Result<Model, APIError> {
        var value = json
        if let parser {
            do { value = try parser(json) } catch {
                return .failure(APIError(.parsing(String(describing: error)), method: name, operation: operation))
            }
        }
        do {
            return .success(try Mapper.map(Model.self, from: value, at: keyPath, configuration: mapperConfiguration))
        } catch let error as MapperError {
            return .failure(APIError(.mapping(error), method: name, operation: operation))
        } catch {
            return .failure(APIError(.parsing(String(describing: error)), method: name, operation: operation))
        }
    }

    /// `json` without its `name-Rules` keys, at every depth.
    static func strippingRules(_ json: JSONValue) -> JSONValue {
        switch json {
        case let .object(object):
            var kept: [String: JSONValue] = [:]
            for (key, value) in object where !key.hasSuffix("-Rules") { kept[key] = strippingRules(value) }
            return .object(kept)
        case let .array(array):
            return .array(array.map(strippingRules))
        default:
            return json
        }
    }
}
