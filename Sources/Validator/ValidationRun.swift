/// One walk of a response against a compiled template, collecting errors.
///
/// The path is kept as a stack of components and rendered only when an error is reported, so a
/// valid response costs no string building.
struct ValidationRun {
    let mask: ValidationMask
    let failFast: Bool
    private(set) var errors: [ValidationError] = []
    private var path: [PathComponent] = []

    init(mask: ValidationMask, failFast: Bool) {
        self.mask = mask
        self.failFast = failFast
    }

    /// Whether the walk should stop (fail-fast and an error is already recorded).
    var isDone: Bool { failFast && !errors.isEmpty }

    /// Checks `value` against `node`; `topLevel` is true until the walk enters an object's key.
    mutating func validate(_ value: JSONValue, _ node: TemplateNode, topLevel: Bool) {
        if node.isOptional, case .null = value { return }
        let checkRules = node.hasValueRules && mask.contains(.extendedRules)
        if let expected = node.expectedType, value.type != expected {
            if mask.contains(.valueTypes) {
                fail(.type, expected: expected.description, actual: value.typedDescription)
            } else if checkRules {
                // Without type checks the rules still run: a type-specific rule fails on a value
                // of another type.
                applyRules(value, node)
            }
            return
        }
        if checkRules {
            applyRules(value, node)
            if isDone { return }
        }
        switch (node.shape, value) {
        case (.array(let element?), .array(let elements)):
            for (position, child) in elements.enumerated() {
                path.append(.index(position))
                validate(child, element, topLevel: topLevel)
                path.removeLast()
                if isDone { return }
            }
        case (.object(let fields), .object(let members)):
            let checkKeys = mask.contains(topLevel ? .keys : .subEntityKeys)
            for field in fields {
                path.append(.key(field.key))
                if let child = members[field.key] {
                    validate(child, field.node, topLevel: false)
                } else if checkKeys, !field.node.isOptional {
                    fail(.key, expected: "present", actual: "absent")
                }
                path.removeLast()
                if isDone { return }
            }
        default:
            break
        }
    }

    /// Runs every rule of `node` on `value` (whose type may differ from the template's).
    private mutating func applyRules(_ value: JSONValue, _ node: TemplateNode) {
        let rules = node.rules
        if rules.mustMatch, !JSONEquality.equal(value, node.sample) {
            fail(.rule(.mustMatch), expected: node.sample.excerpt, actual: value.excerpt)
            if isDone { return }
        }
        switch node.shape {
        case .number: applyNumberRules(value, rules)
        case .string: applyStringRules(value, rules)
        case .array: applyArrayRules(value, rules)
        case .any, .boolean, .object: break
        }
    }

    /// Records an error at the current path.
    mutating func fail(_ check: ValidationError.Check, expected: String, actual: String) {
        if isDone { return }
        errors.append(ValidationError(path: PathComponent.pointer(path), check: check, expected: expected, actual: actual))
    }
}
