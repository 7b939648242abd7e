import JSONCore

/// One walk of a response against a compiled template, collecting errors.
///
/// The walk keeps no path while it runs: an error is recorded with an empty path, and each
/// level appends its key or index to the errors its child added as the recursion unwinds. A
/// valid response therefore costs no path bookkeeping at all; pointers are rendered at the end.
///
/// The template is read from its `ValidationPlan` in place (nodes and fields by index), so
/// visiting a response value retains no template node; the only reference counting left is
/// the copy of each value taken out of its array or object.
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

    let mask: ValidationMask
    let failFast: Bool
    /// The most errors recorded; later ones are only counted in `omitted`.
    let limit: Int
    /// How many errors were found beyond `limit`.
    private(set) var omitted = 0
    private var pending: [Pending] = []
    private let plan: ValidationPlan
    private let scratch: ValidationScratch
    /// How many entries of `scratch.found` the objects being walked use.
    private var foundCount = 0

    init(mask: ValidationMask, failFast: Bool, limit: Int = .max, plan: ValidationPlan) {
        self.mask = mask
        self.failFast = failFast
        self.limit = max(limit, 1)
        self.plan = plan
        scratch = ValidationScratch(plan: plan)
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

    /// Checks `value` against the plan's node `id`; `topLevel` is true until the walk enters an object's key.
    mutating func validate(_ value: JSONValue, _ id: Int, topLevel: Bool) {
        let node = UnsafePointer(plan.nodes + id)
        if node.pointee.acceptsNull, case .null = value { return }
        let checkRules = node.pointee.hasValueRules && mask.contains(.extendedRules)
        if let expected = node.pointee.expectedType, value.type != expected {
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
        if node.pointee.element >= 0 {
            guard case .array(let elements) = value else { return }
            let element = node.pointee.element
            for position in elements.indices {
                let before = pending.count
                validate(elements[position], element, topLevel: topLevel)
                if pending.count > before {
                    attach(.index(position), from: before)
                    if isDone { return }
                }
            }
        } else if node.pointee.fieldCount >= 0 {
            guard case .object(let members) = value else { return }
            let checkKeys = mask.contains(topLevel ? .keys : .subEntityKeys)
            let start = foundCount
            let fieldCount = node.pointee.fieldCount
            foundCount += fieldCount
            defer { foundCount = start }
            findMembers(of: members, node, scratch.found + start)
            let fields = UnsafePointer(plan.fields + node.pointee.fieldStart)
            for position in 0..<fieldCount {
                let before = pending.count
                let field = fields + position
                if let member = scratch.found[start + position] {
                    validate(members.values[member], field.pointee.node, topLevel: false)
                } else if checkKeys, !plan.nodes[field.pointee.node].isOptional {
                    // An `isNullable` key is missing like any other: only `isOptional` allows absence.
                    fail(.key, expected: "present", actual: "absent")
                }
                if pending.count > before {
                    attach(.key(field.pointee.key), from: before)
                    if isDone { return }
                }
            }
        }
    }

    /// Sets `found[0..<fieldCount]` to the index in `members` of each field of the object `node` (or `nil`).
    private func findMembers(
        of members: [String: JSONValue], _ node: UnsafePointer<ValidationPlan.Node>,
        _ found: UnsafeMutablePointer<Dictionary<String, JSONValue>.Index?>
    ) {
        let fieldCount = node.pointee.fieldCount
        let fields = UnsafePointer(plan.fields + node.pointee.fieldStart)
        found.initialize(repeating: nil, count: fieldCount)
        // A response object with far more members than the template has fields: a lookup per
        // field costs less than a walk through every member.
        guard members.count <= node.pointee.keyOrderCapacity else {
            for position in 0..<fieldCount {
                found[position] = members.index(forKey: fields[position].key)
            }
            return
        }
        let slot = members.count % ValidationScratch.slotsPerObject
        let entry = node.pointee.keyOrderStart + slot * node.pointee.keyOrderCapacity
        let keys = scratch.keys + entry
        let matched = scratch.fields + entry
        let known = scratch.counts + (node.pointee.objectNumber * ValidationScratch.slotsPerObject + slot)
        var ordinal = 0
        var member = members.startIndex
        let end = members.endIndex
        while member != end {
            let key = members.keys[member]
            var field: Int
            if ordinal < known.pointee, keys[ordinal] == key {
                field = matched[ordinal]
            } else {
                field = -1
                for position in 0..<fieldCount where fields[position].key == key {
                    field = position
                    break
                }
                // Entries below `known` are initialized; ordinals come one by one, so a new one is `known`.
                if ordinal < known.pointee {
                    keys[ordinal] = key
                } else {
                    (keys + ordinal).initialize(to: key)
                    known.pointee = ordinal + 1
                }
                matched[ordinal] = field
            }
            if field >= 0 { found[field] = member }
            members.formIndex(after: &member)
            ordinal += 1
        }
    }

    /// Runs every rule of `node` on `value` (whose type may differ from the template's).
    private mutating func applyRules(_ value: JSONValue, _ node: UnsafePointer<ValidationPlan.Node>) {
        if node.pointee.rules.mustMatch, !JSONEquality.equal(value, node.pointee.sample) {
            fail(.rule(.mustMatch), expected: node.pointee.sample.excerpt, actual: value.excerpt)
            if isDone { return }
        }
        // The rules are read in place from the node: a copy of the whole `RuleSet` per value
        // cost more than the checks.
        switch node.pointee.expectedType {
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

    /// Records an error at the value being checked; beyond `limit`, only counts it (a hostile
    /// body of a million wrong elements costs a counter, not a million errors and paths).
    mutating func fail(_ check: ValidationError.Check, expected: String, actual: String) {
        if isDone { return }
        guard pending.count < limit else {
            omitted += 1
            return
        }
        pending.append(Pending(check: check, expected: expected, actual: actual))
    }
}
