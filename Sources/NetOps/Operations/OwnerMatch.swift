/// Which operations belong to an owner, even while that owner is in its `deinit`.
///
/// An operation holds its owner weakly, and Swift clears weak references as soon as an object's
/// `deinit` begins: from there, `operation.owner` is nil, so comparing owners (`===`) finds
/// nothing — yet `deinit` is where an owner cancels its operations. So an operation also keeps
/// the owner's `ObjectIdentifier` (its address), taken when the owner was set.
///
/// Addresses are reused: once an object is freed, a new one may be allocated at the same place
/// and get the same identifier. Matching by identifier alone would let that newcomer cancel
/// operations of the dead object it replaced. The rule that prevents it:
/// - while the object passed in is alive, only operations whose weak owner *is* that object
///   match (identity; the identifier plays no part);
/// - only while the object is deinitializing do the identifiers count, and then only for
///   operations whose weak owner is nil.
///
/// "Deinitializing" is told by forming a weak reference to the object: Swift refuses new weak
/// references to an object whose `deinit` has begun, so the probe reads nil exactly then (a
/// live object's probe reads the object). What the rule still admits: during the `deinit` of an
/// owner at a reused address, operations of an earlier owner at that address which died without
/// cancelling them and are still running. Those are orphans, working for an object that no
/// longer exists; cancelling them is what their owner should have done.
struct OwnerMatch {
    private let identifier: ObjectIdentifier
    private let isDeinitializing: Bool

    /// The owner to match; call it with the owner alive or inside its `deinit`.
    init(_ owner: AnyObject) {
        identifier = ObjectIdentifier(owner)
        weak let probe = owner
        isDeinitializing = probe == nil
    }

    /// Whether an operation whose weak owner reads `current`, and whose owner had `recorded`
    /// as its identifier, belongs to this owner.
    func matches(_ current: AnyObject?, identifier recorded: ObjectIdentifier?) -> Bool {
        // A live owner is compared by identity: two live objects never share an address.
        if let current { return ObjectIdentifier(current) == identifier }
        return isDeinitializing && recorded == identifier
    }
}
