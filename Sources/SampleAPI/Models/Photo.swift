import Foundation

/// A photo (`photos.getAll`, `photos.saveWallPhoto`).
public struct Photo: Codable, Sendable, Equatable, Identifiable {
    /// The photo's id among its owner's photos.
    public var id: Int
    /// Its album (negative ids are built-in albums: -7 profile, -14 wall).
    public var albumID: Int
    /// Its owner.
    public var ownerID: Int
    /// When it was added.
    public var date: Date
    /// Its caption.
    public var text: String
    /// The same picture at several sizes.
    public var sizes: [Size]

    enum CodingKeys: String, CodingKey {
        case id, date, text, sizes
        case albumID = "albumId"
        case ownerID = "ownerId"
    }

    /// One size of a photo.
    public struct Size: Codable, Sendable, Equatable {
        /// The size's letter: `m` (130 px), `x` (604 px).
        public var type: String
        /// Where its bytes are.
        public var url: URL
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
    }

    /// The widest size.
    public var largest: Size? { sizes.max { $0.width < $1.width } }

    /// How a post refers to this photo in `wall.post`'s `attachments`: `photo{owner}_{id}`.
    public var attachmentID: String { "photo\(ownerID)_\(id)" }
}
