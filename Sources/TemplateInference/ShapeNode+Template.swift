import JSONCore

/// A place written out: its template value, and the rules its key's `-Rules` object gets.
struct RenderedPlace {
    var value: JSONValue
    /// The rules for the key that holds this value (none for the root or an array element).
    var rules: [String: JSONValue] = [:]
}

/// Writes a merged shape as a template with rules, and the findings on the way.
struct TemplateRenderer {
    let options: InferenceOptions
    private(set) var findings: [InferenceFinding] = []
    private var path: [String] = []

    init(options: InferenceOptions) {
        self.options = options
    }

    /// The pointer of the place being written, array elements as `*`.
    private var pointer: String {
        path.map { "/" + $0 }.joined()
    }

    private mutating func note(_ kind: InferenceFinding.Kind, _ message: String) {
        findings.append(InferenceFinding(kind: kind, pointer: pointer, message: message))
    }

    /// The root's template. The root has no key, so what would be its rules is reported.
    mutating func renderRoot(_ node: ShapeNode) -> JSONValue {
        let rendered = render(node)
        if node.nulls > 0, rendered.value != .null {
            note(.notSayable, "the top-level value was null in \(node.nulls) samples: the root has no key to carry isNullable")
        }
        if rendered.rules["elementsMayBeNull"] != nil {
            note(.notSayable, "the top-level array had null elements: the root has no key to carry elementsMayBeNull")
            return .array([.null])
        }
        return rendered.value
    }

    /// The template value of `node` and the rules its key gets.
    mutating func render(_ node: ShapeNode) -> RenderedPlace {
        let types = node.typesSeen
        if node.droppedKeys {
            note(.sizeLimit, "the shape held \(options.maximumPlaces) places: keys seen after that are not checked here")
        }
        guard let only = types.first else { return RenderedPlace(value: .null) }
        guard types.count == 1 else {
            let seen = types.map { "\($0.type) in \($0.count) value\($0.count == 1 ? "" : "s")" }.joined(separator: ", ")
            note(.mixedTypes, "\(seen): any value passes here (the template holds null)")
            return RenderedPlace(value: .null)
        }
        switch only.type {
        case .boolean:
            return RenderedPlace(value: node.sample ?? .bool(false))
        case .number:
            var place = RenderedPlace(value: node.sample ?? .int(0))
            if node.negativeNumbers == 0, node.numbers >= options.ruleMinimumSamples { place.rules["minimum"] = .int(0) }
            return place
        case .string:
            return renderString(node)
        case .array:
            return renderArray(node)
        case .object:
            return renderObject(node)
        case .null:
            return RenderedPlace(value: .null)
        }
    }

    private func renderString(_ node: ShapeNode) -> RenderedPlace {
        var place = RenderedPlace(value: node.sample ?? .string("x"))
        if node.emptyStrings == 0, node.strings >= options.ruleMinimumSamples {
            place.rules["lengthMustBeEqualOrGreaterThan"] = .int(1)
        }
        if let distinct = node.distinctStrings, !distinct.isEmpty, !node.isSecret, !options.anonymize,
            distinct.count <= options.oneOfMaximumValues, node.strings >= options.oneOfMinimumSamples,
            distinct.count < node.strings
        {
            let sorted = distinct.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            place.rules["matchWithOneOf"] = .array(sorted.map(JSONValue.string))
        }
        return place
    }

    private mutating func renderArray(_ node: ShapeNode) -> RenderedPlace {
        var place = RenderedPlace(value: .array([]))
        if node.isTooDeep {
            note(.tooDeep, "nested deeper than \(options.maximumDepth) levels: any value passes here")
            return RenderedPlace(value: .null)
        }
        if let element = node.element.first {
            path.append("*")
            // An element has no key: only its value (and, for objects, its keys' rules) is written.
            let rendered = render(element)
            path.removeLast()
            place.value = .array([rendered.value])
            if node.nullElements > 0, rendered.value != .null { place.rules["elementsMayBeNull"] = .bool(true) }
        } else if node.nullElements > 0 {
            place.value = .array([.null])
        }
        return place
    }

    private mutating func renderObject(_ node: ShapeNode) -> RenderedPlace {
        if node.isTooDeep {
            note(.tooDeep, "nested deeper than \(options.maximumDepth) levels: any value passes here")
            return RenderedPlace(value: .null)
        }
        if node.isMap {
            note(
                .mapLike,
                "objects here had more than \(options.maximumKeysPerObject) distinct keys: a map keyed by data, written as {} (its values are not checked)"
            )
            return RenderedPlace(value: .object([:]))
        }
        var members: [String: JSONValue] = [:]
        let sorted = node.fields.entries.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        for (key, field) in sorted {
            path.append(JSONPointer.escape(key))
            defer { path.removeLast() }
            if key.hasSuffix("-Rules") {
                note(.rulesKey, "a key ending in -Rules would be read as the rules of another key: left out")
                continue
            }
            let rendered = render(field.node)
            var rules = rendered.rules
            let alwaysPresent = field.present == node.objects && node.objects >= options.requiredAfter
            if !alwaysPresent { rules["isOptional"] = .bool(true) }
            if field.node.nulls > 0, rendered.value != .null { rules["isNullable"] = .bool(true) }
            members[key] = rendered.value
            if !rules.isEmpty { members[key + "-Rules"] = .object(rules) }
        }
        return RenderedPlace(value: .object(members))
    }
}
