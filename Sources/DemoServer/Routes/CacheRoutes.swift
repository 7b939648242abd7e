import Foundation
import Hummingbird
import NIOConcurrencyHelpers

extension DemoRoutes {
    /// A resource per key whose answers a cache may keep, and counts a test can read.
    ///
    /// `GET /cacheable/{key}` answers `{"key": …, "version": V, "items": [...]}` (V starts at 1;
    /// `items=N` issues in it, default 0, each as GitHub sends one: `DemoIssuePage`) with the
    /// fields the query asks for:
    /// `maxAge=S` (`Cache-Control: max-age=S`), `cacheControl=TEXT` (the whole field as given),
    /// `expires=S` (`Expires` S seconds from now; `expires=invalid` sends `0`), `etag=1`
    /// (`ETag: "vV"`), `lastModified=1` (`Last-Modified` a fixed date plus V seconds),
    /// `vary=NAME`, `age=S`, `conditionalDelay=S` (a request with a condition is answered after S
    /// seconds, at most 60). A request whose `If-None-Match` names the current tag, or whose
    /// `If-Modified-Since` is not before the version's date, is answered 304 with the same fields;
    /// `wrongTag=1` answers such a request 304 with a tag that names no version.
    ///
    /// `PUT|POST|DELETE /cacheable/{key}` makes a new version and answers 204
    /// (`location=OTHER`: with `Location: /cacheable/OTHER`).
    ///
    /// `GET /cacheable-stats/{key}` answers `{"served": n, "notModified": m, "conditional": c}`:
    /// GETs answered 200, GETs answered 304, GETs that came with a condition.
    static func addCacheRoutes(to router: Router<BasicRequestContext>) {
        struct Resource {
            var version = 1
            var served = 0
            var notModified = 0
            var conditional = 0
        }
        let resources = NIOLockedValueBox<[String: Resource]>([:])
        let epoch = Date(timeIntervalSince1970: 1_700_000_000)

        router.get("cacheable/{key}") { request, context -> Response in
            let key = try context.parameters.require("key")
            let query = request.uri.queryParameters
            let ifNoneMatch = request.headers[.ifNoneMatch]
            let ifModifiedSince = request.headers[.ifModifiedSince].flatMap(httpDate)
            let conditional = ifNoneMatch != nil || ifModifiedSince != nil
            let (version, notModified) = resources.withLockedValue { resources -> (Int, Bool) in
                var resource = resources[key] ?? Resource()
                let modified = epoch.addingTimeInterval(TimeInterval(resource.version))
                let matches =
                    if let ifNoneMatch {
                        ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "\"v\(resource.version)\"" }
                    } else if let ifModifiedSince { ifModifiedSince >= modified } else { false }
                if conditional { resource.conditional += 1 }
                if matches { resource.notModified += 1 } else { resource.served += 1 }
                resources[key] = resource
                return (resource.version, matches)
            }
            let delay = conditional ? min(max(query.get("conditionalDelay", as: Double.self) ?? 0, 0), 60) : 0
            if delay > 0 { try await Task.sleep(for: .seconds(delay)) }
            var headers = HTTPFields()
            if let cacheControl = query.get("cacheControl") {
                headers[.cacheControl] = cacheControl
            } else if let maxAge = query.get("maxAge", as: Int.self) {
                headers[.cacheControl] = "max-age=\(maxAge)"
            }
            if let expires = query.get("expires") {
                headers[.expires] = Double(expires).map { formatHTTPDate(Date().addingTimeInterval($0)) } ?? "0"
            }
            let wrongTag = notModified && query.get("wrongTag") == "1"
            if query.get("etag") == "1" { headers[.eTag] = wrongTag ? "\"elsewhere\"" : "\"v\(version)\"" }
            if query.get("lastModified") == "1" { headers[.lastModified] = formatHTTPDate(epoch.addingTimeInterval(TimeInterval(version))) }
            if let vary = query.get("vary") { headers[.vary] = vary }
            if let age = query.get("age") { headers[.age] = age }
            if notModified { return Response(status: .notModified, headers: headers) }
            let count = min(max(query.get("items", as: Int.self) ?? 0, 0), 1000)
            headers[.contentType] = "application/json"
            let body = DemoIssuePage.json(key: key, version: version, count: count)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let change: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            let key = try context.parameters.require("key")
            resources.withLockedValue { $0[key, default: Resource()].version += 1 }
            var headers = HTTPFields()
            if let other = request.uri.queryParameters.get("location") { headers[.location] = "/cacheable/\(other)" }
            return Response(status: .noContent, headers: headers)
        }
        router.put("cacheable/{key}", use: change)
        router.post("cacheable/{key}", use: change)
        router.delete("cacheable/{key}", use: change)
        router.get("cacheable-stats/{key}") { _, context in
            let key = try context.parameters.require("key")
            let resource = resources.withLockedValue { $0[key] ?? Resource() }
            return json(#"{"served":\#(resource.served),"notModified":\#(resource.notModified),"conditional":\#(resource.conditional)}"#)
        }
    }

    private static func formatHTTPDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
