import Foundation
import HTTPTypes
import OpenAPIRuntime
import Templater
import Validator

/// A `ClientMiddleware` of swift-openapi-runtime that checks each JSON success response of a
/// generated client against the template named by the operation's ID, the way APILayer checks
/// the responses of its own methods: keys, types and `-Rules` (bounds, lengths, enums, counts).
///
/// `apilayer templates import` writes those templates from the same description the client was
/// generated from, so the checks the generator leaves out (`minimum`, `maxLength`, `enum`,
/// `minItems`, …) happen on every response:
///
/// ```swift
/// let client = Client(serverURL: url, transport: APILayerTransport(scope: .inventory),
///                     middlewares: [TemplateValidationMiddleware(templates: TemplateStore(directory: folder))])
/// ```
///
/// A response that breaks its template throws `TemplateValidationFailure`; the client's call
/// throws it wrapped in its `ClientError`.
public struct TemplateValidationMiddleware: ClientMiddleware {
    /// Where the templates are.
    public let templates: TemplateStore
    /// The checks made.
    public var mask: ValidationMask
    /// Whether a JSON success response of an operation without a template fails (true) or
    /// passes unchecked (false).
    public var requiresTemplate: Bool
    /// The largest response body read for validation.
    public var maxBodyBytes: Int

    /// A middleware that validates against the templates of `templates`.
    public init(templates: TemplateStore, mask: ValidationMask = .all, requiresTemplate: Bool = true, maxBodyBytes: Int = 64 << 20) {
        self.templates = templates
        self.mask = mask
        self.requiresTemplate = requiresTemplate
        self.maxBodyBytes = maxBodyBytes
    }

    /// Passes the request on, then validates a 2xx JSON response's body.
    ///
    /// - Throws: `TemplateValidationFailure` when the body breaks the template, does not
    ///   parse, or (with `requiresTemplate`) has no template.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind == .successful, Self.isJSON(response.headerFields[.contentType]), let responseBody else {
            return (response, responseBody)
        }
        let bytes = try await ArraySlice(collecting: responseBody, upTo: maxBodyBytes)
        let data = Data(bytes)
        let template: Template?
        do { template = try templates.compiledTemplate(for: operationID) } catch {
            throw TemplateValidationFailure(operationID: operationID, reason: .templateInvalid(error.description))
        }
        guard let template else {
            if requiresTemplate { throw TemplateValidationFailure(operationID: operationID, reason: .templateMissing) }
            return (response, HTTPBody(bytes))
        }
        let json: JSONValue
        do { json = try JSONValue(parsing: data) } catch {
            throw TemplateValidationFailure(operationID: operationID, reason: .notJSON(String(describing: error)))
        }
        let errors = Validator.validate(json, against: template, mask: mask)
        guard errors.isEmpty else { throw TemplateValidationFailure(operationID: operationID, reason: .invalid(errors)) }
        return (response, HTTPBody(bytes))
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}

/// A response that `TemplateValidationMiddleware` refused.
public struct TemplateValidationFailure: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why it was refused.
    public enum Reason: Sendable, Equatable {
        /// The body breaks the template: every error, each with its JSON Pointer.
        case invalid([ValidationError])
        /// The body is not JSON.
        case notJSON(String)
        /// No template has the operation's ID.
        case templateMissing
        /// The template could not be read or compiled.
        case templateInvalid(String)
    }

    /// The ID of the client's operation, which is the template's name.
    public var operationID: String
    /// Why the response was refused.
    public var reason: Reason

    /// A refusal of `operationID`'s response.
    public init(operationID: String, reason: Reason) {
        self.operationID = operationID
        self.reason = reason
    }

    /// The validation errors, empty for the other reasons.
    public var errors: [ValidationError] {
        if case let .invalid(errors) = reason { return errors }
        return []
    }

    /// One readable line.
    public var description: String {
        switch reason {
        case let .invalid(errors):
            return "the response of \(operationID) breaks its template: " + errors.map(\.description).joined(separator: "; ")
        case let .notJSON(detail): return "the response of \(operationID) is not JSON: \(detail)"
        case .templateMissing: return "no template \(operationID) to validate its response"
        case let .templateInvalid(detail): return "the template \(operationID) cannot be used: \(detail)"
        }
    }
}
