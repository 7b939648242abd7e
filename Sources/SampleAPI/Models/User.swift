import Foundation

/// A user of SampleService (`users.get`, and the items of `friends.get`).
public struct User: Codable, Sendable, Equatable, Identifiable {
    /// The user's id.
    public var id: Int
    /// First name; empty for a deleted account.
    public var firstName: String
    /// Last name; empty for a deleted account.
    public var lastName: String
    /// `deleted` or `banned` for an account that is no longer active.
    public var deactivated: String?
    /// A 100-pixel photo, when asked for with the `photo_100` field.
    public var photo100: URL?
    /// The user's city, when asked for with the `city` field and known.
    public var city: City?
    /// 1 when the user is online.
    public var online: Int

    /// Whether the user is online.
    public var isOnline: Bool { online == 1 }

    /// "First Last".
    public var fullName: String { "\(firstName) \(lastName)" }
}

/// A city, as part of a user.
public struct City: Codable, Sendable, Equatable, Identifiable {
    /// The city's id.
    public var id: Int
    /// Its name.
    public var title: String
}
