// `instruction-probe VARIANT COUNT URL [CONCURRENCY]`: sends COUNT small GETs to URL one after
// another through one variant of `apilayer bench engines` (nio-operation, nio-operation-loop,
// raw-ahc) and exits; nio-run, raw-ahc-async and raw-ahc-delegate-async send them from
// CONCURRENCY tasks when it is given (the load of `bench engines` at c=N). raw-ahc-decompressing
// is raw AsyncHTTPClient set to decode gzip and deflate as the NIO engine is (its pipeline then
// carries the decompression handler and offers Accept-Encoding);
// raw-ahc-untraced is raw AsyncHTTPClient without its per-request span, as the NIO engine runs it
// (`NIOEngineConfiguration.makesClientSpans` false); nio-run (an awaited operation), raw-ahc-async
// (AsyncHTTPClient's execute(_:timeout:) and the body collected) and raw-ahc-delegate-async
// (AsyncHTTPClient's delegate API, the one the NIO engine is built on, with the smallest delegate
// and its task's future awaited) are the awaited variants, each run in a task the synchronous
// main waits for. api-revalidated and api-full are
// `bench http`'s cache-revalidated-cpu and its baseline: an awaited `APIManager.call` of a 30-issue
// page from DemoServer's `/cacheable/{key}` (URL is DemoServer's base), every call revalidated and
// answered 304 with the model reused, or every call a 200 parsed, validated and mapped.
// It exists for `valgrind --tool=callgrind`, which counts instructions whatever the load of the
// machine but crashes in the rt_sigsuspend of an async `main` (valgrind 3.19): this entry point
// is synchronous. The instructions of one request are the difference of two runs with different
// counts, divided by the difference of the counts (Docs/engines.md#counting-instructions).
import APILayer
import AsyncHTTPClient
import DemoServer
import Dispatch
import Foundation
import NIOPosix
import NetOps
import NetOpsHTTP
import NetOpsNIO
import RawBaselines
import Templater
import Tracing

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let count = Int(arguments[2]), let url = URL(string: arguments[3]),
    let concurrency = arguments.count == 5 ? Int(arguments[4]) : 1, concurrency >= 1
else {
    let variants =
        "nio-operation|nio-operation-loop|nio-run|raw-ahc|raw-ahc-async|raw-ahc-delegate-async|raw-ahc-decompressing|raw-ahc-untraced|api-revalidated|api-full"
    FileHandle.standardError.write(Data("usage: instruction-probe \(variants) COUNT URL [CONCURRENCY]\n".utf8))
    exit(2)
}
let variant = arguments[1]

var loop = NIOEngineConfiguration(concurrency: 8)
loop.completionDelivery = .eventLoop
let session = NetworkSession.nio(configuration: variant == "nio-operation-loop" ? loop : NIOEngineConfiguration(concurrency: 8))
var pool = HTTPClient.Configuration.ConnectionPool()
pool.concurrentHTTP1ConnectionsPerHostSoftLimit = 8
var rawConfiguration = HTTPClient.Configuration(connectionPool: pool)
if variant == "raw-ahc-decompressing" { rawConfiguration.decompression = .enabled(limit: .ratio(100)) }
if variant == "raw-ahc-untraced" { rawConfiguration.tracing.tracer = nil }
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: rawConfiguration)

/// `GET /cacheable/{key}` of DemoServer, validated against the page template.
enum Cacheable: String, APIMethod {
    case cacheable
    var path: String { "cacheable/{key}" }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
}

/// What the api variants map of the page.
struct Page: Decodable, Sendable {
    let key: String
    let version: Int
}

/// The scope of the api variants: the page template in a temporary folder, a cache for api-revalidated.
func makeScope() throws -> APIScope {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("instruction-probe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(DemoIssuePage.json(key: "k", version: 1, count: 1).utf8).write(to: folder.appendingPathComponent("cacheable.json"))
    var configuration = APIScope.Configuration(baseURL: url, templates: TemplateStore(directory: folder), session: session)
    if variant == "api-revalidated" { configuration.cache = try HTTPCache() }
    return APIScope(name: "probe", configuration: configuration)
}
let scope = variant.hasPrefix("api-") ? try makeScope() : nil
let pageKey = UUID().uuidString

/// Sends one request through the chosen variant and waits for its end.
func sendOne() -> Bool {
    let done = DispatchSemaphore(value: 0)
    let succeeded = Locked(false)
    switch variant {
    case "nio-operation", "nio-operation-loop":
        let operation = DTO.get(url)
        operation.privateSession = session
        operation.onCompletion { operation in
            succeeded.withLock { $0 = operation.state == .successFinished }
            done.signal()
        }.start()
    case "raw-ahc", "raw-ahc-decompressing", "raw-ahc-untraced":
        client.get(url: url.absoluteString).whenComplete { result in
            if case let .success(response) = result { succeeded.withLock { $0 = response.status == .ok } }
            done.signal()
        }
    case "nio-run":
        // An awaited operation, as `bench engines`' nio-run: the task resumes where the transfer ends.
        Task {
            let operation = DTO.get(url)
            operation.privateSession = session
            let outcome = try? await operation.run()
            succeeded.withLock { $0 = outcome != nil }
            done.signal()
        }
    case "raw-ahc-delegate-async":
        // AsyncHTTPClient's delegate API awaited, as `bench engines`' raw-ahc-delegate-async.
        Task {
            if let request = try? HTTPClient.Request(url: url) {
                let status = await RawCollectingDelegate.get(client, request)
                succeeded.withLock { $0 = status == 200 }
            }
            done.signal()
        }
    case "raw-ahc-async":
        // AsyncHTTPClient's async API and the body collected, as `bench engines`' raw-ahc-async.
        Task {
            if let response = try? await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30)),
                (try? await response.body.collect(upTo: 1 << 20)) != nil
            {
                succeeded.withLock { $0 = response.status == .ok }
            }
            done.signal()
        }
    case "api-revalidated", "api-full":
        Task { [scope] in
            guard let scope else { return }
            let properties: Parameters = ["key": pageKey, "maxAge": 0, "etag": 1, "items": 30]
            let page = try? await APIManager.withDefaultAPI(scope) {
                try await APIManager.call(Cacheable.cacheable, properties: properties, as: Page.self)
            }
            succeeded.withLock { $0 = page != nil }
            done.signal()
        }
    default:
        return false
    }
    done.wait()
    return succeeded.withLock { $0 }
}

/// Sends `count` requests of an awaited variant from `concurrency` tasks, each awaiting its
/// requests one after another: the load `bench engines` puts on at c=N.
func sendConcurrently() -> Int {
    let done = DispatchSemaphore(value: 0)
    let failed = Locked(0)
    for task in 0..<concurrency {
        Task {
            for _ in stride(from: task, to: count, by: concurrency) {
                var succeeded = false
                if variant == "nio-run" {
                    let operation = DTO.get(url)
                    operation.privateSession = session
                    succeeded = (try? await operation.run()) != nil
                } else if variant == "raw-ahc-delegate-async" {
                    if let request = try? HTTPClient.Request(url: url) {
                        succeeded = await RawCollectingDelegate.get(client, request) == 200
                    }
                } else if let response = try? await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30)),
                    (try? await response.body.collect(upTo: 1 << 20)) != nil
                {
                    succeeded = response.status == .ok
                }
                if !succeeded { failed.withLock { $0 += 1 } }
            }
            done.signal()
        }
    }
    for _ in 0..<concurrency { done.wait() }
    return failed.withLock { $0 }
}

var failures = 0
if concurrency > 1, ["nio-run", "raw-ahc-async", "raw-ahc-delegate-async"].contains(variant) {
    failures = sendConcurrently()
} else {
    for _ in 0..<count where !sendOne() { failures += 1 }
}
try? client.syncShutdown()
print("\(variant): \(count) requests, \(failures) failed")
exit(failures == 0 ? 0 : 1)
