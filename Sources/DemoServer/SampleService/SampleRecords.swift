import Foundation

/// The records SampleService answers with, shaped like the JSON a social-network API returns
/// (snake_case keys; optional fields left out when absent).
enum SampleRecords {
    /// A successful answer: `{"response": …}`.
    struct Envelope<Value: Encodable>: Encodable {
        var response: Value
    }

    /// A user of the service.
    struct User: Encodable, Sendable {
        var id: Int
        var firstName: String
        var lastName: String
        var deactivated: String?
        var photo100: String?
        var city: City?
        var online: Int

        enum CodingKeys: String, CodingKey {
            case id, deactivated, city, online
            case firstName = "first_name"
            case lastName = "last_name"
            case photo100 = "photo_100"
        }
    }

    /// A user as the next version of the API answers it (`SampleService.AnswerVersion.next`):
    /// `online` is a boolean.
    struct NextUser: Encodable, Sendable {
        var user: User

        enum CodingKeys: String, CodingKey {
            case id, deactivated, city, online
            case firstName = "first_name"
            case lastName = "last_name"
            case photo100 = "photo_100"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(user.id, forKey: .id)
            try container.encode(user.firstName, forKey: .firstName)
            try container.encode(user.lastName, forKey: .lastName)
            try container.encodeIfPresent(user.deactivated, forKey: .deactivated)
            try container.encodeIfPresent(user.photo100, forKey: .photo100)
            try container.encodeIfPresent(user.city, forKey: .city)
            try container.encode(user.online == 1, forKey: .online)
        }
    }

    /// A user's city.
    struct City: Encodable, Sendable {
        var id: Int
        var title: String
    }

    /// One size of a photo.
    struct PhotoSize: Encodable, Sendable {
        var type: String
        var url: String
        var width: Int
        var height: Int
    }

    /// A photo in an album (negative album ids are the service's built-in albums).
    struct Photo: Encodable, Sendable {
        var id: Int
        var albumID: Int
        var ownerID: Int
        var date: Int
        var text: String
        var sizes: [PhotoSize]

        enum CodingKeys: String, CodingKey {
            case id, date, text, sizes
            case albumID = "album_id"
            case ownerID = "owner_id"
        }
    }

    /// What a wall post carries: a photo, by owner and id.
    struct Attachment: Encodable, Sendable {
        struct PhotoReference: Encodable, Sendable {
            var id: Int
            var ownerID: Int

            enum CodingKeys: String, CodingKey {
                case id
                case ownerID = "owner_id"
            }
        }

        var type = "photo"
        var photo: PhotoReference
    }

    /// A post's likes.
    struct Likes: Encodable, Sendable {
        var count: Int
    }

    /// A post on a user's wall.
    struct Post: Encodable, Sendable {
        var id: Int
        var ownerID: Int
        var fromID: Int
        var date: Int
        var text: String
        var postType = "post"
        var attachments: [Attachment]?
        var likes: Likes

        enum CodingKeys: String, CodingKey {
            case id, date, text, attachments, likes
            case ownerID = "owner_id"
            case fromID = "from_id"
            case postType = "post_type"
        }
    }

    /// One page of a list: the total and the items of the page.
    struct Page<Item: Encodable & Sendable>: Encodable, Sendable {
        var count: Int
        var items: [Item]
    }

    /// Where to upload a wall photo.
    struct UploadServer: Encodable, Sendable {
        var uploadURL: String
        var albumID: Int
        var userID: Int

        enum CodingKeys: String, CodingKey {
            case uploadURL = "upload_url"
            case albumID = "album_id"
            case userID = "user_id"
        }
    }

    /// The upload server's receipt, handed back to `photos.saveWallPhoto`.
    struct UploadReceipt: Encodable, Sendable {
        var server: Int
        var photo: String
        var hash: String
    }

    /// The answer of `wall.post`.
    struct PostCreated: Encodable, Sendable {
        var postID: Int

        enum CodingKeys: String, CodingKey {
            case postID = "post_id"
        }
    }
}
