import Foundation

extension BaseOperation {
    /// The monitor this operation reports to when it fails to connect, and whose last verdict
    /// helps tell "this host refused" from "the network is down"; nil (the default): only the
    /// machine's interfaces and the connection's own error tell.
    public var connectivityMonitor: ConnectivityMonitor? {
        get { withLock { storage.settings.connectivityMonitor } }
        set { updateSettings { settings in settings.connectivityMonitor = newValue } }
    }

    /// `error`, or `.offline` in its place when a failure to connect came from the network
    /// being down. Runs outside the operation's lock, only after a `.cannotConnect`: it asks
    /// `getifaddrs` (microseconds, no packet sent) and reads the monitor's last verdict, then
    /// has the monitor check again in the background.
    ///
    /// A host on loopback is never "offline": its refusal is that host's.
    static func connectivityVerdict(on error: NetOpsError, monitor: ConnectivityMonitor?) -> NetOpsError {
        guard case let .cannotConnect(reason) = error.kind, !Self.isLoopback(error.url) else { return error }
        defer { monitor?.reportFailure() }
        if NetworkInterfaces.usable().isEmpty {
            return NetOpsError(.offline(reason: "\(ConnectivityMonitor.noInterfaceReason) (\(reason))"), url: error.url)
        }
        if reason.localizedCaseInsensitiveContains("network is unreachable") {
            return NetOpsError(.offline(reason: reason), url: error.url)
        }
        if case let .offline(why) = monitor?.status {
            return NetOpsError(.offline(reason: "\(why) (\(reason))"), url: error.url)
        }
        return error
    }

    /// Whether `url` names this machine: `localhost`, 127.0.0.0/8 or `::1`.
    static func isLoopback(_ url: URL?) -> Bool {
        guard let host = url?.host?.lowercased() else { return false }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare.hasSuffix(".localhost") || bare.hasPrefix("127.") || bare == "::1"
    }
}
