import JSONCore

/// A compiled template flattened for validation: its nodes and object fields in two buffers,
/// referring to each other by index.
///
/// A walk over `TemplateNode`s retains and releases a node, or the array of an object's
/// fields, for every response value it visits (atomic operations, half of the validation's
/// cycles before this plan); a walk over the plan reads trivial indices and fields in place.
/// The plan is built once per `Template` and never changes, so sharing it between threads is safe.
final class ValidationPlan: @unchecked Sendable {
    /// What a response value must be at one place of the template.
    struct Node {
        /// The JSON type demanded, or `nil` for a `null` template value (anything matches).
        var expectedType: JSONType?
        /// Whether the key may be absent.
        var isOptional: Bool
        /// Whether the value may be `null` (then nothing else is checked).
        var acceptsNull: Bool
        /// Whether the value has rules beyond `isOptional`, `isNullable` and `elementsMayBeNull`.
        var hasValueRules: Bool
        /// For an array, the node of its elements (-1: none, only the type is checked).
        var element = -1
        /// For an object, where its fields start in `fields`, and how many it has (-1: not an object).
        var fieldStart = 0
        var fieldCount = -1
        /// For an object, where the key orders of its response objects start in a
        /// `ValidationScratch` (`ValidationScratch.slotsPerObject` slots of `keyOrderCapacity` entries).
        var keyOrderStart = 0
        var keyOrderCapacity = 0
        /// For an object, its number among the template's objects.
        var objectNumber = -1
        var rules: RuleSet
        /// The template value without its `-Rules` keys, compared by `mustMatch`.
        var sample: JSONValue
    }

    /// A key of a template object and the node of its value.
    struct Field {
        var key: String
        var node: Int
    }

    /// The nodes; the root is node 0.
    let nodes: UnsafeMutablePointer<Node>
    let fields: UnsafeMutablePointer<Field>
    private let nodeCount: Int
    /// How many fields all the template's objects have together.
    let fieldCount: Int
    /// How many entries a `ValidationScratch` for this plan holds.
    let keyOrderEntries: Int
    /// Where each key-order slot starts among those entries, by `objectNumber * slotsPerObject + slot`.
    let keyOrderSlotStarts: [Int]

    init(root: TemplateNode) {
        var nodes: [Node] = []
        var fields: [Field] = []
        var objects = 0
        var entries = 0
        var slotStarts: [Int] = []
        // Nodes are numbered in pre-order; an object's fields are contiguous, filled in when
        // the object is flattened, so the fields of nested objects follow them.
        func flatten(_ template: TemplateNode) -> Int {
            let id = nodes.count
            nodes.append(
                Node(
                    expectedType: template.expectedType, isOptional: template.isOptional, acceptsNull: template.acceptsNull,
                    hasValueRules: template.hasValueRules,
                    rules: template.rules, sample: template.sample))
            switch template.shape {
            case .array(let element?):
                let elementID = flatten(element)
                nodes[id].element = elementID
            case .object(let templateFields):
                let start = fields.count
                let capacity = 2 * templateFields.count + 8
                nodes[id].fieldStart = start
                nodes[id].fieldCount = templateFields.count
                nodes[id].objectNumber = objects
                nodes[id].keyOrderStart = entries
                nodes[id].keyOrderCapacity = capacity
                objects += 1
                for slot in 0..<ValidationScratch.slotsPerObject { slotStarts.append(entries + slot * capacity) }
                entries += capacity * ValidationScratch.slotsPerObject
                for field in templateFields { fields.append(Field(key: field.key, node: -1)) }
                for (offset, field) in templateFields.enumerated() {
                    let child = flatten(field.node)
                    fields[start + offset].node = child
                }
            default:
                break
            }
            return id
        }
        _ = flatten(root)
        nodeCount = nodes.count
        fieldCount = fields.count
        keyOrderEntries = entries
        keyOrderSlotStarts = slotStarts
        self.nodes = .allocate(capacity: nodes.count)
        self.nodes.initialize(from: nodes, count: nodes.count)
        self.fields = .allocate(capacity: max(1, fields.count))
        self.fields.initialize(from: fields, count: fields.count)
    }

    deinit {
        nodes.deinitialize(count: nodeCount)
        nodes.deallocate()
        fields.deinitialize(count: fieldCount)
        fields.deallocate()
    }
}
