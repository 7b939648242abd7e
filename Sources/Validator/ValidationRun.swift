/// One walk of a response against a compiled template, collecting errors.
///
/// The walk keeps no path while it runs: an error is recorded with an empty path, and each
/// level appends its key or index to the errors its child added as the recursion unwinds. A
/// valid response therefore costs no path bookkeeping at all; pointers are rendered at the end.
///
/// A response object is not searched key by key (each `members[key]` hashes the key with
/// SipHash): the walk goes through its members once, in the dictionary's own order, and
/// matches each member's key to the template's fields. The objects of an array, as the parser
/// builds them, usually have the same keys in the same hash-table order, so the run remembers,
/// per template object and member count (modulo 4: objects with an optional key or without it
/// alternate), the keys it met in that order and the field each matched: a key equal to the
/// remembered one (one compare, fast for the same string) needs no search.
struct ValidationRun {
    /// An error whose path is being collected, innermost component first.
    private struct Pending {
        var reversedPath: [PathComponent] = []
        var check: ValidationError.Check
        var expected: String
        var actual: String
    }

    /// The member keys of the last response object checked against one template object, in
    /// that dictionary's order, with the field each matched (-1: none).
    private struct KeyOrder {
        var keys: [String] = []
        var fields: [Int] = []
    }

    let mask: ValidationMask
    let failFast: Bool
    private var pending: [Pending] = []
    /// Per template object (by `TemplateNode.objectNumber`) and member count modulo 4, the order met last.
    private var keyOrders: [KeyOrder]
    /// For each field of the objects being walked (outermost first), the index of its member in
    /// the response object, `nil` when absent.
    private let found = ScratchStack<Dictionary<String, JSONValue>.Index?>()

    init(mask: ValidationMask, failFast: Bool, objectCount: Int) {
        self.mask = mask
        self.failFast = failFast
        keyOrders = Array(repeating: KeyOrder(), count: objectCount * 4)
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
            let start = found.count
            defer { found.drop(from: start) }
            findMembers(of: members, fields, node.objectNumber)
            for position in fields.indices {
                let before = pending.count
                if let member = found.pointer(at: start + position).pointee {
                    validate(members.values[member], fields[position].node, topLevel: false)
                } else if checkKeys, !fields[position].node.isOptional {
                    fail(.key, expected: "present", actual: "absent")
                }
                if pending.count > before {
                    attach(.key(fields[position].key), from: before)
                    if isDone { return }
                }
            }
        default:
            break
        }
    }

    /// Pushes onto `found`, for each of `fields`, the index of its member in `members` (or `nil`).
    private mutating func findMembers(of members: [String: JSONValue], _ fields: [TemplateField], _ objectNumber: Int) {
        let start = found.count
        for _ in fields { found.push(nil) }
        // A response object with far more members than the template has fields: a lookup per
        // field costs less than a walk through every member.
        guard members.count <= 2 * fields.count + 8 else {
            for (position, field) in fields.enumerated() {
                found.pointer(at: start + position).pointee = members.index(forKey: field.key)
            }
            return
        }
        // Taken out while it is updated, so that the update happens in place.
        let slot = objectNumber * 4 + members.count & 3
        var order = keyOrders[slot]
        keyOrders[slot] = KeyOrder()
        var ordinal = 0
        var member = members.startIndex
        while member != members.endIndex {
            let key = members.keys[member]
            var field: Int
            if ordinal < order.keys.count, order.keys[ordinal] == key {
                field = order.fields[ordinal]
            } else {
                field = fields.firstIndex { $0.key == key } ?? -1
                if ordinal < order.keys.count {
                    order.keys[ordinal] = key
                    order.fields[ordinal] = field
                } else {
                    order.keys.append(key)
                    order.fields.append(field)
                }
            }
            if field >= 0 { found.pointer(at: start + field).pointee = member }
            members.formIndex(after: &member)
            ordinal += 1
        }
        keyOrders[slot] = order
    }

    /// Runs every rule of `node` on `value` (whose type may differ from the template's).
    private mutating func applyRules(_ value: JSONValue, _ node: TemplateNode) {
        if node.rules.mustMatch, !JSONEquality.equal(value, node.sample) {
            fail(.rule(.mustMatch), expected: node.sample.excerpt, actual: value.excerpt)
            if isDone { return }
        }
        // The rules are read in place from the node: a copy of the whole `RuleSet` per value
        // cost more than the checks.
        switch node.expectedType {
        case .number: applyNumberRules(value, node)
        case .string: applyStringRules(value, node)
        case .array: applyArrayRules(value, node)
        case .null, .boolean, .object, nil: break
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
