import JSONCore

/// What the samples showed at one place of a response: counts per JSON type, one sample value,
/// and the evidence for each rule; for objects their keys, for arrays one merged element.
///
/// It never keeps the samples themselves: a string place keeps its first value (cut to
/// `InferenceOptions.maximumSampleLength`) and at most `oneOfMaximumValues` distinct short
/// values; a number place its first value and whether one was negative. So its size follows
/// the shape of the responses, not their number.
struct ShapeNode: Sendable {
    /// Values merged here, `null` included.
    var observations = 0
    var nulls = 0
    var booleans = 0
    var numbers = 0
    var strings = 0
    var arrays = 0
    var objects = 0
    /// The place is below a key the secret vocabulary names: only placeholders are kept.
    var isSecret = false
    /// The first non-null scalar value seen (a placeholder for a secret or anonymized string).
    var sample: JSONValue?

    var emptyStrings = 0
    /// The distinct strings seen while they are few and short; nil once they are not.
    var distinctStrings: [String]? = []
    var negativeNumbers = 0

    /// The merged element of the arrays seen here (zero or one node).
    var element: [ShapeNode] = []
    var nullElements = 0

    /// The keys of the objects seen here, with how many objects had each.
    var fields = FieldTable()
    /// The objects here had too many distinct keys: a map, its keys dropped.
    var isMap = false
    /// Values here were deeper than the depth limit and were not merged.
    var isTooDeep = false
    /// A key seen here was not kept because the shape was full.
    var droppedKeys = false

    /// A key of an object place.
    struct Field: Sendable {
        /// How many objects of the place had the key.
        var present: Int
        var node: ShapeNode
    }

    init(isSecret: Bool = false) {
        self.isSecret = isSecret
    }

    /// The JSON types seen here other than `null`, in a fixed order.
    var typesSeen: [(type: JSONType, count: Int)] {
        [(.boolean, booleans), (.number, numbers), (.string, strings), (.array, arrays), (.object, objects)].filter { $0.count > 0 }
    }

    /// Merges one value into this place.
    mutating func merge(_ value: JSONValue, depth: Int, context: inout MergeContext) {
        observations += 1
        switch value {
        case .null:
            nulls += 1
        case .bool:
            booleans += 1
            if sample == nil { sample = isSecret ? .bool(false) : value }
        case let .int(number):
            numbers += 1
            if number < 0 { negativeNumbers += 1 }
            if sample == nil { sample = isSecret ? .int(0) : value }
        case let .double(number):
            numbers += 1
            if number < 0 { negativeNumbers += 1 }
            if sample == nil { sample = isSecret ? .int(0) : value }
        case let .string(text):
            mergeString(text, options: context.options)
        case let .array(elements):
            arrays += 1
            guard depth < context.options.maximumDepth else {
                isTooDeep = true
                return
            }
            for item in elements {
                if case .null = item {
                    nullElements += 1
                    continue
                }
                if element.isEmpty {
                    guard context.claimPlace() else {
                        droppedKeys = true
                        continue
                    }
                    element.append(ShapeNode(isSecret: isSecret))
                }
                element[0].merge(item, depth: depth + 1, context: &context)
            }
        case let .object(members):
            objects += 1
            guard depth < context.options.maximumDepth else {
                isTooDeep = true
                return
            }
            guard !isMap else { return }
            mergeMembers(members, depth: depth, context: &context)
        }
    }

    /// Merges an object's members into the fields.
    private mutating func mergeMembers(_ members: [String: JSONValue], depth: Int, context: inout MergeContext) {
        for (key, child) in members {
            if let position = fields.position(of: key) {
                fields[position].present += 1
                fields[position].node.merge(child, depth: depth + 1, context: &context)
                continue
            }
            guard fields.count < context.options.maximumKeysPerObject else {
                becomeMap(context: &context)
                return
            }
            guard context.claimPlace() else {
                droppedKeys = true
                continue
            }
            var node = ShapeNode(isSecret: isSecret || context.isSecretKey(key))
            node.merge(child, depth: depth + 1, context: &context)
            fields.append(key, Field(present: 1, node: node))
        }
    }

    private mutating func mergeString(_ text: String, options: InferenceOptions) {
        strings += 1
        if text.isEmpty { emptyStrings += 1 }
        if sample == nil {
            if isSecret || options.anonymize {
                sample = .string(String(repeating: "x", count: text.count))
            } else if text.utf8.count > options.maximumSampleLength, text.count > options.maximumSampleLength {
                sample = .string(String(text.prefix(options.maximumSampleLength)))
            } else {
                sample = .string(text)
            }
        }
        // A secret's values, and every value when anonymizing, are never kept.
        guard !isSecret, !options.anonymize, var distinct = distinctStrings else {
            distinctStrings = nil
            return
        }
        if distinct.contains(text) { return }
        guard text.utf8.count <= options.oneOfMaximumLength, distinct.count < options.oneOfMaximumValues else {
            distinctStrings = nil
            return
        }
        distinctStrings = nil
        distinct.append(text)
        distinctStrings = distinct
    }

    /// Drops this place's keys: its objects are a map keyed by data.
    private mutating func becomeMap(context: inout MergeContext) {
        context.releasePlaces(fields.entries.reduce(0) { $0 + 1 + $1.1.node.placeCount })
        fields = FieldTable()
        isMap = true
    }

    /// The places below this one, this one excluded.
    var placeCount: Int {
        element.reduce(0) { $0 + 1 + $1.placeCount } + fields.entries.reduce(0) { $0 + 1 + $1.1.node.placeCount }
    }
}

/// What one merge shares across the places it visits: the options, the secret vocabulary and
/// the count of places the shape holds.
struct MergeContext {
    let options: InferenceOptions
    let isSecret: @Sendable (String) -> Bool
    /// The places the shape holds now (the root not counted).
    var places: Int
    /// What `isSecret` answered for each key asked about (a vocabulary check normalizes the
    /// name, which costs more than the rest of a key's merge); at most `maximumPlaces` names.
    var secretKeys: [String: Bool]

    /// Whether `key` names a secret, asked of `isSecret` once per name.
    mutating func isSecretKey(_ key: String) -> Bool {
        if let known = secretKeys[key] { return known }
        let secret = isSecret(key)
        if secretKeys.count < options.maximumPlaces { secretKeys[key] = secret }
        return secret
    }

    /// Counts one more place, or answers false when the shape is full.
    mutating func claimPlace() -> Bool {
        guard places < options.maximumPlaces else { return false }
        places += 1
        return true
    }

    /// Gives back `count` places that were dropped.
    mutating func releasePlaces(_ count: Int) {
        places = max(0, places - count)
    }
}
