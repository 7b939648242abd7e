/// One page of a long list (`friends.get`, `wall.get`, `photos.getAll`): the list's total and the
/// items from the `offset` asked for.
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    /// How many items the whole list has.
    public var count: Int
    /// The items of this page.
    public var items: [Item]
}

extension Page: Equatable where Item: Equatable {}
