import Foundation

extension BaseOperation {
    /// The TLS settings of the operation's requests; nil (the default): its session's.
    ///
    /// An API scope whose configuration sets `tls` gives them to each of its operations. Only
    /// the SwiftNIO engine can use settings other than `TLSSettings.standard`; on the URLSession
    /// engine such an operation fails with `NetOpsError.Kind.tls` before anything is sent.
    /// Set before the operation starts; later changes are ignored.
    public var tlsSettings: TLSSettings? {
        get { withLock { storage.settings.transport.tls } }
        set { updateSettings { settings in settings.transport.tls = newValue } }
    }

    /// Whether the operation's requests may use HTTP/2 when the server offers it over TLS
    /// (default true).
    ///
    /// The SwiftNIO engine negotiates it by ALPN and keeps HTTP/1.1 for cleartext; false keeps
    /// such a request on HTTP/1.1 connections. The URLSession engine cannot: libcurl offers
    /// HTTP/2 on every TLS connection, so an https operation with false fails there with
    /// `NetOpsError.Kind.tls` before anything is sent (see `Docs/engines.md`). Set before the
    /// operation starts; later changes are ignored.
    public var allowsHTTP2: Bool {
        get { withLock { storage.settings.transport.allowsHTTP2 } }
        set { updateSettings { settings in settings.transport.allowsHTTP2 = newValue } }
    }

    /// Whether the operation's requests go through a proxy, and which; nil (the default): as its
    /// session says (`NIOEngineConfiguration.proxy`).
    ///
    /// An API scope whose configuration sets `proxy` gives it to each of its operations. The
    /// SwiftNIO engine honours every choice. The URLSession engine cannot be given a proxy
    /// (FoundationNetworking ignores `connectionProxyDictionary` on Linux) while libcurl follows
    /// the environment's variables by itself: there `.environment` works, and `.through` — or
    /// `.direct` for a URL the environment sends through a proxy — fails with
    /// `NetOpsError.Kind.cannotConnect` before anything is sent. Set before the operation
    /// starts; later changes are ignored.
    public var proxy: ProxyChoice? {
        get { withLock { storage.settings.transport.proxy } }
        set { updateSettings { settings in settings.transport.proxy = newValue } }
    }
}
