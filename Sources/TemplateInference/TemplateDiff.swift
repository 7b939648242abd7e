import JSONCore

/// Compares two templates of a method (or two folders of templates) place by place, and classes
/// each change as breaking or compatible (see `TemplateChange`).
///
/// ```swift
/// let changes = TemplateDiff.changes(from: shipped, to: inferred, method: "users.get")
/// if changes.contains(where: \.isBreaking) { … }
/// ```
///
/// | change | class |
/// |---|---|
/// | a required key removed | breaking: a client reads it |
/// | an optional key removed | compatible: a client already copes without it |
/// | a key added as required | breaking: a response without it passed the old template and fails the new |
/// | a key added as optional | compatible |
/// | a type changed (`null`, any value, included) | breaking |
/// | a key became optional or required, nullable or not; elements may now or no longer be `null` | breaking |
/// | a rule added or tightened (`minimum` raised, `matchWithOneOf` with fewer values, …) | breaking |
/// | a rule removed or loosened | compatible, except `matchWithOneOf` (a value a client's enum does not know) |
///
/// Both templates should be valid (`Validator.checkTemplate`); a rule of the wrong type counts
/// as absent.
public enum TemplateDiff {
    /// The changes from `old` to `new`, templates of `method`, in the walk's order (keys sorted).
    public static func changes(from old: JSONValue, to new: JSONValue, method: String) -> [TemplateChange] {
        var walker = DiffWalker(method: method)
        walker.compare(old, [:], new, [:], keyed: false)
        return walker.changes
    }
}

/// Walks two templates side by side.
private struct DiffWalker {
    let method: String
    var changes: [TemplateChange] = []
    private var path: [String] = []

    init(method: String) {
        self.method = method
    }

    private var pointer: String { path.map { "/" + $0 }.joined() }

    private mutating func add(_ kind: TemplateChange.Kind, breaking: Bool, old: String?, new: String?, _ detail: String) {
        changes.append(
            TemplateChange(method: method, pointer: pointer, kind: kind, isBreaking: breaking, old: old, new: new, detail: detail))
    }

    /// Compares one place: `old` with the rules of its key, against `new` with its key's rules.
    /// `keyed` is false for the root and array elements, which have no key.
    mutating func compare(_ old: JSONValue, _ oldRules: [String: JSONValue], _ new: JSONValue, _ newRules: [String: JSONValue], keyed: Bool) {
        if keyed { comparePresence(old, oldRules, new, newRules) }
        guard Self.typeName(old) == Self.typeName(new) else {
            add(
                .typeChanged, breaking: true, old: Self.typeName(old), new: Self.typeName(new),
                "type changed from \(Self.typeName(old)) to \(Self.typeName(new))")
            return
        }
        compareRule("mustMatch", oldRules, newRules, old, new)
        switch (old, new) {
        case (.int, _), (.double, _):
            compareBound("minimum", oldRules, newRules, tighterWhenGreater: true)
            compareBound("maximum", oldRules, newRules, tighterWhenGreater: false)
        case let (.string(oldText), .string(newText)):
            compareBound("lengthMustBeEqualOrGreaterThan", oldRules, newRules, tighterWhenGreater: true)
            compareBound("lengthMustBeEqualOrLessThan", oldRules, newRules, tighterWhenGreater: false)
            compareExactLength(oldRules, oldText, newRules, newText)
            compareSuffix(oldRules, newRules)
            compareOneOf(oldRules, newRules)
        case let (.array(oldElements), .array(newElements)):
            compareBound("elementsMustBeEqualOrMoreThan", oldRules, newRules, tighterWhenGreater: true)
            compareBound("elementsMustBeEqualOrLessThan", oldRules, newRules, tighterWhenGreater: false)
            path.append("*")
            compareElementNulls(oldRules, newRules)
            // An empty template array accepts any element: it is compared as `null`.
            compare(oldElements.first ?? .null, [:], newElements.first ?? .null, [:], keyed: false)
            path.removeLast()
        case let (.object(oldMembers), .object(newMembers)):
            compareMembers(oldMembers, newMembers)
        default:
            break
        }
    }

    private mutating func compareMembers(_ old: [String: JSONValue], _ new: [String: JSONValue]) {
        let keys = Set(old.keys).union(new.keys).filter { !$0.hasSuffix("-Rules") }
        for key in keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let oldRules = old[key + "-Rules"]?.rulesObject ?? [:]
            let newRules = new[key + "-Rules"]?.rulesObject ?? [:]
            path.append(JSONPointer.escape(key))
            defer { path.removeLast() }
            switch (old[key], new[key]) {
            case let (oldValue?, newValue?):
                compare(oldValue, oldRules, newValue, newRules, keyed: true)
            case (_?, nil):
                let required = !oldRules.flag("isOptional")
                add(
                    .keyRemoved, breaking: required, old: required ? "required" : "optional", new: nil,
                    "key removed (it was \(required ? "required" : "optional"))")
            case (nil, let newValue?):
                let required = !newRules.flag("isOptional")
                add(
                    .keyAdded, breaking: required, old: nil, new: "\(required ? "required" : "optional") \(Self.typeName(newValue))",
                    required
                        ? "key added, required: a response without it passed the old template and fails the new"
                        : "key added, optional")
            case (nil, nil):
                break
            }
        }
    }

    /// `isOptional` and `isNullable` of a keyed place.
    private mutating func comparePresence(
        _ old: JSONValue, _ oldRules: [String: JSONValue], _ new: JSONValue, _ newRules: [String: JSONValue]
    ) {
        let (oldOptional, newOptional) = (oldRules.flag("isOptional"), newRules.flag("isOptional"))
        if oldOptional != newOptional {
            add(
                .optionalChanged, breaking: true, old: oldOptional ? "optional" : "required", new: newOptional ? "optional" : "required",
                newOptional ? "may now be absent (it was required)" : "is now required (it was optional)")
            return
        }
        guard !oldOptional, old != .null, new != .null else { return }
        let (oldNullable, newNullable) = (oldRules.flag("isNullable"), newRules.flag("isNullable"))
        if oldNullable != newNullable {
            add(
                .nullableChanged, breaking: true, old: oldNullable ? "nullable" : "not nullable", new: newNullable ? "nullable" : "not nullable",
                newNullable ? "may now be null" : "may no longer be null")
        }
    }

    /// `elementsMayBeNull` of an array, reported at its elements (`/…/*`).
    private mutating func compareElementNulls(_ oldRules: [String: JSONValue], _ newRules: [String: JSONValue]) {
        let (old, new) = (oldRules.flag("elementsMayBeNull"), newRules.flag("elementsMayBeNull"))
        guard old != new else { return }
        add(
            .nullableChanged, breaking: true, old: old ? "elements may be null" : "elements not null",
            new: new ? "elements may be null" : "elements not null",
            new ? "elements may now be null (elementsMayBeNull)" : "elements may no longer be null")
    }

    /// A numeric bound: raised (`tighterWhenGreater`) or added is tighter, removed or eased looser.
    private mutating func compareBound(
        _ rule: String, _ oldRules: [String: JSONValue], _ newRules: [String: JSONValue], tighterWhenGreater: Bool
    ) {
        let (old, new) = (oldRules[rule]?.numberValue, newRules[rule]?.numberValue)
        guard old != new else { return }
        let oldText = oldRules[rule].map { "\(rule) \($0.jsonText)" }
        let newText = newRules[rule].map { "\(rule) \($0.jsonText)" }
        if let old, let new {
            let tighter = (new > old) == tighterWhenGreater
            reportRule(tighter, old: oldText, new: newText, "\(rule) \(tighter ? "tightened" : "loosened") from \(oldText!) to \(newText!)")
        } else if new != nil {
            reportRule(true, old: nil, new: newText, "rule added: \(newText!)")
        } else {
            reportRule(false, old: oldText, new: nil, "rule removed: \(oldText!)")
        }
    }

    private mutating func compareExactLength(_ oldRules: [String: JSONValue], _ oldText: String, _ newRules: [String: JSONValue], _ newText: String) {
        let old = oldRules.flag("equalInLength") ? oldText.count : nil
        let new = newRules.flag("equalInLength") ? newText.count : nil
        guard old != new else { return }
        let describe = { (length: Int?) in length.map { "equalInLength (\($0) characters)" } }
        if old == nil {
            reportRule(true, old: nil, new: describe(new), "rule added: \(describe(new)!)")
        } else if new == nil {
            reportRule(false, old: describe(old), new: nil, "rule removed: \(describe(old)!)")
        } else {
            reportRule(true, old: describe(old), new: describe(new), "equalInLength changed from \(old!) to \(new!) characters")
        }
    }

    private mutating func compareSuffix(_ oldRules: [String: JSONValue], _ newRules: [String: JSONValue]) {
        let (old, new) = (oldRules["hasSuffix"]?.stringValue, newRules["hasSuffix"]?.stringValue)
        guard old != new else { return }
        let describe = { (suffix: String?) in suffix.map { "hasSuffix \(JSONValue.string($0).jsonText)" } }
        if let old, let new {
            // A longer suffix ending in the old one accepts fewer values; any other change is
            // another rule, which a value valid under the old one may break.
            let looser = old.hasSuffix(new)
            reportRule(!looser, old: describe(old), new: describe(new), "hasSuffix changed from \(describe(old)!) to \(describe(new)!)")
        } else if new != nil {
            reportRule(true, old: nil, new: describe(new), "rule added: \(describe(new)!)")
        } else {
            reportRule(false, old: describe(old), new: nil, "rule removed: \(describe(old)!)")
        }
    }

    private mutating func compareOneOf(_ oldRules: [String: JSONValue], _ newRules: [String: JSONValue]) {
        let old = oldRules["matchWithOneOf"]?.stringSet
        let new = newRules["matchWithOneOf"]?.stringSet
        guard old != new else { return }
        let describe = { (values: Set<String>?) in
            values.map { "one of " + $0.sorted().map { JSONValue.string($0).jsonText }.joined(separator: ", ") }
        }
        switch (old, new) {
        case let (old?, new?) where new.isSubset(of: old):
            reportRule(true, old: describe(old), new: describe(new), "matchWithOneOf tightened: \(old.subtracting(new).count) value(s) fewer")
        case let (old?, new?) where new.isSuperset(of: old):
            let added = new.subtracting(old).sorted().map { JSONValue.string($0).jsonText }.joined(separator: ", ")
            add(
                .ruleLoosened, breaking: true, old: describe(old), new: describe(new),
                "matchWithOneOf loosened: \(added) added (a client's enum may not know it)")
        case let (old?, new?):
            reportRule(true, old: describe(old), new: describe(new), "matchWithOneOf changed: \(describe(old)!) → \(describe(new)!)")
        case (nil, _):
            reportRule(true, old: nil, new: describe(new), "rule added: matchWithOneOf (\(describe(new)!))")
        case (_, nil):
            add(.ruleLoosened, breaking: true, old: describe(old), new: nil, "rule removed: matchWithOneOf (any string may now come)")
        }
    }

    /// `mustMatch`: added is tighter, removed looser, a changed value to match is another rule.
    private mutating func compareRule(
        _ rule: String, _ oldRules: [String: JSONValue], _ newRules: [String: JSONValue], _ old: JSONValue, _ new: JSONValue
    ) {
        let (oldOn, newOn) = (oldRules.flag(rule), newRules.flag(rule))
        if oldOn, newOn, Self.stripped(old) != Self.stripped(new) {
            reportRule(true, old: "mustMatch", new: "mustMatch", "mustMatch: the value to match changed")
        } else if oldOn != newOn {
            reportRule(
                newOn, old: oldOn ? "mustMatch" : nil, new: newOn ? "mustMatch" : nil, newOn ? "rule added: mustMatch" : "rule removed: mustMatch")
        }
    }

    private mutating func reportRule(_ tighter: Bool, old: String?, new: String?, _ detail: String) {
        add(tighter ? .ruleTightened : .ruleLoosened, breaking: tighter, old: old, new: new, detail)
    }

    /// The type a template value demands, in words: `null` accepts any value.
    static func typeName(_ value: JSONValue) -> String {
        value.type == .null ? "any value" : value.type.rawValue
    }

    /// A value without its `-Rules` keys, for `mustMatch` comparisons.
    static func stripped(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .object(members):
            var kept: [String: JSONValue] = [:]
            for (key, member) in members where !key.hasSuffix("-Rules") { kept[key] = stripped(member) }
            return .object(kept)
        case let .array(elements):
            return .array(elements.map(stripped))
        default:
            return value
        }
    }
}

extension JSONValue {
    /// The members of a `-Rules` object (empty for anything else).
    fileprivate var rulesObject: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }

    fileprivate var numberValue: Double? {
        switch self {
        case let .int(number): return Double(number)
        case let .double(number): return number
        default: return nil
        }
    }

    fileprivate var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    fileprivate var stringSet: Set<String>? {
        guard case let .array(elements) = self else { return nil }
        return Set(elements.compactMap(\.stringValue))
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// Whether the rule `name` is `true`.
    fileprivate func flag(_ name: String) -> Bool {
        self[name] == .bool(true)
    }
}
