import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

extension DemoRoutes {
    /// What `/limited` remembers per `key`: the requests of the current window.
    struct RateWindow {
        var started = Date()
        var served = 0
        /// Requests answered 429 because the window's budget was spent, over the key's life.
        var refused = 0
    }

    /// `GET /limited?key=K&budget=N&window=S&style=github|ietf` — a rate-limited resource, keyed
    /// so tests running at once do not share it: each window of S seconds (default 1) serves N
    /// requests (default 5) with the budget left in its headers (GitHub's
    /// `X-RateLimit-Remaining` and `X-RateLimit-Reset`, an epoch time; or, with `style=ietf`,
    /// `RateLimit: limit=N, remaining=R, reset=seconds`) and answers the next ones 429 with
    /// `Retry-After` until the window ends.
    ///
    /// `GET /limited-stats/{key}` answers `{"served": total, "refused": total}`.
    static func addRateLimitRoutes(to router: Router<BasicRequestContext>) {
        let windows = NIOLockedValueBox<[String: (window: RateWindow, total: Int)]>([:])
        router.get("limited") { request, _ in
            let query = request.uri.queryParameters
            let key = String(query["key"] ?? "")
            let budget = max(1, query.get("budget", as: Int.self) ?? 5)
            let seconds = max(0.1, query.get("window", as: Double.self) ?? 1)
            let ietf = query["style"] == "ietf"
            let now = Date()
            let (left, resetAt, served) = windows.withLockedValue { windows -> (Int, Date, Bool) in
                var entry = windows[key] ?? (RateWindow(started: now), 0)
                if now.timeIntervalSince(entry.window.started) >= seconds {
                    entry.window.started = now
                    entry.window.served = 0
                }
                let served = entry.window.served < budget
                if served {
                    entry.window.served += 1
                    entry.total += 1
                } else {
                    entry.window.refused += 1
                }
                windows[key] = entry
                return (budget - entry.window.served, entry.window.started.addingTimeInterval(seconds), served)
            }
            let wait = max(0, resetAt.timeIntervalSince(now))
            var headers: HTTPFields = [:]
            if ietf {
                headers[HTTPField.Name("RateLimit")!] = "limit=\(budget), remaining=\(left), reset=\(Int(wait.rounded(.up)))"
            } else {
                headers[HTTPField.Name("X-RateLimit-Limit")!] = String(budget)
                headers[HTTPField.Name("X-RateLimit-Remaining")!] = String(left)
                headers[HTTPField.Name("X-RateLimit-Reset")!] = String(Int(resetAt.timeIntervalSince1970.rounded(.up)))
            }
            guard served else {
                headers[.retryAfter] = String(Int(wait.rounded(.up)))
                return json(#"{"message":"rate limit exceeded"}"#, status: .tooManyRequests, headers: headers)
            }
            return json(#"{"ok":true,"remaining":\#(left)}"#, headers: headers)
        }
        router.get("limited-stats/{key}") { _, context in
            let key = try context.parameters.require("key")
            let entry = windows.withLockedValue { $0[key] }
            return json(#"{"served":\#(entry?.total ?? 0),"refused":\#(entry?.window.refused ?? 0)}"#)
        }
    }
}
