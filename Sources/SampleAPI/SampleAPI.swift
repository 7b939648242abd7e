import APILayer
import NetOps
import Validator

/// The methods of SampleService, a small social-network API (DemoServer serves it): the recipe
/// of `Docs/recipe.md` applied.
///
/// Each case's raw value is the method's endpoint (joined to `APIManager.baseURL`, e.g.
/// `http://host/api/demo/method/` + `users.get`) and the name of its template in
/// `Templates/SampleAPI/`. Every per-case part is a `switch` without `default`, so a new case
/// does not compile until each part is written for it.
///
/// Use the typed methods of `APIManager` (`APIManager.users(_:)`, `APIManager.wall(of:)`, …)
/// rather than the cases themselves.
public enum SampleAPI: String, APIMethod, CaseIterable {
    /// Users by id, with optional fields (`photo_100`, `city`, `online`).
    case usersGet = "users.get"
    /// A page of a user's friends.
    case friendsGet = "friends.get"
    /// A page of the posts on a user's wall, newest first.
    case wallGet = "wall.get"
    /// Publishes a post (text and photo attachments) on the current user's wall.
    case wallPost = "wall.post"
    /// A page of a user's photos, newest first.
    case photosGetAll = "photos.getAll"
    /// An upload URL for a wall photo.
    case photosGetWallUploadServer = "photos.getWallUploadServer"
    /// Turns an upload's receipt into a photo.
    case photosSaveWallPhoto = "photos.saveWallPhoto"
    /// Ends the access token.
    case authLogout = "auth.logout"

    /// Reads are GET, changes are POST.
    public var httpMethod: HTTPMethod {
        switch self {
        case .usersGet, .friendsGet, .wallGet, .photosGetAll, .photosGetWallUploadServer: return .get
        case .wallPost, .photosSaveWallPhoto, .authLogout: return .post
        }
    }

    /// Reads send their parameters in the query, changes as a form.
    public var encoding: RequestEncoding {
        switch self {
        case .usersGet, .friendsGet, .wallGet, .photosGetAll, .photosGetWallUploadServer: return .query
        case .wallPost, .photosSaveWallPhoto, .authLogout: return .form
        }
    }

    /// The API version on every call; `users.get` always asks for `online` (a caller's
    /// `fields` are added to it), lists ask for pages of 20.
    public var defaultParameters: Parameters {
        let version: Parameters = ["v": SampleAPI.version]
        switch self {
        case .usersGet: return version.merging(["fields": ["online"]]) { $1 }
        case .friendsGet: return version.merging(["count": 100]) { $1 }
        case .wallGet, .photosGetAll: return version.merging(["count": 20]) { $1 }
        case .wallPost, .photosGetWallUploadServer, .photosSaveWallPhoto, .authLogout: return version
        }
    }

    /// The service takes its token as the `access_token` parameter, on every method.
    public var tokenPlacement: TokenPlacement? {
        switch self {
        case .usersGet, .friendsGet, .wallGet, .wallPost, .photosGetAll, .photosGetWallUploadServer,
            .photosSaveWallPhoto, .authLogout:
            return .queryParameter("access_token")
        }
    }

    /// Every method is checked against its template, with every rule.
    public var validation: ValidationPolicy {
        switch self {
        case .usersGet, .friendsGet, .wallGet, .wallPost, .photosGetAll, .photosGetWallUploadServer,
            .photosSaveWallPhoto, .authLogout:
            return .automatic(.all)
        }
    }

    /// The service reports its errors in the body, with status 200: `{"error":{...}}`.
    public var bodyError: (@Sendable (JSONValue) -> String?)? {
        { json in SampleServiceError(json: json)?.description }
    }

    /// The API version this client speaks.
    public static let version = "5.131"
}
