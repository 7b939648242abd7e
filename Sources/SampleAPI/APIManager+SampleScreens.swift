import APILayer
import Foundation
import Mapper
import NetOps

/// SampleService work that takes several requests, as group operations: one `cancel()` stops
/// every request still running in them, and they run in any `OperationQueue` or by `run()`.
extension APIManager {
    /// The name the upload step carries in its `APIError`s.
    public static let photoUploadStepName = "photos.upload"

    /// Uploads a wall photo in the service's three steps: ask for an upload URL
    /// (`photos.getWallUploadServer`), post the bytes there as a multipart form, and save the
    /// upload's receipt (`photos.saveWallPhoto`). The group's result is the saved photo; a
    /// failing step makes its `APIError` the group's error.
    ///
    /// - Parameters:
    ///   - data: The picture's bytes.
    ///   - filename: The file name the upload server sees.
    ///   - progress: Called as the bytes go out (upload progress of the middle step).
    public static func uploadWallPhoto(
        _ data: Data, filename: String = "photo.jpg", progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> GroupOperation<Photo> {
        APIManager.group { context in
            let server = try await wallUploadServer()
            try context.checkCancellation()
            var form = MultipartFormData()
            form.append(data, name: "photo", filename: filename, contentType: "image/jpeg")
            let upload = UO.multipart(form, to: server.uploadURL)
            // The upload is part of the API's work: it runs on the API's session (engine).
            if let session = APIManager.defaultAPI.configuration.session { upload.privateSession = session }
            // The upload URL is the upload server's own: it takes no access token.
            upload.values[AuthenticationCoordinator.WithoutToken.self] = true
            if let progress { upload.onProgress { _, sent in progress(sent) } }
            _ = try? await context.run(upload)
            let receipt = try uploadReceipt(of: upload)
            return try await saveWallPhoto(receipt)
        }
    }

    /// The receipt the upload server answered, or the `APIError` of the upload step.
    private static func uploadReceipt(of upload: BaseOperation) throws(APIError) -> UploadReceipt {
        func fail(_ stage: APIError.Stage) -> APIError { APIError(stage, method: photoUploadStepName, operation: upload) }
        if let error = upload.error {
            if let status = error.httpStatus {
                throw fail(.server(status: status, message: String(decoding: upload.receivedData.prefix(512), as: UTF8.self)))
            }
            throw fail(.transport(error))
        }
        do {
            return try Mapper.map(UploadReceipt.self, from: upload.receivedData, configuration: APIManager.mapperConfiguration)
        } catch let error as MapperError {
            throw fail(.mapping(error))
        } catch {
            throw fail(.parsing(String(describing: error)))
        }
    }

    /// Loads what a profile screen shows — the user, their newest photos and wall posts — with
    /// the three requests in flight at once. Cancelling the group cancels all three.
    ///
    /// - Parameters:
    ///   - userID: Whose profile (the current user's when nil).
    ///   - photoCount: How many photos the screen shows.
    ///   - postCount: How many posts the screen shows.
    public static func profile(of userID: Int? = nil, photoCount: Int = 6, postCount: Int = 10) -> GroupOperation<Profile> {
        APIManager.group { _ in
            async let users = APIManager.users(userID.map { [$0] } ?? [])
            async let photos = APIManager.photos(of: userID, count: photoCount)
            async let wall = APIManager.wall(of: userID, count: postCount)
            guard let user = try await users.first else {
                throw APIError(.parsing("users.get answered no user"), method: SampleAPI.usersGet.rawValue)
            }
            return Profile(user: user, photos: try await photos, wall: try await wall)
        }
    }
}
