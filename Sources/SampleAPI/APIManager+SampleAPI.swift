import APILayer
import Foundation
import NetOps

/// SampleService's methods as typed operations (step 5 of the recipe): one function per method,
/// written once. Each returns the unstarted `APIOperation` of the call — queue it, `start()` or
/// `syncStart()` it, give it an owner, nest it in a group — with the whole pipeline inside:
/// request built by `RequestConstructor`, sent with the access token, checked for
/// `SampleServiceError`, validated against the method's template, mapped into the model.
///
/// ```swift
/// let operation = SampleAPI.users([1, 2])
/// operation.owner = screen
/// APIManager.asyncQueue.addOperation(operation)
/// ```
extension SampleAPI {
    /// Users by id (the current user when `ids` is empty), with `fields` (`photo_100`, `city`)
    /// besides `online`.
    public static func users(_ ids: [Int] = [], fields: [String] = ["photo_100", "city"]) -> APIOperation<[User]> {
        var properties: Parameters = ["fields": fields]
        if !ids.isEmpty { properties["user_ids"] = ids.map(String.init).joined(separator: ",") }
        return APIManager.operation(SampleAPI.usersGet, properties: properties, as: [User].self, at: "response")
    }

    /// A page of `userID`'s friends (the current user's when nil).
    public static func friends(of userID: Int? = nil, offset: Int = 0, count: Int = 100) -> APIOperation<Page<User>> {
        APIManager.operation(
            SampleAPI.friendsGet, properties: pageProperties("user_id", userID, offset, count),
            as: Page<User>.self, at: "response")
    }

    /// A page of the posts on `ownerID`'s wall (the current user's when nil), newest first.
    public static func wall(of ownerID: Int? = nil, offset: Int = 0, count: Int = 20) -> APIOperation<Page<WallPost>> {
        APIManager.operation(
            SampleAPI.wallGet, properties: pageProperties("owner_id", ownerID, offset, count),
            as: Page<WallPost>.self, at: "response")
    }

    /// Publishes `message` with `photos` attached on the current user's wall.
    public static func postOnWall(_ message: String, photos: [Photo] = []) -> APIOperation<PostCreated> {
        var properties: Parameters = ["message": message]
        if !photos.isEmpty { properties["attachments"] = photos.map(\.attachmentID).joined(separator: ",") }
        return APIManager.operation(SampleAPI.wallPost, properties: properties, as: PostCreated.self, at: "response")
    }

    /// A page of `ownerID`'s photos (the current user's when nil), newest first.
    public static func photos(of ownerID: Int? = nil, offset: Int = 0, count: Int = 20) -> APIOperation<Page<Photo>> {
        APIManager.operation(
            SampleAPI.photosGetAll, properties: pageProperties("owner_id", ownerID, offset, count),
            as: Page<Photo>.self, at: "response")
    }

    /// Where to upload a wall photo.
    public static func wallUploadServer() -> APIOperation<UploadServer> {
        APIManager.operation(SampleAPI.photosGetWallUploadServer, as: UploadServer.self, at: "response")
    }

    /// Turns an upload's receipt into a photo in the current user's wall album (the first and
    /// only element of the answer; the template allows exactly one).
    public static func saveWallPhoto(_ receipt: UploadReceipt) -> APIOperation<Photo> {
        APIManager.operation(
            SampleAPI.photosSaveWallPhoto,
            properties: ["server": receipt.server, "photo": receipt.photo, "hash": receipt.hash],
            as: Photo.self, parser: { json in try Parser.value(at: "response.0", in: json) })
    }

    /// Ends the access token at the service (`APIManager.logout()` also forgets it here).
    public static func logout() -> APIOperation<Int> {
        APIManager.operation(SampleAPI.authLogout, as: Int.self, at: "response")
    }

    private static func pageProperties(_ key: String, _ id: Int?, _ offset: Int, _ count: Int) -> Parameters {
        var properties: Parameters = ["offset": offset, "count": count]
        if let id { properties[key] = id }
        return properties
    }
}

/// SampleService's methods on `APIManager` that return the model: each runs the operation of
/// the same name on `SampleAPI`.
extension APIManager {
    /// Users by id (the current user when `ids` is empty): `SampleAPI.users(_:fields:)`, run.
    public static func users(_ ids: [Int] = [], fields: [String] = ["photo_100", "city"]) async throws(APIError) -> [User] {
        try await SampleAPI.users(ids, fields: fields).run()
    }

    /// A page of `userID`'s friends: `SampleAPI.friends(of:offset:count:)`, run.
    public static func friends(of userID: Int? = nil, offset: Int = 0, count: Int = 100) async throws(APIError) -> Page<User> {
        try await SampleAPI.friends(of: userID, offset: offset, count: count).run()
    }

    /// A page of the posts on `ownerID`'s wall: `SampleAPI.wall(of:offset:count:)`, run.
    public static func wall(of ownerID: Int? = nil, offset: Int = 0, count: Int = 20) async throws(APIError) -> Page<WallPost> {
        try await SampleAPI.wall(of: ownerID, offset: offset, count: count).run()
    }

    /// Publishes a post and returns its id: `SampleAPI.postOnWall(_:photos:)`, run.
    public static func postOnWall(_ message: String, photos: [Photo] = []) async throws(APIError) -> Int {
        try await SampleAPI.postOnWall(message, photos: photos).run().postID
    }

    /// A page of `ownerID`'s photos: `SampleAPI.photos(of:offset:count:)`, run.
    public static func photos(of ownerID: Int? = nil, offset: Int = 0, count: Int = 20) async throws(APIError) -> Page<Photo> {
        try await SampleAPI.photos(of: ownerID, offset: offset, count: count).run()
    }

    /// Where to upload a wall photo: `SampleAPI.wallUploadServer()`, run.
    public static func wallUploadServer() async throws(APIError) -> UploadServer {
        try await SampleAPI.wallUploadServer().run()
    }

    /// Turns an upload's receipt into a photo: `SampleAPI.saveWallPhoto(_:)`, run.
    public static func saveWallPhoto(_ receipt: UploadReceipt) async throws(APIError) -> Photo {
        try await SampleAPI.saveWallPhoto(receipt).run()
    }

    /// Ends the access token at the service and forgets it here — also when the service could
    /// not be told (offline, an error, an expired token): the local token is gone either way, and
    /// the service's failure is thrown after.
    public static func logout() async throws(APIError) {
        defer { try? removeToken() }
        _ = try await SampleAPI.logout().run()
    }
}
