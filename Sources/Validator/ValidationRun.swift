/// One walk of a response against a compiled template, collecting errors.
///
/// The walk keeps no path while it runs: an error is recorded with an empty path, and each
/// level appends its key or index to the errors its child added as the recursion unwinds. A
/// valid response therefore costs no path bookkeeping at all; pointers are rendered at the end.
struct ValidationRun {
    /// An error whose path is being collected, innermost component first.
    private struct Pending {
        var reversedPath: [PathComponent] = []
        var check: ValidationError.Check
        var expected: String
        var actual: String
    }

    let mask: ValidationMask
    let failFast: Bool
    private var pending: [Pending] = []

    init(mask: ValidationMask, failFast: Bool) {
        self.mask = mask
        self.failFast = failFast
    }

    /// Whether the walk should stop (fail-fast and an error is already recorded).
    var isDone: Bool { failFast && !pending.isEmpty }

    /// The errors recorded, with their JSON Pointers.
    var errors: [ValidationError] {
        pending.map { error in
            ValidationError(
                path: PathComponent.pointer(error.reversedPath.reversed()), check: error.check,
                expected: error.expected, actual: error.actual)
        }
    }

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
        switch node.shape {
        case .array(let element?):
            guard case .array(let elements) = value else { return }
            for position in elements.indices {
                let before = pending.count
                validate(elements[position], element, topLevel: topLevel)
                if pending.count > before {
                    attach(.index(position), from: before)
                    if isDone { return }
                }
            }
        case .object(let fields):
            guard case .object(let members) = value else { return }
            let checkKeys = mask.contains(topLevel ? .keys : .subEntityKeys)
            for field in fields {
                let before = pending.count
                if let child = members[field.key] {
                    validate(child, field.node, topLevel: false)
                } else if checkKeys, !field.node.isOptional {
                    fail(.key, expected: "present", actual: "absent")
                }
                if pending.count > before {
                    attach(.key(field.key), from: before)
                    if isDone { return }
                }
            }
        default:
            break
        }
    }

    /// Runs every rule of `node` on `value` (whose type may differ from the template's).
    private mutating func applyRules(_ value: JSONValue, _ node: TemplateNode) {
        if node.rules.mustMatch, !JSONEquality.equal(value, node.sample) {
            fail(.rule(.mustMatch), expected: node.sample.excerpt, actual: value.excerpt)
            if isDone { return }
        }
        switch node.shape {
        case .number: applyNumberRules(value, node.rules)
        case .string: applyStringRules(value, node.rules)
        case .array: applyArrayRules(value, node.rules)
        case .any, .boolean, .object: break
        }
    }

    /// Prefixes `component` to the paths of the errors recorded since index `start`.
    private mutating func attach(_ component: PathComponent, from start: Int) {
        for index in start..<pending.count {
            pending[index].reversedPath.append(component)
        }
    }

    /// Records an error at the value being checked.
    mutating func fail(_ check: ValidationError.Check, expected: String, actual: String) {
        if isDone { return }
        pending.append(Pending(check: check, expected: expected, actual: actual))
    }
}
