import Foundation
import Validator

/// Turns the JSON Schema of one response into a template value and its `-Rules`, noting every
/// construct the rule dialect cannot say.
///
/// It walks the schema and the response's example side by side: a value comes from the example
/// where there is one, else from the schema's own `example`, `examples`, `default`, `const` or
/// first `enum` value, else it is made up so that it obeys the schema's bounds. The walk is
/// bounded: references that recur are cut (the value there is `null`, which accepts anything),
/// so are schemas nested deeper than `maxDepth`, and a template stops growing after `budget`
/// values.
struct SchemaTranslator {
    /// A translated schema: the template value, the rules its key gets, and whether the value
    /// may be `null`.
    struct Translated {
        var value: JSONValue
        var rules: [String: JSONValue] = [:]
        var nullable = false

        /// For a value whose rules cannot be written (the root, an element): an array whose
        /// elements may be null becomes `[null]`, so no element is checked rather than a `null`
        /// one failing. Returns whether it was such an array.
        mutating func droppingElementNullability() -> Bool {
            guard rules.removeValue(forKey: "elementsMayBeNull") != nil else { return false }
            value = .array([.null])
            return true
        }
    }

    /// The deepest schema nesting followed.
    static let maxDepth = 48

    let resolver: ReferenceResolver
    let version: OpenAPIVersion
    /// What the walk noticed.
    private(set) var findings: [ImportFinding] = []
    /// Set when the schema is broken (a `$ref` to nowhere): no template is written.
    private(set) var broken: String?
    private var budget: Int
    private var references: [String] = []
    private var reportedTruncation = false

    init(resolver: ReferenceResolver, version: OpenAPIVersion, budget: Int) {
        self.resolver = resolver
        self.version = version
        self.budget = budget
    }

    mutating func note(_ kind: ImportFinding.Kind, _ construct: String, at pointer: String, _ message: String) {
        let finding = ImportFinding(kind: kind, construct: construct, pointer: pointer, message: message)
        if !findings.contains(finding) { findings.append(finding) }
    }

    // MARK: Keywords

    /// Keywords that describe without constraining: ignored.
    static let annotations: Set<String> = [
        "title", "description", "example", "examples", "default", "deprecated", "readOnly", "writeOnly", "externalDocs", "xml",
        "$comment", "$schema", "$id", "$anchor", "$defs", "definitions", "discriminator",
    ]

    /// Keywords the translation maps to the template or its rules.
    static let mapped: Set<String> = [
        "type", "nullable", "properties", "required", "items", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "additionalProperties", "allOf", "oneOf", "anyOf",
        "$ref",
    ]

    /// What a keyword the rule dialect cannot say means, for the report.
    static func unsupportedMessage(_ keyword: String) -> String {
        switch keyword {
        case "pattern": return "the regular expression is not checked"
        case "format": return "the format is not checked (the value's JSON type is)"
        case "multipleOf": return "divisibility is not checked"
        case "uniqueItems": return "duplicate elements are not found"
        case "minProperties", "maxProperties": return "the number of keys is not checked"
        case "patternProperties", "propertyNames", "unevaluatedProperties", "dependentRequired", "dependentSchemas", "dependencies":
            return "keys beyond the listed properties are not checked"
        case "prefixItems", "contains", "minContains", "maxContains", "unevaluatedItems":
            return "elements are checked against one sample element only"
        case "not", "if", "then", "else": return "the condition is not checked"
        default: return "not checked"
        }
    }

    // MARK: Translation

    /// The template value and rules of `schema`, found at `pointer` in the description.
    ///
    /// - Parameter example: the value the response's example has here, if any.
    mutating func translate(_ schema: JSONValue, at pointer: String, example: JSONValue?, depth: Int = 0) -> Translated {
        budget -= 1
        if budget < 0 {
            if !reportedTruncation {
                reportedTruncation = true
                note(.weakened, "size", at: pointer, "the template reached its size limit here: deeper values are null (any value passes)")
            }
            return Translated(value: .null)
        }
        guard depth <= Self.maxDepth else {
            note(.weakened, "depth", at: pointer, "the schema nests deeper than \(Self.maxDepth) levels: from here any value passes")
            return Translated(value: .null)
        }
        switch schema {
        case .object:
            break
        case .bool(true):
            return Translated(value: .null)
        case .bool(false):
            note(.notChecked, "false", at: pointer, "a schema that allows nothing is not checked")
            return Translated(value: .null)
        default:
            note(.broken, "schema", at: pointer, "the schema is not an object: any value passes")
            return Translated(value: .null)
        }
        var fields = schema.objectFields ?? [:]

        // $ref: followed, with the references being expanded on a stack so a recursion ends.
        if let reference = fields["$ref"]?.stringValue {
            fields["$ref"] = nil
            let siblings = fields.filter { !Self.annotations.contains($0.key) && !$0.key.hasPrefix("x-") }
            let localExample = example ?? Self.schemaExample(fields)
            guard let target = follow(reference, at: pointer) else { return Translated(value: .null) }
            references.append(reference)
            defer { references.removeLast() }
            if siblings.isEmpty || version == .v30 {
                return translate(target, at: pointer, example: localExample, depth: depth + 1)
            }
            var combined = fields
            combined["allOf"] = .array([target, .object(siblings)])
            for key in siblings.keys { combined[key] = nil }
            return translate(.object(combined), at: pointer, example: localExample, depth: depth + 1)
        }

        // allOf: merged into one schema.
        if case .array? = fields["allOf"] {
            var pushed = 0
            let merged = flattenAllOf(fields, at: pointer, pushed: &pushed, depth: 0)
            defer { references.removeLast(pushed) }
            return translate(.object(merged), at: pointer, example: example, depth: depth + 1)
        }

        // oneOf / anyOf: "X or null" is X made optional; any other choice is not checked.
        for keyword in ["oneOf", "anyOf"] {
            guard case let .array(choices)? = fields[keyword] else { continue }
            fields[keyword] = nil
            let others = choices.filter { !isNullSchema($0) }
            if others.count == 1 {
                var rest = fields
                rest["allOf"] = .array([others[0]])
                var translated = translate(.object(rest), at: pointer, example: example, depth: depth + 1)
                if others.count < choices.count { translated.nullable = true }
                return translated
            }
            let discriminator = fields["discriminator"] != nil ? " (with a discriminator)" : ""
            note(
                .notChecked, keyword, at: pointer,
                "a choice of \(choices.count) schemas\(discriminator) is not checked: the template holds null there, which accepts any value")
            let structural = ["type", "properties", "items", "enum", "const"].contains { fields[$0] != nil }
            guard structural else { return Translated(value: .null, nullable: others.count < choices.count) }
        }

        for keyword in fields.keys.sorted()
        where !Self.annotations.contains(keyword) && !Self.mapped.contains(keyword) && !keyword.hasPrefix("x-") {
            let detail = keyword == "format" || keyword == "pattern" ? " \(Self.describe(fields[keyword]!))" : ""
            note(.notChecked, keyword, at: pointer, "\(keyword)\(detail): \(Self.unsupportedMessage(keyword))")
        }
        return translateTyped(fields, at: pointer, example: example, depth: depth)
    }

    /// The translation of a schema without `$ref`, `allOf`, `oneOf` or `anyOf`.
    private mutating func translateTyped(_ fields: [String: JSONValue], at pointer: String, example: JSONValue?, depth: Int)
        -> Translated
    {
        var (types, nullable) = Self.types(of: fields, version: version)
        if version == .v30, fields["nullable"] == .bool(true) { nullable = true }
        if case let .array(values)? = fields["enum"], values.contains(.null) { nullable = true }
        if types.isEmpty, let inferred = Self.inferredType(fields) { types = [inferred] }
        guard types.count <= 1 else {
            note(.notChecked, "type", at: pointer, "a value of several types (\(types.joined(separator: ", "))) is not checked")
            return Translated(value: .null, nullable: nullable)
        }
        guard let type = types.first else { return Translated(value: .null, nullable: nullable) }
        if type == "null" { return Translated(value: .null, nullable: true) }

        // The sample: the response's example, else the schema's, else one made up.
        var sample: JSONValue?
        for candidate in [example, Self.schemaExample(fields), fields["default"]] {
            guard let candidate, candidate != .null else { continue }
            if Self.matches(candidate, type: type) {
                sample = candidate
                break
            }
            let why = candidate.isNonFiniteNumber ? "is not a JSON number (infinite or NaN)" : "is not of the schema's type \(type)"
            note(.exampleContradicts, "example", at: pointer, "the example \(Self.describe(candidate)) \(why)")
        }

        var translated: Translated
        switch type {
        case "string": translated = string(fields, at: pointer, sample: sample)
        case "integer", "number": translated = number(fields, integer: type == "integer", at: pointer, sample: sample)
        case "boolean":
            translated = Translated(value: sample ?? .bool(true))
            if fields["enum"] != nil { note(.notChecked, "enum", at: pointer, "an enum of booleans is not checked") }
        case "array": translated = array(fields, at: pointer, sample: sample, depth: depth)
        case "object": translated = object(fields, at: pointer, sample: sample, depth: depth)
        default:
            note(.broken, "type", at: pointer, "unknown type \"\(type)\": any value passes")
            translated = Translated(value: .null)
        }
        if let constant = fields["const"], constant != .null {
            if Self.matches(constant, type: type) {
                translated.value = constant
                translated.rules["mustMatch"] = .bool(true)
                translated.rules["matchWithOneOf"] = nil
            } else {
                note(.exampleContradicts, "const", at: pointer, "the const \(Self.describe(constant)) is not of the schema's type \(type)")
            }
        }
        translated.nullable = translated.nullable || nullable
        return translated
    }

    private mutating func string(_ fields: [String: JSONValue], at pointer: String, sample: JSONValue?) -> Translated {
        var rules: [String: JSONValue] = [:]
        let minLength = count("minLength", in: fields, at: pointer)
        let maxLength = count("maxLength", in: fields, at: pointer)
        if let minLength, minLength > 0 { rules["lengthMustBeEqualOrGreaterThan"] = .int(minLength) }
        if let maxLength { rules["lengthMustBeEqualOrLessThan"] = .int(maxLength) }
        if sample == nil, let minLength, minLength > Self.longestMadeUpString {
            note(
                .weakened, "minLength", at: pointer,
                "the sample string is \(Self.longestMadeUpString) characters long, not minLength \(minLength): the template's own sample breaks the rule"
            )
        }
        var choices: [String] = []
        if case let .array(values)? = fields["enum"] {
            for value in values {
                switch value {
                case let .string(text): if !choices.contains(text) { choices.append(text) }
                case .null: break
                default: note(.notChecked, "enum", at: pointer, "the enum value \(Self.describe(value)) is not a string and is not checked")
                }
            }
            if !choices.isEmpty { rules["matchWithOneOf"] = .array(choices.map(JSONValue.string)) }
        }
        let value = sample ?? .string(choices.first ?? Self.madeUpString(format: fields["format"]?.stringValue, min: minLength, max: maxLength))
        return Translated(value: value, rules: rules)
    }

    private mutating func number(_ fields: [String: JSONValue], integer: Bool, at pointer: String, sample: JSONValue?) -> Translated {
        var lower = bound("minimum", in: fields, at: pointer).map { (bound: $0, exclusive: false) }
        var upper = bound("maximum", in: fields, at: pointer).map { (bound: $0, exclusive: false) }
        switch (fields["exclusiveMinimum"], version) {
        case (.bool(true)?, _): lower?.exclusive = true
        case (.bool?, _): break
        case (_?, _):
            if let bound = bound("exclusiveMinimum", in: fields, at: pointer), lower == nil || bound >= lower!.bound {
                lower = (bound, true)
            }
        default: break
        }
        switch (fields["exclusiveMaximum"], version) {
        case (.bool(true)?, _): upper?.exclusive = true
        case (.bool?, _): break
        case (_?, _):
            if let bound = bound("exclusiveMaximum", in: fields, at: pointer), upper == nil || bound <= upper!.bound {
                upper = (bound, true)
            }
        default: break
        }
        var rules: [String: JSONValue] = [:]
        var minimum: Double?
        var maximum: Double?
        if let lower {
            if integer {
                minimum = lower.exclusive ? (lower.bound + 1).rounded(.down) : lower.bound.rounded(.up)
            } else {
                minimum = lower.bound
                if lower.exclusive {
                    note(
                        .weakened, "exclusiveMinimum", at: pointer,
                        "exclusiveMinimum \(Self.text(lower.bound)) is checked as minimum \(Self.text(lower.bound)): the bound itself passes")
                }
            }
            rules["minimum"] = Self.numberValue(minimum!)
        }
        if let upper {
            if integer {
                maximum = upper.exclusive ? (upper.bound - 1).rounded(.up) : upper.bound.rounded(.down)
            } else {
                maximum = upper.bound
                if upper.exclusive {
                    note(
                        .weakened, "exclusiveMaximum", at: pointer,
                        "exclusiveMaximum \(Self.text(upper.bound)) is checked as maximum \(Self.text(upper.bound)): the bound itself passes")
                }
            }
            rules["maximum"] = Self.numberValue(maximum!)
        }
        if fields["enum"] != nil {
            note(.notChecked, "enum", at: pointer, "an enum of numbers is not checked (matchWithOneOf takes strings)")
        }
        var made: Double = minimum ?? min(maximum ?? 1, 1)
        if let maximum, let minimum, maximum < minimum { made = minimum }
        if !integer, minimum == nil, let upper, upper.exclusive, made >= upper.bound { made = upper.bound - 1 }
        if !integer, maximum == nil, let lower, lower.exclusive, made <= lower.bound { made = lower.bound + 1 }
        if !integer, let lower, lower.exclusive, made == lower.bound { made = lower.bound + (maximum.map { ($0 - lower.bound) / 2 } ?? 1) }
        if !integer, let upper, upper.exclusive, made == upper.bound { made = upper.bound - 1 }
        if !made.isFinite { made = 0 }  // halfway between bounds of opposite signs near the largest Double
        var value = sample ?? (integer && abs(made) < 9e15 ? .int(Int(made)) : Self.numberValue(made))
        if integer, case let .double(double) = value, double == double.rounded(), abs(double) < 9e15 { value = .int(Int(double)) }
        if integer, case let .double(double) = value, double != double.rounded() {
            note(.exampleContradicts, "example", at: pointer, "the example \(Self.text(double)) is not an integer")
        }
        return Translated(value: value, rules: rules)
    }

    private mutating func array(_ fields: [String: JSONValue], at pointer: String, sample: JSONValue?, depth: Int) -> Translated {
        var rules: [String: JSONValue] = [:]
        if let minItems = count("minItems", in: fields, at: pointer), minItems > 0 {
            rules["elementsMustBeEqualOrMoreThan"] = .int(minItems)
        }
        if let maxItems = count("maxItems", in: fields, at: pointer) { rules["elementsMustBeEqualOrLessThan"] = .int(maxItems) }
        var first: JSONValue?
        if case let .array(elements)? = sample { first = elements.first }
        guard let items = fields["items"] else { return Translated(value: .array([]), rules: rules) }
        if case .array = items {
            note(.notChecked, "items", at: pointer, "an items array (a tuple) is not checked: elements are checked against nothing")
            return Translated(value: .array([]), rules: rules)
        }
        var element = translate(items, at: pointer + "/items", example: first, depth: depth + 1)
        // An element has no key, so no rules of its own; an inner array's elementsMayBeNull
        // cannot be written either, and its elements then go unchecked rather than fail on null.
        let innerNulls = element.droppingElementNullability()
        let names = element.rules.keys.sorted() + (innerNulls ? ["null elements of the inner arrays"] : [])
        if !names.isEmpty {
            note(
                .notChecked, "items", at: pointer + "/items",
                "rules of elements that are not objects cannot be written (\(names.joined(separator: ", "))): only their type is checked")
        }
        // Elements that may be null: the element's own template checks every other element.
        if element.nullable, element.value != .null { rules["elementsMayBeNull"] = .bool(true) }
        return Translated(value: .array([element.value]), rules: rules)
    }

    private mutating func object(_ fields: [String: JSONValue], at pointer: String, sample: JSONValue?, depth: Int) -> Translated {
        var result: [String: JSONValue] = [:]
        let required = Set((fields["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        let example = sample?.objectFields
        let properties = fields["properties"]?.objectFields ?? [:]
        for name in properties.keys.sorted() {
            let property = properties[name]!
            let propertyPointer = pointer + "/properties/" + JSONPointer.escape(name)
            if isWriteOnly(property) { continue }
            if name.hasSuffix("-Rules") {
                note(.notChecked, "properties", at: propertyPointer, "a key ending in -Rules would be read as rules: it is left out")
                continue
            }
            let translated = translate(property, at: propertyPointer, example: example?[name], depth: depth + 1)
            result[name] = translated.value
            // Not required: the key may be absent; nullable: its value may be null. Both
            // are written when both hold, so the template says what the schema says.
            var rules = translated.rules
            if !required.contains(name) { rules["isOptional"] = .bool(true) }
            if translated.nullable { rules["isNullable"] = .bool(true) }
            if !rules.isEmpty { result[name + "-Rules"] = .object(rules) }
        }
        switch fields["additionalProperties"] {
        case .bool(false)?:
            note(.notChecked, "additionalProperties", at: pointer, "additionalProperties: false: keys beyond the listed ones pass")
        case .object(let schema)? where !schema.isEmpty:
            note(
                .notChecked, "additionalProperties", at: pointer,
                "the values of keys beyond the listed ones (a map) are not checked")
        default:
            break
        }
        return Translated(value: .object(result))
    }

    // MARK: References and allOf

    /// The schema `reference` names; nil (and a note) when it cannot be followed or recurs.
    private mutating func follow(_ reference: String, at pointer: String) -> JSONValue? {
        if references.contains(reference) {
            note(.weakened, "$ref", at: pointer, "the recursive schema \(reference) is cut here: from here any value passes")
            return nil
        }
        switch resolver.resolve(reference) {
        case let .found(target):
            return target
        case .nowhere:
            note(.broken, "$ref", at: pointer, "$ref \(reference) points to nothing in the description")
            if broken == nil { broken = "$ref \(reference) at \(pointer) points to nothing in the description" }
            return nil
        case .external:
            note(.notChecked, "$ref", at: pointer, "$ref \(reference) points into another document, which is not read: any value passes")
            return nil
        }
    }

    /// `fields` with its `allOf` parts (references followed, nested `allOf`s flattened) merged in.
    private mutating func flattenAllOf(_ fields: [String: JSONValue], at pointer: String, pushed: inout Int, depth: Int)
        -> [String: JSONValue]
    {
        var merged = fields
        merged["allOf"] = nil
        guard case let .array(parts)? = fields["allOf"] else { return merged }
        guard depth < 16 else {
            note(.weakened, "allOf", at: pointer, "allOf nests deeper than 16 levels: the deeper parts are not checked")
            return merged
        }
        for part in parts {
            var current = part
            while case let .object(partFields) = current, let reference = partFields["$ref"]?.stringValue {
                guard let target = follow(reference, at: pointer) else {
                    current = .object([:])
                    break
                }
                references.append(reference)
                pushed += 1
                var rest = partFields
                rest["$ref"] = nil
                current = rest.isEmpty ? target : .object(["allOf": .array([target, .object(rest)])])
            }
            guard var partFields = current.objectFields else { continue }
            if partFields["allOf"] != nil { partFields = flattenAllOf(partFields, at: pointer, pushed: &pushed, depth: depth + 1) }
            merged = merge(merged, partFields, at: pointer)
        }
        return merged
    }

    /// Two schemas that must both hold, as one.
    private mutating func merge(_ left: [String: JSONValue], _ right: [String: JSONValue], at pointer: String) -> [String: JSONValue] {
        var merged = left
        for (key, value) in right {
            guard let existing = merged[key] else {
                merged[key] = value
                continue
            }
            switch key {
            case "properties":
                var properties = existing.objectFields ?? [:]
                for (name, schema) in value.objectFields ?? [:] {
                    if let other = properties[name], other != schema {
                        properties[name] = .object(["allOf": .array([other, schema])])
                    } else {
                        properties[name] = schema
                    }
                }
                merged[key] = .object(properties)
            case "required":
                var names: [JSONValue] = []
                for case let .array(list) in [existing, value] { for name in list where !names.contains(name) { names.append(name) } }
                merged[key] = .array(names)
            case "minimum", "minLength", "minItems":
                if let a = existing.numberValue, let b = value.numberValue { merged[key] = a >= b ? existing : value }
            case "maximum", "maxLength", "maxItems":
                if let a = existing.numberValue, let b = value.numberValue { merged[key] = a <= b ? existing : value }
            case "nullable":
                merged[key] = .bool(existing == .bool(true) || value == .bool(true))
            case "enum":
                if case let .array(a) = existing, case let .array(b) = value { merged[key] = .array(a.filter { b.contains($0) }) }
            case "items":
                if existing != value { merged[key] = .object(["allOf": .array([existing, value])]) }
            case "type":
                if existing != value {
                    let pair = Set([existing.stringValue ?? "", value.stringValue ?? ""])
                    if pair == ["integer", "number"] {
                        merged[key] = .string("integer")
                    } else {
                        note(.broken, "allOf", at: pointer, "the parts of allOf have different types: the first one's is used")
                    }
                }
            default:
                break  // the first part's value stands (annotations, formats, examples)
            }
        }
        return merged
    }

    // MARK: Helpers

    private func isNullSchema(_ schema: JSONValue) -> Bool {
        guard let fields = schema.objectFields else { return false }
        if fields["type"] == .string("null") || fields["type"] == .array([.string("null")]) { return true }
        return fields["const"] == .null || fields["enum"] == .array([.null])
    }

    private func isWriteOnly(_ schema: JSONValue) -> Bool {
        guard let fields = schema.objectFields else { return false }
        if fields["writeOnly"] == .bool(true) { return true }
        if let reference = fields["$ref"]?.stringValue, !references.contains(reference), case let .found(target) = resolver.resolve(reference) {
            return target.objectFields?["writeOnly"] == .bool(true)
        }
        return false
    }

    /// The types `type` names (without `null`) and whether it names `null`.
    static func types(of fields: [String: JSONValue], version: OpenAPIVersion) -> ([String], Bool) {
        switch fields["type"] {
        case let .string(type)?:
            return type == "null" ? (["null"], true) : ([type], false)
        case let .array(list)?:
            let names = list.compactMap(\.stringValue)
            let others = names.filter { $0 != "null" }
            if others.isEmpty, names.contains("null") { return (["null"], true) }
            return (others, names.contains("null"))
        default:
            return ([], false)
        }
    }

    /// The type a schema without `type` evidently has.
    static func inferredType(_ fields: [String: JSONValue]) -> String? {
        if fields["properties"] != nil || fields["required"] != nil { return "object" }
        if fields["items"] != nil || fields["minItems"] != nil || fields["maxItems"] != nil { return "array" }
        if fields["minLength"] != nil || fields["maxLength"] != nil { return "string" }
        if fields["minimum"] != nil || fields["maximum"] != nil { return "number" }
        let values: [JSONValue]
        if let constant = fields["const"] {
            values = [constant]
        } else if case let .array(list)? = fields["enum"] {
            values = list
        } else {
            return nil
        }
        for value in values {
            switch value {
            case .string: return "string"
            case .int: return "integer"
            case .double: return "number"
            case .bool: return "boolean"
            case .array: return "array"
            case .object: return "object"
            case .null: continue
            }
        }
        return nil
    }

    /// The schema's own example: `example` (3.0), else the first of `examples` (3.1).
    static func schemaExample(_ fields: [String: JSONValue]) -> JSONValue? {
        if let example = fields["example"] { return example }
        if case let .array(examples)? = fields["examples"] { return examples.first }
        return nil
    }

    /// Whether `value` is of the JSON Schema type `type`.
    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("array", .array), ("object", .object), ("null", .null): return true
        case ("number", .int), ("integer", .int): return true
        // YAML's `.inf` and `.nan` are no JSON number: written out, they would become null.
        case ("number", let .double(number)): return number.isFinite
        case ("integer", let .double(number)): return number.isFinite && number == number.rounded()
        default: return false
        }
    }

    /// A string that obeys the format and the length bounds.
    static func madeUpString(format: String?, min: Int?, max: Int?) -> String {
        var text: String
        switch format {
        case "date-time": text = "2025-01-01T00:00:00Z"
        case "date": text = "2025-01-01"
        case "time": text = "00:00:00Z"
        case "uuid": text = "00000000-0000-4000-8000-000000000000"
        case "email": text = "user@example.com"
        case "uri", "url": text = "https://example.com/"
        case "hostname": text = "example.com"
        case "ipv4": text = "192.0.2.1"
        case "ipv6": text = "2001:db8::1"
        default: text = "string"
        }
        if let min, text.count < min { text += String(repeating: "x", count: Swift.min(min, longestMadeUpString) - text.count) }
        if let max, text.count > max { text = String(text.prefix(max)) }
        return text
    }

    /// The longest string made up as a sample (for a `minLength` above it, the sample is this long).
    static let longestMadeUpString = 65_536

    /// The count `name` of `fields` (`minLength`, `maxItems`…) as an `Int`; nil when absent, and
    /// nil with a finding when it is not a count an `Int` holds (infinite, NaN, negative, not
    /// whole, or above 2^53): never a trap on `maxLength: 1e20` or YAML's `.inf`.
    private mutating func count(_ name: String, in fields: [String: JSONValue], at pointer: String) -> Int? {
        guard let field = fields[name] else { return nil }
        if case let .int(value) = field, value >= 0 { return value }
        guard let number = field.numberValue, number.isFinite, number >= 0, number == number.rounded(), number < 9_007_199_254_740_992 else {
            note(.notChecked, name, at: pointer, "\(name) \(Self.describe(field)) is not a count that fits an integer; it is not checked")
            return nil
        }
        return Int(number)
    }

    /// The numeric bound `name` of `fields` (`minimum`, `exclusiveMaximum`…); nil when absent, and
    /// nil with a finding when it is not a finite number (YAML's `.inf`, `.nan`).
    private mutating func bound(_ name: String, in fields: [String: JSONValue], at pointer: String) -> Double? {
        guard let field = fields[name], let number = field.numberValue else { return nil }
        guard number.isFinite else {
            note(.notChecked, name, at: pointer, "\(name) \(Self.text(number)) is not a finite number; it is not checked")
            return nil
        }
        return number
    }

    /// `number` as an integer value when it is one, else as a double.
    static func numberValue(_ number: Double) -> JSONValue {
        if number == number.rounded(), abs(number) < 9e15 { return .int(Int(number)) }
        return .double(number)
    }

    /// `number` written without a needless `.0`.
    static func text(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 9e15 { return String(Int(number)) }
        return String(number)
    }

    /// A short rendering of a value for messages.
    static func describe(_ value: JSONValue) -> String {
        if value.isNonFiniteNumber, let number = value.numberValue { return String(number) }
        let text = String(decoding: value.serialized(), as: UTF8.self)
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}

extension JSONValue {
    /// Whether the value is a floating-point number JSON cannot write (YAML's `.inf`, `.nan`).
    var isNonFiniteNumber: Bool {
        if case let .double(number) = self { return !number.isFinite }
        return false
    }
}
