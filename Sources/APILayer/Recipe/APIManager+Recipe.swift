import Foundation
import Mapper
import NetOps
import Templater

extension APIManager {
    /// The default API's base URL; `nil` (the default) fails every call at construction.
    public static var baseURL: URL? {
        get { defaultAPI.configuration.baseURL }
        set { defaultAPI.configure { $0.baseURL = newValue } }
    }

    /// `endpoint` joined to the default API's base URL with exactly one `/` between them (the
    /// reference's `baseURLappend:`); `nil` without a base URL. See `RequestConstructor.join(_:_:)`.
    ///
    /// ```swift
    /// APIManager.baseURL = URL(string: "https://api.example.com/method/")
    /// APIManager.url(appending: "/users.get")   // https://api.example.com/method/users.get
    /// ```
    public static func url(appending endpoint: String) -> URL? {
        defaultAPI.url(appending: endpoint)
    }

    /// Where the default API's templates are read from. Default: `Templater.shared`.
    public static var templates: TemplateStore {
        get { defaultAPI.configuration.templates }
        set { defaultAPI.configure { $0.templates = newValue } }
    }

    /// Whether the default API's calls answer from templates instead of the network. Default: `.off`.
    public static var stubMode: StubMode {
        get { defaultAPI.configuration.stubMode }
        set { defaultAPI.configure { $0.stubMode = newValue } }
    }

    /// How the default API's models are decoded (key and date strategies).
    public static var mapperConfiguration: Mapper.Configuration {
        get { defaultAPI.configuration.mapperConfiguration }
        set { defaultAPI.configure { $0.mapperConfiguration = newValue } }
    }

    /// The session of operations that have no other: `NetworkSession.shared`. An API's own
    /// session is its configuration's `session`.
    @available(*, deprecated, renamed: "NetworkSession.shared", message: "give the API its session: APIScope.Configuration.session")
    public static var defaultSession: NetworkSession { NetworkSession.shared }

    /// The queue completion-style calls run their operations in (concurrent).
    public static let asyncQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "APIManager.asyncQueue"
        return queue
    }()

    /// A queue that runs one operation at a time, for calls that must not overlap.
    public static let syncQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "APIManager.syncQueue"
        queue.maxConcurrentOperationCount = 1
        return queue
    }()

    /// Sets up the default API before the first call.
    ///
    /// - Parameters:
    ///   - baseURL: The service's base URL.
    ///   - templates: Where the methods' templates are (default: `Templater.shared`).
    ///   - session: The session the API's operations run in (default: keep the API's current one).
    ///   - stubMode: Whether calls answer from templates (default: `.off`).
    public static func prepareBeforeUsing(
        baseURL: URL, templates: TemplateStore = Templater.shared, session: NetworkSession? = nil, stubMode: StubMode = .off
    ) {
        defaultAPI.configure {
            $0.baseURL = baseURL
            $0.templates = templates
            $0.stubMode = stubMode
            if let session { $0.session = session }
        }
    }

    /// Prepares the default API as `prepareBeforeUsing(baseURL:templates:session:stubMode:)`
    /// does, after unpacking the service's shipped template archive into `templates`: the first
    /// start (or the first after the archive changed) unpacks it, every later one finds its
    /// SHA-256 recorded and writes nothing. Templates the service wrote itself are kept unless
    /// the archive holds the same names. Call it at every start-up.
    ///
    /// - Returns: What unpacking did (`.unpacked` or `.alreadyUpToDate`).
    /// - Throws: `TemplaterError` when the archive is unreadable or refused; the API is then
    ///   left as it was.
    @discardableResult
    public static func prepareBeforeUsing(
        baseURL: URL, templates: TemplateStore = Templater.shared, unpacking archive: URL,
        session: NetworkSession? = nil, stubMode: StubMode = .off
    ) throws(TemplaterError) -> UnarchiveReport {
        let report = try templates.unarchiveDefaultTemplates(from: archive)
        prepareBeforeUsing(baseURL: baseURL, templates: templates, session: session, stubMode: stubMode)
        return report
    }
}
