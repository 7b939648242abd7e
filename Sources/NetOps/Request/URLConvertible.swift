import Foundation

/// Something an operation can be made for: a `URL`, or a `String` parsed when the request is built.
public protocol URLConvertible: Sendable {
    /// The URL, or `.invalidURL` when there is none.
    func asURL() throws(NetOpsError) -> URL
}

extension URL: URLConvertible {
    /// The URL itself.
    public func asURL() throws(NetOpsError) -> URL { self }
}

extension String: URLConvertible {
    /// The URL this string spells; `.invalidURL` when it spells none or has no host.
    public func asURL() throws(NetOpsError) -> URL {
        guard let url = URL(string: self), url.scheme?.isEmpty == false, url.host?.isEmpty == false else {
            throw NetOpsError(.invalidURL(self), url: nil)
        }
        return url
    }
}
