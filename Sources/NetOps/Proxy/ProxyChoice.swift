import Foundation

/// Whether requests go through a proxy, and which: none, a given one, or the one the process's
/// environment names for each URL (`http_proxy`, `HTTPS_PROXY`, `NO_PROXY`, read as curl reads
/// them; see `EnvironmentProxies`).
public enum ProxyChoice: Sendable, Hashable {
    /// Every request connects to its host directly.
    case direct
    /// Every request goes through this proxy.
    case through(ProxySettings)
    /// Each request goes through the proxy these variables name for its URL, if any.
    case environment(EnvironmentProxies)

    /// The variables of this process's environment, read once, now.
    public static func fromEnvironment() -> ProxyChoice {
        .environment(EnvironmentProxies(ProcessInfo.processInfo.environment))
    }

    /// The proxy a request to `url` goes through; nil: directly.
    public func proxy(for url: URL?) -> ProxySettings? {
        switch self {
        case .direct: return nil
        case let .through(proxy): return proxy
        case let .environment(variables): return url.flatMap(variables.proxy(for:))
        }
    }
}
