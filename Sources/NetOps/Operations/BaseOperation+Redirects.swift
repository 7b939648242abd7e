import Foundation

extension BaseOperation {
    /// Whether the operation follows redirects (default true).
    ///
    /// Either engine follows up to 10 redirects, as RFC 9110 §15.4 says (see `Docs/engines.md`):
    /// a redirect to another origin drops every header and query parameter that `redaction`
    /// names secret (and `Authorization`, `Cookie`, `Proxy-Authorization`, `access_token`); a
    /// redirect from https to http, or one that would send the request's body to another origin,
    /// is not followed. When false, or when a redirect is not followed, the 3xx answer is the
    /// response (and fails the operation unless its status is acceptable).
    public var followsRedirects: Bool {
        get { withLock { storage.settings.followsRedirects } }
        set { updateSettings { settings in settings.followsRedirects = newValue } }
    }

    /// The cookie jar whose cookies the operation sends and into which it stores the cookies
    /// its responses set; nil (the default) sends and keeps none.
    ///
    /// An API scope whose configuration sets `usesCookies` gives its own jar to each of its
    /// operations. A `Cookie` header the caller set is sent as well (before the jar's cookies);
    /// on a redirect, the jar alone says which cookies the next request carries.
    public var cookieJar: CookieJar? {
        get { withLock { storage.settings.cookieJar } }
        set { updateSettings { settings in settings.cookieJar = newValue } }
    }
}
