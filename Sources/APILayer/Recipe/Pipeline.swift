import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Mapper
import NetOps
import Templater
import Validator

/// The model of a method that answers with an empty body (a logout, a delete): asked for as
/// `as: NoContent.self`, an empty body succeeds without validation; a JSON body is still checked
/// and must be an object.
public struct NoContent: Decodable, Sendable, Equatable {
    /// The empty answer.
    public init() {}
}

extension APIManager {
    /// A step between validation and mapping that digs the interesting part out of a deep
    /// response (see `Parser`). A thrown error fails the call at stage `.parsing`.
    public typealias ParseStep = @Sendable (JSONValue) throws -> JSONValue

    /// Calls `method` and returns its model.
    ///
    /// The pipeline: construct the request → run the operation → check transport, HTTP status
    /// and the method's `bodyError` → validate against the method's template (or its custom
    /// checks) → `parser` → map `Model` at `keyPath`. Under `stubMode` the answer comes from the
    /// method's template (its `-Rules` keys removed) and no request is made.
    ///
    /// ```swift
    /// let users = try await APIManager.call(DemoAPI.usersGet, properties: ["ids": [1]],
    ///                                       as: [User].self, at: "response")
    /// ```
    /// - Parameters:
    ///   - method: The API method.
    ///   - properties: Parameters merged over the method's defaults (the caller's win, arrays concatenate).
    ///   - type: The model decoded.
    ///   - keyPath: Dot-separated keys to the model in the response (`nil`: the whole response).
    ///   - parser: An optional step before mapping.
    /// - Returns: The model.
    /// - Throws: `APIError` naming the stage that failed.
    public static func call<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, properties: Parameters = [:], as type: Model.Type, at keyPath: String? = nil,
        parser: ParseStep? = nil
    ) async throws(APIError) -> Model {
        let components = current.withLock { $0 }
        let steps = Steps(method: method, type: type, keyPath: keyPath, parser: parser, components: components)
        switch components.stubMode {
        case .off: break
        case .immediate: return try steps.stub().get()
        case let .delayed(seconds):
            try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            return try steps.stub().get()
        }
        let built = try RequestConstructor.request(for: method, properties: properties, baseURL: components.baseURL,
                                                   token: components.authentication == nil ? token?.accessToken : nil)
        let operation = makeOperation(built, for: method, authenticated: components.authentication != nil)
        _ = try? await operation.run()
        return try steps.finish(operation).get()
    }

    /// Calls `method` and hands its model (or the `APIError` naming the failed stage) to
    /// `completion`, on an internal thread.
    ///
    /// Same pipeline as the `async` `call`; the operation is added to `queue`.
    /// - Returns: The operation (to cancel, suspend or watch), or `nil` when none was made:
    ///   the request could not be built, or `stubMode` answers.
    @discardableResult
    public static func call<Method: APIMethod, Model: Decodable & Sendable>(
        _ method: Method, properties: Parameters = [:], as type: Model.Type, at keyPath: String? = nil,
        parser: ParseStep? = nil, queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<Model, APIError>) -> Void
    ) -> BaseOperation? {
        let components = current.withLock { $0 }
        let steps = Steps(method: method, type: type, keyPath: keyPath, parser: parser, components: components)
        switch components.stubMode {
        case .off: break
        case .immediate:
            DispatchQueue.global().async { completion(steps.stub()) }
            return nil
        case let .delayed(seconds):
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { completion(steps.stub()) }
            return nil
        }
        let built: RequestConstructor.Built
        do {
            built = try RequestConstructor.request(for: method, properties: properties, baseURL: components.baseURL,
                                                   token: components.authentication == nil ? token?.accessToken : nil)
        } catch {
            DispatchQueue.global().async { completion(.failure(error)) }
            return nil
        }
        let operation = makeOperation(built, for: method, authenticated: components.authentication != nil)
        operation.onCompletion { completion(steps.finish($0)) }
        (queue ?? asyncQueue).addOperation(operation)
        return operation
    }

    /// The operation that sends `built` for `method`.
    ///
    /// With authentication configured the coordinator alone places the token (so a replay after a
    /// refresh carries the fresh one); the operation tells it where `method` wants it, or that
    /// `method` needs none.
    static func makeOperation<Method: APIMethod>(_ built: RequestConstructor.Built, for method: Method, authenticated: Bool) -> BaseOperation {
        let operation = makeOperation(built)
        if authenticated {
            if let placement = method.tokenPlacement {
                operation.userInfo[AuthenticationCoordinator.placementKey] = placement
            } else {
                operation.userInfo[AuthenticationCoordinator.withoutTokenKey] = true
            }
        }
        return operation
    }

    /// The operation that sends `built`.
    static func makeOperation(_ built: RequestConstructor.Built) -> BaseOperation {
        switch built {
        case let .plain(request):
            return DataTaskOperation(request: request)
        case let .multipart(request, form):
            var headers = request.allHTTPHeaderFields ?? [:]
            headers["Content-Type"] = nil
            let method = HTTPMethod(rawValue: request.httpMethod ?? "POST") ?? .post
            return UploadOperation.multipart(form, to: request.url!, method: method, headers: headers)
        }
    }

    /// The stages after the transfer, for one call.
    struct Steps<Method: APIMethod, Model: Decodable & Sendable>: Sendable {
        let method: Method
        let type: Model.Type
        let keyPath: String?
        let parser: ParseStep?
        let components: Components

        private var name: String { method.rawValue }

        /// Checks, validates, parses and maps what `operation` received.
        func finish(_ operation: BaseOperation) -> Result<Model, APIError> {
            func fail(_ stage: APIError.Stage) -> Result<Model, APIError> {
                .failure(APIError(stage, method: name, operation: operation))
            }
            if let error = operation.error {
                if let status = error.httpStatus {
                    return fail(.server(status: status, message: String(decoding: operation.receivedData.prefix(512), as: UTF8.self)))
                }
                return fail(.transport(error))
            }
            if Model.self == NoContent.self, operation.receivedData.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
                return .success(NoContent() as! Model)
            }
            let json: JSONValue
            do { json = try JSONValue(parsing: operation.receivedData) } catch {
                return fail(.parsing("the response is not JSON: \(error)"))
            }
            if let bodyError = method.bodyError, let message = bodyError(json) {
                return fail(.server(status: operation.statusCode, message: message))
            }
            var template: Template?
            if case .custom = method.validation {} else {
                switch loadTemplate() {
                case let .success(loaded): template = loaded
                case let .failure(error): return fail(error.stage)
                }
            }
            let errors = method.validation.validate(json, template: template)
            guard errors.isEmpty else { return fail(.validation(errors)) }
            return decode(json, operation: operation)
        }

        /// The answer made from the method's template, its `-Rules` keys removed.
        func stub() -> Result<Model, APIError> {
            let raw: JSONValue?
            do { raw = try components.templates.template(for: name) } catch {
                return .failure(APIError(.templateInvalid(error.description), method: name))
            }
            guard let raw else { return .failure(APIError(.templateMissing(missing), method: name)) }
            return decode(Self.strippingRules(raw), operation: nil)
        }

        private var missing: String {
            "no template \"\(name)\" in \(components.templates.directory.path)"
        }

        private func loadTemplate() -> Result<Template, APIError> {
            let raw: JSONValue?
            do { raw = try components.templates.template(for: name) } catch {
                return .failure(APIError(.templateInvalid(error.description), method: name))
            }
            guard let raw else { return .failure(APIError(.templateMissing(missing), method: name)) }
            do { return .success(try Template(raw)) } catch {
                return .failure(APIError(.templateInvalid(error.description), method: name))
            }
        }

        private func decode(_ json: JSONValue, operation: BaseOperation?) -> Result<Model, APIError> {
            var value = json
            if let parser {
                do { value = try parser(json) } catch {
                    return .failure(APIError(.parsing(String(describing: error)), method: name, operation: operation))
                }
            }
            do {
                return .success(try Mapper.map(type, from: value.serialized(), at: keyPath, configuration: components.mapperConfiguration))
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
}
