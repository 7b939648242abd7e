import APILayer
import Chaos
import DemoServer
import Foundation
import NetOps
import Templater

extension APIScope {
    /// The one API every call of `apilayer bench soak` goes through (configured by the run).
    static let soak = APIScope(name: "soak")
}

/// The methods `bench soak` calls, on paths DemoServer serves and the soak's nginx serves alike.
enum SoakAPI: String, APIMethod {
    /// `GET cacheable/{key}?maxAge=S&etag=1`: a page with a lifetime (fresh hits) or without
    /// one (revalidated, answered 304).
    case page
    /// `GET counted/{key}`: an answer without a lifetime or a validator, never stored: identical
    /// calls in flight together share one request.
    case shared
    /// `GET random-5xx?ok=P`: a 5xx now and then.
    case flaky
    /// `GET random-429?ok=P&retryAfter=S`: a 429 with `Retry-After` now and then.
    case limited
    /// `GET status/503`: always 503 (a storm of them opens the circuit).
    case unavailable

    static var api: APIScope { .soak }

    var path: String {
        switch self {
        case .page: "cacheable/{key}"
        case .shared: "counted/{key}"
        case .flaky: "random-5xx"
        case .limited: "random-429"
        case .unavailable: "status/503"
        }
    }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var templateName: String {
        switch self {
        case .page: "page"
        case .shared: "shared"
        case .flaky, .limited, .unavailable: "ack"
        }
    }
}

/// The models of the soak's answers, and their templates.
enum SoakModels {
    /// `counted/{key}`'s answer.
    struct Shared: Decodable, Sendable {
        let key: String
        let served: Int
    }

    /// The answer of the routes that fail now and then, when they do not.
    struct Ack: Decodable, Sendable {
        let ok: Bool
    }

    /// The page nginx serves for every `cacheable/{key}`, as DemoServer answers `items=1`.
    static let page = DemoIssuePage.json(key: "static", version: 1, count: 1)
    static let shared = #"{"key":"static","served":1}"#
    static let ack = #"{"ok":true}"#

    /// A template folder with the three templates (removed by the caller).
    static func templates() throws -> TemplateStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in [("page", page), ("shared", shared), ("ack", ack)] {
            try Data(text.utf8).write(to: folder.appendingPathComponent("\(name).json"))
        }
        return TemplateStore(directory: folder)
    }
}

/// The calls of a soak run: which route each call takes, decided by its number, so that every
/// run makes the same mix.
enum SoakMix {
    /// The share of failures of `flaky` (1/16) and of 429s of `limited` (1/32): the `ok`
    /// probabilities DemoServer is given, the `$request_id` patterns nginx matches.
    static let flakyOK = 0.9375
    static let limitedOK = 0.96875
    /// The `Retry-After` of a 429, in seconds: every call of the scope waits that long.
    static let retryAfter = 0.02
    /// Every `stormEvery` calls, `stormLength` calls in a row go to `unavailable`: the circuit opens.
    static let stormEvery = 25_000
    static let stormLength = 30

    /// What call number `index` does.
    struct Call {
        let method: SoakAPI
        let properties: Parameters
        /// Cancelled after `disturbAfter` microseconds.
        let cancels: Bool
        /// Suspended after `disturbAfter` microseconds, resumed `resumeAfter` microseconds later.
        let suspends: Bool
        let disturbAfter: Int
        let resumeAfter: Int
        /// Awaited with `run()`; else started with `start()` and awaited with `finished()`.
        let awaitsRun: Bool
    }

    /// The call number `index` of a run, with `cancelShare` and `suspendShare` (per thousand).
    static func call(_ index: Int, cancelShare: Int, suspendShare: Int) -> Call {
        var generator = SeededGenerator(seed: UInt64(index) &* 0x2545_F491_4F6C_DD1D &+ 1)
        let method: SoakAPI
        var properties: Parameters = [:]
        if index % stormEvery < stormLength {
            method = .unavailable
        } else {
            switch generator.next() % 100 {
            case 0..<30:
                method = .page
                properties = ["key": "k\(generator.next() % 256)", "maxAge": 600, "etag": 1, "items": 1]
            case 30..<55:
                method = .page
                properties = ["key": "r\(generator.next() % 256)", "maxAge": 0, "etag": 1, "items": 1]
            case 55..<80:
                method = .shared
                properties = ["key": "s\(generator.next() % 4)"]
            case 80..<96:
                method = .flaky
                // A query of its own: a failure shared in flight would count for every caller.
                properties = ["ok": flakyOK, "n": index]
            default:
                method = .limited
                properties = ["ok": limitedOK, "retryAfter": retryAfter, "n": index]
            }
        }
        let roll = Int(generator.next() % 1_000)
        return Call(
            method: method, properties: properties, cancels: roll < cancelShare,
            suspends: roll >= cancelShare && roll < cancelShare + suspendShare,
            disturbAfter: Int(generator.next() % 3_000), resumeAfter: Int(generator.next() % 5_000),
            awaitsRun: generator.next() % 2 == 0)
    }

    /// The locations of the soak's nginx: the routes above, answered by `return` and
    /// `add_header`; `$request_id` (32 random hex digits per request) draws the failures.
    static let nginxLocations = [
        // Any key: the page file, with nginx's ETag and the lifetime the query asks for.
        #"location /cacheable/ { keepalive_timeout 1s; default_type application/json; add_header Cache-Control "max-age=$arg_maxAge"; try_files /page.json =404; }"#,
        #"location /counted/ { keepalive_timeout 1s; default_type application/json; return 200 '\#(shared)'; }"#,
        // 1 request in 16 (a first digit 0).
        #"location = /random-5xx { keepalive_timeout 1s; default_type application/json; if ($request_id ~ ^0) { return 503 '{"status":503}'; } return 200 '\#(SoakModels.ack)'; }"#,
        // 1 request in 32 (00 to 07).
        #"location = /random-429 { keepalive_timeout 1s; default_type application/json; if ($request_id ~ ^0[0-7]) { add_header Retry-After $arg_retryAfter always; return 429 '{"message":"rate limit exceeded"}'; } return 200 '\#(SoakModels.ack)'; }"#,
        #"location = /status/503 { keepalive_timeout 1s; default_type application/json; return 503 '{"status":503}'; }"#,
    ]

    private static let shared = SoakModels.shared
}
