import APILayer
import Foundation
import NetOps

/// SampleService's methods on `APIManager` (step 5 of the recipe): one typed function per method,
/// as `async throws(APIError)` and as a completion-style function that returns the operation.
///
/// Every call runs the whole pipeline: request built by `RequestConstructor`, sent with the
/// access token, checked for `SampleServiceError`, validated against the method's template,
/// mapped into the model.
extension APIManager {
    // MARK: users.get

    /// Users by id (the current user when `ids` is empty), with `fields` (`photo_100`, `city`)
    /// besides `online`.
    public static func users(_ ids: [Int] = [], fields: [String] = ["photo_100", "city"]) async throws(APIError) -> [User] {
        try await call(SampleAPI.usersGet, properties: usersProperties(ids, fields), as: [User].self, at: "response")
    }

    /// `users(_:fields:)` with a completion; returns the operation (nil when none was made).
    @discardableResult
    public static func users(
        _ ids: [Int] = [], fields: [String] = ["photo_100", "city"], queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<[User], APIError>) -> Void
    ) -> BaseOperation? {
        call(SampleAPI.usersGet, properties: usersProperties(ids, fields), as: [User].self, at: "response",
             queue: queue, completion: completion)
    }

    private static func usersProperties(_ ids: [Int], _ fields: [String]) -> Parameters {
        var properties: Parameters = ["fields": fields]
        if !ids.isEmpty { properties["user_ids"] = ids.map(String.init).joined(separator: ",") }
        return properties
    }

    // MARK: friends.get

    /// A page of `userID`'s friends (the current user's when nil).
    public static func friends(of userID: Int? = nil, offset: Int = 0, count: Int = 100) async throws(APIError) -> Page<User> {
        try await call(SampleAPI.friendsGet, properties: pageProperties("user_id", userID, offset, count),
                       as: Page<User>.self, at: "response")
    }

    /// `friends(of:offset:count:)` with a completion; returns the operation.
    @discardableResult
    public static func friends(
        of userID: Int? = nil, offset: Int = 0, count: Int = 100, queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<Page<User>, APIError>) -> Void
    ) -> BaseOperation? {
        call(SampleAPI.friendsGet, properties: pageProperties("user_id", userID, offset, count), as: Page<User>.self,
             at: "response", queue: queue, completion: completion)
    }

    // MARK: wall.get

    /// A page of the posts on `ownerID`'s wall (the current user's when nil), newest first.
    public static func wall(of ownerID: Int? = nil, offset: Int = 0, count: Int = 20) async throws(APIError) -> Page<WallPost> {
        try await call(SampleAPI.wallGet, properties: pageProperties("owner_id", ownerID, offset, count),
                       as: Page<WallPost>.self, at: "response")
    }

    /// `wall(of:offset:count:)` with a completion; returns the operation.
    @discardableResult
    public static func wall(
        of ownerID: Int? = nil, offset: Int = 0, count: Int = 20, queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<Page<WallPost>, APIError>) -> Void
    ) -> BaseOperation? {
        call(SampleAPI.wallGet, properties: pageProperties("owner_id", ownerID, offset, count), as: Page<WallPost>.self,
             at: "response", queue: queue, completion: completion)
    }

    // MARK: wall.post

    /// Publishes `message` with `photos` attached on the current user's wall; returns the post's id.
    public static func postOnWall(_ message: String, photos: [Photo] = []) async throws(APIError) -> Int {
        try await call(SampleAPI.wallPost, properties: postProperties(message, photos), as: PostCreated.self, at: "response").postID
    }

    /// `postOnWall(_:photos:)` with a completion; returns the operation.
    @discardableResult
    public static func postOnWall(
        _ message: String, photos: [Photo] = [], queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<PostCreated, APIError>) -> Void
    ) -> BaseOperation? {
        call(SampleAPI.wallPost, properties: postProperties(message, photos), as: PostCreated.self, at: "response",
             queue: queue, completion: completion)
    }

    private static func postProperties(_ message: String, _ photos: [Photo]) -> Parameters {
        var properties: Parameters = ["message": message]
        if !photos.isEmpty { properties["attachments"] = photos.map(\.attachmentID).joined(separator: ",") }
        return properties
    }

    // MARK: photos.getAll

    /// A page of `ownerID`'s photos (the current user's when nil), newest first.
    public static func photos(of ownerID: Int? = nil, offset: Int = 0, count: Int = 20) async throws(APIError) -> Page<Photo> {
        try await call(SampleAPI.photosGetAll, properties: pageProperties("owner_id", ownerID, offset, count),
                       as: Page<Photo>.self, at: "response")
    }

    /// `photos(of:offset:count:)` with a completion; returns the operation.
    @discardableResult
    public static func photos(
        of ownerID: Int? = nil, offset: Int = 0, count: Int = 20, queue: OperationQueue? = nil,
        completion: @escaping @Sendable (Result<Page<Photo>, APIError>) -> Void
    ) -> BaseOperation? {
        call(SampleAPI.photosGetAll, properties: pageProperties("owner_id", ownerID, offset, count), as: Page<Photo>.self,
             at: "response", queue: queue, completion: completion)
    }

    // MARK: photos.getWallUploadServer, photos.saveWallPhoto

    /// Where to upload a wall photo.
    public static func wallUploadServer() async throws(APIError) -> UploadServer {
        try await call(SampleAPI.photosGetWallUploadServer, as: UploadServer.self, at: "response")
    }

    /// Turns an upload's receipt into a photo in the current user's wall album.
    public static func saveWallPhoto(_ receipt: UploadReceipt) async throws(APIError) -> Photo {
        let saved = try await call(SampleAPI.photosSaveWallPhoto,
                                   properties: ["server": receipt.server, "photo": receipt.photo, "hash": receipt.hash],
                                   as: [Photo].self, at: "response")
        // The template allows exactly one element, so validation has checked this already.
        guard let photo = saved.first else {
            throw APIError(.parsing("photos.saveWallPhoto answered no photo"), method: SampleAPI.photosSaveWallPhoto.rawValue)
        }
        return photo
    }

    // MARK: auth.logout

    /// Ends the access token at the service and forgets it here.
    public static func logout() async throws(APIError) {
        _ = try await call(SampleAPI.authLogout, as: Int.self, at: "response")
        try? removeToken()
    }

    // MARK: Parameters

    private static func pageProperties(_ key: String, _ id: Int?, _ offset: Int, _ count: Int) -> Parameters {
        var properties: Parameters = ["offset": offset, "count": count]
        if let id { properties[key] = id }
        return properties
    }
}
