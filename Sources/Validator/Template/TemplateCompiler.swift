import JSONCore

/// Turns a template's JSON into `TemplateNode`s, collecting every template error on the way.
struct TemplateCompiler {
    /// The suffix that marks a key as the rules of its sibling.
    static let rulesSuffix = "-Rules"

    private(set) var errors: [TemplateError] = []
    private var path: [PathComponent] = []

    /// Compiles `value`, whose rules (from its parent's `-Rules` key) are `rules`.
    mutating func compile(_ value: JSONValue, rules: RuleSet = RuleSet()) -> TemplateNode {
        switch value {
        case .null:
            return TemplateNode(shape: .any, sample: value, rules: rules)
        case .bool:
            return TemplateNode(shape: .boolean, sample: value, rules: rules)
        case .int, .double:
            return TemplateNode(shape: .number, sample: value, rules: rules)
        case .string:
            return TemplateNode(shape: .string, sample: value, rules: rules)
        case .array(let elements):
            var element: TemplateNode?
            var sample: [JSONValue] = []
            sample.reserveCapacity(elements.count)
            // Every element is compiled so that a mistake in any of them is reported; the
            // first one is the sample for the response's elements, and accepts `null` when
            // the array's rules say `elementsMayBeNull`.
            var elementRules = RuleSet()
            elementRules.isNullable = rules.elementsMayBeNull
            for (position, child) in elements.enumerated() {
                path.append(.index(position))
                let node = compile(child, rules: position == 0 ? elementRules : RuleSet())
                path.removeLast()
                if position == 0 { element = node }
                sample.append(node.sample)
            }
            return TemplateNode(shape: .array(element: element), sample: .array(sample), rules: rules)
        case .object(let members):
            var fields: [TemplateField] = []
            var sample: [String: JSONValue] = [:]
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for key in keys {
                guard let child = members[key] else { continue }
                if Self.isRulesKey(key) {
                    let target = String(key.dropLast(Self.rulesSuffix.count))
                    if members[target] == nil || Self.isRulesKey(target) {
                        report(.orphanRules, at: path + [.key(key)], "rules key \"\(key)\" has no key \"\(target)\" beside it")
                    }
                    continue
                }
                var ruleSet = RuleSet()
                let rulesKey = key + Self.rulesSuffix
                if let rulesValue = members[rulesKey] {
                    ruleSet = compileRules(rulesValue, for: child, at: path + [.key(rulesKey)])
                }
                path.append(.key(key))
                let node = compile(child, rules: ruleSet)
                path.removeLast()
                fields.append(TemplateField(key: key, node: node))
                sample[key] = node.sample
            }
            return TemplateNode(shape: .object(fields: fields), sample: .object(sample), rules: rules)
        }
    }

    /// Whether `key` names the rules of a sibling key.
    static func isRulesKey(_ key: String) -> Bool {
        key.utf8.count >= rulesSuffix.utf8.count && key.utf8.suffix(rulesSuffix.utf8.count).elementsEqual(rulesSuffix.utf8)
    }

    // MARK: - Rules

    /// Checks and types the rules dictionary at `rulesPath`, which applies to `value`.
    private mutating func compileRules(_ rulesValue: JSONValue, for value: JSONValue, at rulesPath: [PathComponent]) -> RuleSet {
        guard case .object(let entries) = rulesValue else {
            report(.rulesNotAnObject, at: rulesPath, "rules must be an object, got \(rulesValue.typedDescription)")
            return RuleSet()
        }
        let type = value.type
        var set = RuleSet()
        for name in entries.keys.sorted() {
            guard let ruleValue = entries[name] else { continue }
            let rulePath = rulesPath + [.key(name)]
            guard let rule = Rule(rawValue: name) else {
                report(.unknownRule, at: rulePath, "unknown rule \"\(name)\"")
                continue
            }
            guard rule.appliesTo(type) else {
                report(.inapplicableRule, at: rulePath, "rule \(rule) applies to \(rule.appliesToDescription), not to a \(type) value")
                continue
            }
            switch rule {
            case .isOptional:
                if let flag = boolean(ruleValue, rule, rulePath) { set.isOptional = flag }
            case .isNullable:
                if let flag = boolean(ruleValue, rule, rulePath) { set.isNullable = flag }
            case .elementsMayBeNull:
                if let flag = boolean(ruleValue, rule, rulePath) { set.elementsMayBeNull = flag }
            case .mustMatch:
                if let flag = boolean(ruleValue, rule, rulePath) { set.mustMatch = flag }
            case .equalInLength:
                if let flag = boolean(ruleValue, rule, rulePath), flag, case .string(let text) = value {
                    set.exactLength = text.count
                }
            case .minimum:
                set.minimum = number(ruleValue, rule, rulePath)
            case .maximum:
                set.maximum = number(ruleValue, rule, rulePath)
            case .lengthMustBeEqualOrGreaterThan:
                set.minLength = count(ruleValue, rule, rulePath)
            case .lengthMustBeEqualOrLessThan:
                set.maxLength = count(ruleValue, rule, rulePath)
            case .elementsMustBeEqualOrMoreThan:
                set.minElements = count(ruleValue, rule, rulePath)
            case .elementsMustBeEqualOrLessThan:
                set.maxElements = count(ruleValue, rule, rulePath)
            case .hasSuffix:
                if case .string(let suffix) = ruleValue {
                    set.suffix = suffix
                } else {
                    invalid(rule, rulePath, expects: "a string", got: ruleValue)
                }
            case .matchWithOneOf:
                set.oneOf = strings(ruleValue, rule, rulePath)
            }
        }
        checkContradictions(set, at: rulesPath)
        return set
    }

    private mutating func checkContradictions(_ set: RuleSet, at rulesPath: [PathComponent]) {
        if let minimum = set.minimum, let maximum = set.maximum, NumberRules.compare(minimum, maximum) == 1 {
            report(.contradictoryRules, at: rulesPath, "minimum \(minimum.jsonText) is greater than maximum \(maximum.jsonText)")
        }
        if let low = set.minLength, let high = set.maxLength, low > high {
            report(
                .contradictoryRules, at: rulesPath,
                "\(Rule.lengthMustBeEqualOrGreaterThan) \(low) is greater than \(Rule.lengthMustBeEqualOrLessThan) \(high)")
        }
        if let exact = set.exactLength {
            if let low = set.minLength, exact < low {
                report(
                    .contradictoryRules, at: rulesPath,
                    "\(Rule.equalInLength) demands length \(exact), below \(Rule.lengthMustBeEqualOrGreaterThan) \(low)")
            }
            if let high = set.maxLength, exact > high {
                report(
                    .contradictoryRules, at: rulesPath,
                    "\(Rule.equalInLength) demands length \(exact), above \(Rule.lengthMustBeEqualOrLessThan) \(high)")
            }
        }
        if let low = set.minElements, let high = set.maxElements, low > high {
            report(
                .contradictoryRules, at: rulesPath,
                "\(Rule.elementsMustBeEqualOrMoreThan) \(low) is greater than \(Rule.elementsMustBeEqualOrLessThan) \(high)")
        }
    }

    private mutating func boolean(_ value: JSONValue, _ rule: Rule, _ path: [PathComponent]) -> Bool? {
        if case .bool(let flag) = value { return flag }
        invalid(rule, path, expects: "true or false", got: value)
        return nil
    }

    private mutating func number(_ value: JSONValue, _ rule: Rule, _ path: [PathComponent]) -> JSONValue? {
        switch value {
        case .int: return value
        case .double(let number) where number.isFinite: return value
        default:
            invalid(rule, path, expects: "a number", got: value)
            return nil
        }
    }

    private mutating func count(_ value: JSONValue, _ rule: Rule, _ path: [PathComponent]) -> Int? {
        if case .int(let number) = value, number >= 0 { return number }
        invalid(rule, path, expects: "a non-negative integer", got: value)
        return nil
    }

    private mutating func strings(_ value: JSONValue, _ rule: Rule, _ path: [PathComponent]) -> [String]? {
        if case .array(let elements) = value, !elements.isEmpty {
            var result: [String] = []
            for element in elements {
                guard case .string(let text) = element else {
                    invalid(rule, path, expects: "a non-empty array of strings", got: value)
                    return nil
                }
                result.append(text)
            }
            return result
        }
        invalid(rule, path, expects: "a non-empty array of strings", got: value)
        return nil
    }

    private mutating func invalid(_ rule: Rule, _ path: [PathComponent], expects: String, got value: JSONValue) {
        report(.invalidRuleValue, at: path, "rule \(rule) expects \(expects), got \(value.typedDescription)")
    }

    private mutating func report(_ kind: TemplateError.Kind, at path: [PathComponent], _ message: String) {
        errors.append(TemplateError(path: PathComponent.pointer(path), message: message, kind: kind))
    }
}
