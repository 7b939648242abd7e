import Foundation
import Mapper
import NetOps
import Templater

/// Whether calls go to the network or answer from templates.
public enum StubMode: Sendable, Equatable {
    /// Calls go to the network.
    case off
    /// Calls answer at once from their method's template, without touching the network.
    case immediate
    /// Calls answer from their method's template after this many seconds.
    case delayed(TimeInterval)
}

extension APIManager {
    /// The URL every method's endpoint is joined to; `nil` (the default) fails every call at
    /// construction.
    public static var baseURL: URL? {
        get { current.withLock { $0.baseURL } }
        set { current.withLock { $0.baseURL = newValue } }
    }

    /// Where methods' templates are read from. Default: `Templater.shared`.
    public static var templates: TemplateStore {
        get { current.withLock { $0.templates } }
        set { current.withLock { $0.templates = newValue } }
    }

    /// Whether calls answer from templates instead of the network. Default: `.off`.
    public static var stubMode: StubMode {
        get { current.withLock { $0.stubMode } }
        set { current.withLock { $0.stubMode = newValue } }
    }

    /// How models are decoded (key and date strategies).
    public static var mapperConfiguration: Mapper.Configuration {
        get { current.withLock { $0.mapperConfiguration } }
        set { current.withLock { $0.mapperConfiguration = newValue } }
    }

    /// The session operations run in: forwards to `BaseOperation.defaultSession`.
    public static var defaultSession: NetworkSession {
        get { BaseOperation.defaultSession }
        set { BaseOperation.defaultSession = newValue }
    }

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

    /// Sets up the facade before the first call.
    ///
    /// - Parameters:
    ///   - baseURL: The service's base URL.
    ///   - templates: Where the methods' templates are (default: `Templater.shared`).
    ///   - session: The session operations run in (default: keep the current one).
    ///   - stubMode: Whether calls answer from templates (default: `.off`).
    public static func prepareBeforeUsing(
        baseURL: URL, templates: TemplateStore = Templater.shared, session: NetworkSession? = nil, stubMode: StubMode = .off
    ) {
        current.withLock {
            $0.baseURL = baseURL
            $0.templates = templates
            $0.stubMode = stubMode
        }
        if let session { defaultSession = session }
    }
}
