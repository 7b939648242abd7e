import Foundation
import OpenAPIKit
import Templater
import Validator

/// Reads the operations of an OpenAPI description and makes the template of each one's success
/// response (`apilayer templates import`).
///
/// It walks OpenAPIKit's reading of the description (`OpenAPIDescription.document`), following
/// references with OpenAPIKit's components (`ReferenceResolver`), and reads each schema's JSON
/// with `SchemaTranslator`. Keys are taken as the description spells them (the JSON's), so the
/// report's JSON Pointers lead to the very place: OpenAPIKit's keys are parsed (`application/json;
/// charset=utf-8` with its parameters sorted, `2xx` as `2XX`).
///
/// ```swift
/// let description = try OpenAPIDescription.load(contentsOf: specURL, maxBytes: 64 << 20)
/// let operations = OpenAPIImporter().operations(in: description)
/// let report = try TemplateFileWriter.write(operations, to: folder)
/// ```
package struct OpenAPIImporter: Sendable {
    /// The HTTP methods an OpenAPI path item may hold, in the order they are listed.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The most values one template may have; past it the template holds `null` (any value).
    package var maxTemplateValues: Int

    /// An importer whose templates have at most `maxTemplateValues` values.
    package init(maxTemplateValues: Int = 20_000) {
        self.maxTemplateValues = maxTemplateValues
    }

    /// Every operation of `description`, in the order of its paths (sorted) and methods; only
    /// those named in `only` when it is not empty (a name not found becomes a skipped entry).
    package func operations(in description: OpenAPIDescription, only: [String] = []) -> [ImportedOperation] {
        let resolver = ReferenceResolver(description)
        let paths = description.root.objectFields?["paths"]?.objectFields ?? [:]
        var result: [ImportedOperation] = []
        var taken: Set<String> = []
        let wanted = Set(only)
        for path in paths.keys.sorted() {
            let itemPointer = "/paths/" + JSONPointer.escape(path)
            guard let entry = description.document.paths[OpenAPI.Path(rawValue: path)] else { continue }
            let item: Located<OpenAPI.PathItem>
            switch resolver.follow(entry, json: paths[path]!) {
            case let .failure(failure):
                result.append(
                    ImportedOperation(
                        name: path, method: "*", path: path, pointer: itemPointer, skipReason: "the path item: \(failure)"))
                continue
            case let .success(followed):
                item = followed
            }
            for method in Self.methods {
                guard let httpMethod = OpenAPI.HttpMethod(rawValue: method.uppercased()), let operation = item.value.for(httpMethod),
                    let operationJSON = item.json.objectFields?[method]?.objectFields
                else { continue }
                let pointer = itemPointer + "/" + method
                var imported = ImportedOperation(
                    name: "", operationID: operation.operationId, method: method, path: path, summary: operation.summary,
                    pointer: pointer)
                if let id = imported.operationID, !id.isEmpty {
                    imported.name = id
                } else {
                    imported.name = Self.madeUpName(method: method, path: path)
                    imported.findings.append(
                        ImportFinding(
                            kind: .named, construct: "operationId", pointer: pointer,
                            message: "the operation has no operationId: it is named \(imported.name) from its method and path"))
                }
                guard wanted.isEmpty || wanted.contains(imported.name) else { continue }
                if taken.contains(imported.name) {
                    imported.skipReason = "another operation already has the name \(imported.name)"
                    result.append(imported)
                    continue
                }
                taken.insert(imported.name)
                if let problem = Self.nameProblem(imported.name) {
                    imported.skipReason = "\(imported.name) cannot be a template name: \(problem)"
                    result.append(imported)
                    continue
                }
                imported.isCallable = true
                let located = Located(value: operation, json: .object(operationJSON))
                describeRequest(&imported, operation: located, pathItem: item, resolver: resolver)
                makeTemplate(&imported, operation: located, description: description, resolver: resolver)
                result.append(imported)
            }
        }
        for name in only where !taken.contains(name) && !result.contains(where: { $0.name == name }) {
            result.append(
                ImportedOperation(
                    name: name, method: "*", path: "", pointer: "/paths", skipReason: "no operation \(name) in the description"))
        }
        return result
    }

    /// A name for an operation without operationId: `get-items-id` for `GET /items/{id}`.
    static func madeUpName(method: String, path: String) -> String {
        var name = method
        var pendingDash = true
        for character in path {
            if character.isASCII, character.isLetter || character.isNumber {
                if pendingDash { name.append("-") }
                name.append(character)
                pendingDash = false
            } else {
                pendingDash = true
            }
        }
        return name
    }

    /// Why `name` cannot be a template name, or nil.
    static func nameProblem(_ name: String) -> String? {
        do {
            _ = try TemplateName(name)
            return nil
        } catch {
            if case let .invalidName(_, reason) = error { return reason }
            return error.description
        }
    }

    // MARK: The request

    /// Fills in the parameters and the body encoding the recipe needs.
    private func describeRequest(
        _ imported: inout ImportedOperation, operation: Located<OpenAPI.Operation>, pathItem: Located<OpenAPI.PathItem>,
        resolver: ReferenceResolver
    ) {
        var parameters: [(name: String, location: OpenAPI.Parameter.Context.Location)] = []
        for (list, json) in [(pathItem.value.parameters, pathItem.json), (operation.value.parameters, operation.json)] {
            let entries = json.objectFields?["parameters"]?.arrayValue ?? []
            for (index, entry) in list.enumerated() {
                guard case let .success(parameter) = resolver.follow(entry, json: index < entries.count ? entries[index] : .null)
                else { continue }
                let (name, location) = (parameter.value.name, parameter.value.location)
                parameters.removeAll { $0.name == name && $0.location == location }
                parameters.append((name, location))
            }
        }
        imported.pathParameters = PathTemplateNames.placeholders(in: imported.path)
        imported.queryParameters = parameters.filter { $0.location == .query }.map(\.name)
        if let body = operation.value.requestBody, let bodyJSON = operation.json.objectFields?["requestBody"],
            case let .success(request) = resolver.follow(body, json: bodyJSON),
            let content = request.json.objectFields?["content"]?.objectFields
        {
            // The media types as the description spells them (OpenAPIKit's sorts their parameters).
            let types = content.keys.map { $0.lowercased() }
            if types.contains(where: { Self.isJSON($0) }) {
                imported.requestEncoding = "json"
            } else if types.contains(where: { $0.hasPrefix("application/x-www-form-urlencoded") }) {
                imported.requestEncoding = "form"
            } else if types.contains(where: { $0.hasPrefix("multipart/") }) {
                imported.requestEncoding = "multipart"
            } else {
                imported.requestEncoding = "json"
                imported.findings.append(
                    ImportFinding(
                        kind: .notChecked, construct: "requestBody", pointer: imported.pointer + "/requestBody",
                        message: "a body of \(types.sorted().joined(separator: ", ")) has no encoding in the recipe: the method uses .json"))
            }
        }
    }

    /// Whether a media type is JSON: `application/json`, `…+json`, with or without parameters.
    static func isJSON(_ mediaType: String) -> Bool {
        let essence = mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }

    // MARK: The template

    /// Finds the success response and makes its template.
    private func makeTemplate(
        _ imported: inout ImportedOperation, operation: Located<OpenAPI.Operation>, description: OpenAPIDescription,
        resolver: ReferenceResolver
    ) {
        let responsesPointer = imported.pointer + "/responses"
        guard let responses = operation.json.objectFields?["responses"]?.objectFields else {
            imported.skipReason = "the operation has no responses"
            return
        }
        // The 2xx statuses OpenAPIKit read (`2XX` counts as 200), under the description's keys.
        var statuses: [(status: Int, key: String, entry: Either<OpenAPI.Reference<OpenAPI.Response>, OpenAPI.Response>)] = []
        for key in responses.keys {
            guard let code = OpenAPI.Response.StatusCode(rawValue: key), let entry = operation.value.responses[code] else { continue }
            switch code.value {
            case let .status(status) where (200..<300).contains(status): statuses.append((status, key, entry))
            case .range(.success): statuses.append((200, key, entry))
            default: break
            }
        }
        statuses.sort { $0.status != $1.status ? $0.status < $1.status : $0.key < $1.key }
        imported.successStatuses = Array(Set(statuses.map(\.status))).sorted()
        for (status, key, entry) in statuses {
            let pointer = responsesPointer + "/" + JSONPointer.escape(key)
            let response: Located<OpenAPI.Response>
            switch resolver.follow(entry, json: responses[key]!) {
            case let .success(value): response = value
            case let .failure(failure):
                imported.skipReason = "the \(key) response: \(failure)"
                return
            }
            guard let content = response.json.objectFields?["content"]?.objectFields,
                let mediaType = content.keys.sorted().first(where: { Self.isJSON($0) }),
                let contentType = OpenAPI.ContentType(rawValue: mediaType), let mediaEntry = response.value.content[contentType],
                case let .success(media) = resolver.follow(mediaEntry, json: content[mediaType]!)
            else { continue }
            imported.status = status
            let mediaPointer = pointer + "/content/" + JSONPointer.escape(mediaType)
            translate(&imported, media: media, at: mediaPointer, description: description, resolver: resolver)
            return
        }
        imported.skipReason =
            statuses.isEmpty ? "the operation declares no 2xx response" : "no 2xx response has a JSON body: there is nothing to validate"
    }

    private func translate(
        _ imported: inout ImportedOperation, media: Located<OpenAPI.Content>, at pointer: String, description: OpenAPIDescription,
        resolver: ReferenceResolver
    ) {
        var example: JSONValue?
        let examplesJSON = media.json.objectFields?["examples"]?.objectFields ?? [:]
        // OpenAPIKit's `example` is also the first of `examples` in its order (which is not the
        // document's here): the first named example is taken by name, as the description sorts.
        if let examples = media.value.examples {
            if let first = examplesJSON.keys.sorted().first(where: { examples[$0] != nil }) {
                switch resolver.follow(examples[first]!, json: examplesJSON[first]!) {
                case let .success(entry):
                    if let value = entry.value.dataOrLegacyValue {
                        example = JSONValue(openAPIKit: value)
                    } else if entry.value.externalValue != nil {
                        imported.findings.append(
                            ImportFinding(
                                kind: .notChecked, construct: "externalValue", pointer: pointer + "/examples/" + JSONPointer.escape(first),
                                message: "the example is in another file, which is not read: values are made up from the schema"))
                    }
                case let .failure(failure):
                    imported.findings.append(
                        ImportFinding(
                            kind: .broken, construct: "$ref", pointer: pointer + "/examples/" + JSONPointer.escape(first),
                            message: failure.description))
                }
            }
        } else if let value = media.value.example {
            example = JSONValue(openAPIKit: value)
        }
        var translator = SchemaTranslator(resolver: resolver, version: description.version, budget: maxTemplateValues)
        var translated: SchemaTranslator.Translated
        // OpenAPIKit read a stand-in for the schema (see `OpenAPIKitReading`): its JSON is translated.
        if media.value.schema != nil, let schema = media.json.objectFields?["schema"] {
            translated = translator.translate(schema, at: pointer + "/schema", example: example)
        } else {
            translated = SchemaTranslator.Translated(value: example ?? .null)
        }
        imported.findings += translator.findings
        if let broken = translator.broken {
            imported.skipReason = broken
            return
        }
        let nullElements = translated.droppingElementNullability()
        if !translated.rules.isEmpty || translated.nullable || nullElements {
            let names =
                translated.rules.keys.sorted() + (translated.nullable ? ["null"] : [])
                + (nullElements ? ["null elements: no element is checked"] : [])
            imported.findings.append(
                ImportFinding(
                    kind: .notChecked, construct: "root", pointer: pointer + "/schema",
                    message: "rules of the response's root cannot be written (\(names.joined(separator: ", "))): only its type is checked"))
        }
        let template = translated.value
        let problems = Validator.checkTemplate(template)
        guard problems.isEmpty else {
            imported.skipReason = "the schema gives an invalid template: " + problems.map(\.description).joined(separator: "; ")
            return
        }
        imported.template = template
        checkExamples(&imported, template: template, example: example, at: pointer)
    }

    /// Reports where the response's example, or the template's own sample values, break the
    /// template's rules: an example that contradicts its schema.
    private func checkExamples(_ imported: inout ImportedOperation, template: JSONValue, example: JSONValue?, at pointer: String) {
        guard let compiled = try? Template(template) else { return }
        if let example {
            for error in Validator.validate(example, against: compiled).prefix(20) {
                imported.findings.append(
                    ImportFinding(
                        kind: .exampleContradicts, construct: "example", pointer: pointer + "/example",
                        message: "the response's example breaks its schema: \(error)"))
            }
        }
        // The sample values (from property examples, or made up) must pass too; an array keeps
        // one element, so its minimum count is not the sample's business.
        for error in Validator.validate(TemplateSample.strippingRules(template), against: compiled).prefix(20) {
            if case .rule(.elementsMustBeEqualOrMoreThan) = error.check { continue }
            let finding = ImportFinding(
                kind: .exampleContradicts, construct: "example", pointer: pointer + "/schema",
                message: "a value from the schema's examples breaks its schema: \(error)")
            if !imported.findings.contains(finding) { imported.findings.append(finding) }
        }
    }
}

/// The sample a template stands for: the template without its `-Rules` keys.
enum TemplateSample {
    static func strippingRules(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .object(fields):
            var result: [String: JSONValue] = [:]
            for (key, field) in fields {
                if key.hasSuffix("-Rules"), fields[String(key.dropLast("-Rules".count))] != nil { continue }
                result[key] = strippingRules(field)
            }
            return .object(result)
        case let .array(elements):
            return .array(elements.map(strippingRules))
        default:
            return value
        }
    }
}

/// The `{placeholders}` of an OpenAPI path.
enum PathTemplateNames {
    static func placeholders(in path: String) -> [String] {
        var names: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = String(rest[rest.index(after: open)..<close])
            if !name.isEmpty, !names.contains(name) { names.append(name) }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
