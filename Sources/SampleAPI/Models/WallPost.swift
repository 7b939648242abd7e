import Foundation

/// A post on a user's wall (`wall.get`).
public struct WallPost: Codable, Sendable, Equatable, Identifiable {
    /// The post's id on its wall.
    public var id: Int
    /// Whose wall it is on.
    public var ownerID: Int
    /// Who wrote it.
    public var fromID: Int
    /// When it was published.
    public var date: Date
    /// Its text (may be empty when it has attachments).
    public var text: String
    /// `post`, `copy`, `reply`, `postpone` or `suggest`.
    public var postType: String
    /// What it carries.
    public var attachments: [Attachment]?
    /// Its likes.
    public var likes: Likes

    enum CodingKeys: String, CodingKey {
        case id, date, text, postType, attachments, likes
        case ownerID = "ownerId"
        case fromID = "fromId"
    }

    /// Something a post carries: a photo, by owner and id.
    public struct Attachment: Codable, Sendable, Equatable {
        /// `photo`.
        public var type: String
        /// The photo, for `photo` attachments.
        public var photo: PhotoReference?
    }

    /// A photo named by owner and id.
    public struct PhotoReference: Codable, Sendable, Equatable {
        /// The photo's id.
        public var id: Int
        /// Its owner.
        public var ownerID: Int

        enum CodingKeys: String, CodingKey {
            case id
            case ownerID = "ownerId"
        }
    }

    /// A post's likes.
    public struct Likes: Codable, Sendable, Equatable {
        /// How many.
        public var count: Int
    }
}

/// The answer of `wall.post`: the new post's id.
public struct PostCreated: Codable, Sendable, Equatable {
    /// The id of the published post.
    public var postID: Int

    enum CodingKeys: String, CodingKey {
        case postID = "postId"
    }
}
