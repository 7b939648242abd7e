/// What a profile screen shows: the user, the first page of their photos and of their wall.
public struct Profile: Sendable {
    /// The user.
    public var user: User
    /// Their newest photos, and how many they have.
    public var photos: Page<Photo>
    /// Their newest posts, and how many there are.
    public var wall: Page<WallPost>
}
