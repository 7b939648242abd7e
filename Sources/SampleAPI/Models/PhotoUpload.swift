import Foundation

/// Where to send a wall photo (`photos.getWallUploadServer`).
public struct UploadServer: Codable, Sendable, Equatable {
    /// The URL the photo is posted to, as a multipart form with a `photo` file part.
    public var uploadURL: URL
    /// The album the photo will be in.
    public var albumID: Int
    /// The user it is uploaded for.
    public var userID: Int

    enum CodingKeys: String, CodingKey {
        case uploadURL = "uploadUrl"
        case albumID = "albumId"
        case userID = "userId"
    }
}

/// What the upload URL answers, handed unchanged to `photos.saveWallPhoto`.
public struct UploadReceipt: Codable, Sendable, Equatable {
    /// The upload server's number.
    public var server: Int
    /// The uploaded photo, as the server describes it (opaque to the client).
    public var photo: String
    /// The server's signature of `photo`.
    public var hash: String
}
