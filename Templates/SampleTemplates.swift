import Foundation

/// The templates of the sample APIs (SampleAPI, TrackerAPI), shipped as resources of this target.
///
/// `directory` is the folder of `*.json` templates (one per API method), usable with
/// `Templater.loadTemplateFromBundle`; `archiveURL` is `APIManagerResponseDefaultTemplates.zip`,
/// built from them by `apilayer templates pack`, for `Templater.unarchiveDefaultTemplates`.
public enum SampleTemplates {
    /// The folder holding `users.get.json` and the other SampleAPI templates.
    public static var directory: URL {
        (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("SampleAPI", isDirectory: true)
    }

    /// The folder of TrackerAPI's templates, in subfolders (`issues/list-for-repo.json`).
    public static var trackerDirectory: URL {
        (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("TrackerAPI", isDirectory: true)
    }

    /// The archive of the SampleAPI templates, `APIManagerResponseDefaultTemplates.zip`.
    public static var archiveURL: URL {
        (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("APIManagerResponseDefaultTemplates.zip")
    }

    /// The API method names the templates cover, sorted.
    public static let methodNames = [
        "auth.logout", "friends.get", "photos.getAll", "photos.getWallUploadServer",
        "photos.saveWallPhoto", "users.get", "wall.get", "wall.post",
    ]
}
