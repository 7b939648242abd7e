/// What one transfer asks of its engine's connections, beyond the session's own settings: TLS
/// settings of its own (an API's private CA, its client certificate), whether HTTP/2 may be
/// negotiated, and a proxy. Handed to the engine with the transfer (`EngineEvents.transport`).
package struct TransportChoice: Sendable {
    /// The transfer's TLS settings; nil: the session's.
    package var tls: TLSSettings?
    /// Whether HTTP/2 may be negotiated (over TLS, by ALPN) where the engine can.
    package var allowsHTTP2: Bool
    /// The transfer's proxy choice; nil: the session's.
    package var proxy: ProxyChoice?

    /// A choice of `tls`, `allowsHTTP2` and `proxy`.
    package init(tls: TLSSettings? = nil, allowsHTTP2: Bool = true, proxy: ProxyChoice? = nil) {
        self.tls = tls
        self.allowsHTTP2 = allowsHTTP2
        self.proxy = proxy
    }

    /// The session's TLS settings, HTTP/2 allowed: what a transfer gets that says nothing.
    package static let standard = TransportChoice()
}
