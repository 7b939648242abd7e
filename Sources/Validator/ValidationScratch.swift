import JSONCore

/// The scratch space of one validation run, allocated once per run and read and written in
/// place (no reference counting for the space itself).
///
/// Its key-order cache is what the run learnt about the response objects it met, per template
/// object and member count modulo `slotsPerObject`: the keys in the order of the last response
/// object, each with the template field it matched (-1: none).
final class ValidationScratch {
    /// Key-order slots per template object: objects with an optional key and without it alternate.
    static let slotsPerObject = 4

    /// The remembered keys, by entry (see `ValidationPlan.Node.keyOrderStart`); only the first
    /// `counts[slot]` entries of each slot are initialized, so a run pays for the slots it uses,
    /// not for the size of the template.
    let keys: UnsafeMutablePointer<String>
    /// The field each remembered key matched.
    let fields: UnsafeMutablePointer<Int>
    /// How many entries of each slot are filled, by `objectNumber * slotsPerObject + slot`.
    let counts: UnsafeMutablePointer<Int>
    /// For each field of the objects being walked (outermost first), the index of its member in
    /// the response object, `nil` when absent. A walk is as deep as the template at most, so
    /// the plan's field count bounds it.
    let found: UnsafeMutablePointer<Dictionary<String, JSONValue>.Index?>
    private let plan: ValidationPlan

    init(plan: ValidationPlan) {
        self.plan = plan
        let slotCount = plan.keyOrderSlotStarts.count
        // Trivial or uninitialized until used, except the counts.
        keys = .allocate(capacity: max(1, plan.keyOrderEntries))
        fields = .allocate(capacity: max(1, plan.keyOrderEntries))
        counts = .allocate(capacity: max(1, slotCount))
        counts.initialize(repeating: 0, count: slotCount)
        found = .allocate(capacity: max(1, plan.fieldCount))
    }

    deinit {
        for (slot, start) in plan.keyOrderSlotStarts.enumerated() {
            (keys + start).deinitialize(count: counts[slot])
        }
        keys.deallocate()
        fields.deallocate()
        counts.deallocate()
        found.deallocate()
    }
}
