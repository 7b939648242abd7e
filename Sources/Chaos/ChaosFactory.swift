import APILayer
import DemoServer
import Foundation
import Logging
import NetOps
import NetOpsHTTP

/// Makes the operations of a chaos run: picks each one's route from its seed, configures it
/// (session, timeouts, owner, retries) and records it in the ledger.
final class ChaosFactory: Sendable {
    let base: URL
    let realmBase: URL
    let session: NetworkSession
    let coordinator: AuthenticationCoordinator
    let ledger: ChaosLedger
    let downloads: URL
    let uploads: URL
    let owners: [ChaosOwner]
    let logger: Logger
    /// The breaker of the `.breaker` operations: it opens after 3 failures in a row, for 0.2 s.
    let breaker: CircuitBreaker
    /// The API scope of the `.scoped` operations.
    let scope: ChaosScope

    init(
        base: URL, realmBase: URL, session: NetworkSession, coordinator: AuthenticationCoordinator, ledger: ChaosLedger,
        downloads: URL, uploads: URL, owners: [ChaosOwner], logger: Logger, breaker: CircuitBreaker, scope: ChaosScope
    ) {
        self.breaker = breaker
        self.scope = scope
        self.base = base
        self.realmBase = realmBase
        self.session = session
        self.coordinator = coordinator
        self.ledger = ledger
        self.downloads = downloads
        self.uploads = uploads
        self.owners = owners
        self.logger = logger
    }

    /// The top-level operation `planned` describes.
    func make(_ planned: PlannedOperation) -> ChaosWork {
        var generator = SeededGenerator(seed: planned.detail)
        let owner = owners[planned.owner]
        let label = "#\(planned.index) \(planned.kind.rawValue) (\(planned.lane))"
        switch planned.kind {
        case .data, .download, .upload, .authenticated, .breaker, .scoped:
            let operation = makeSingle(planned.kind, owner: owner, label: label, topLevel: true, using: &generator)
            return work(for: operation.operation, id: operation.id)
        case .group, .nestedGroup, .syncGroup:
            return makeGroup(planned.kind, owner: owner, label: label, topLevel: true, detail: generator.next())
        }
    }

    // MARK: Single operations

    private func makeSingle(
        _ kind: ChaosKind, owner: ChaosOwner, label: String, topLevel: Bool,
        using generator: inout SeededGenerator
    ) -> (operation: BaseOperation, id: Int) {
        let operation: BaseOperation
        let route: String
        switch kind {
        case .download:
            route = Self.downloadRoute(&generator)
            let name = "dl-\(label.prefix(while: { $0 != " " }).dropFirst())-\(generator.next() % 1_000_000).bin"
            operation = DO.get(url(route), to: downloads.appendingPathComponent(name))
        case .upload:
            route = "upload"
            let size = Int(generator.next() % 262_144)
            if generator.next() % 3 == 0 {
                let file = uploads.appendingPathComponent("up-\(generator.next()).bin")
                _ = FileManager.default.createFile(atPath: file.path, contents: DemoPayload.data(size: size))
                operation = UO.upload(fileAt: file, to: url(route))
            } else {
                operation = UO.upload(DemoPayload.data(size: size), to: url(route), method: generator.next() % 2 == 0 ? .post : .put)
            }
        case .authenticated:
            let roll = generator.next() % 10
            if roll < 6 {
                route = "realm/…/protected"
                operation = DTO.get(realmBase.appendingPathComponent("protected"))
            } else if roll < 8 {
                route = "realm/…/protected (POST)"
                operation = DTO.post(realmBase.appendingPathComponent("protected"), parameters: ["n": Int(roll)], encoding: .form)
            } else {
                route = "realm/…/random-401"
                operation = DTO.get(url("random-401?p=0.1", relativeTo: realmBase))
            }
            operation.use(coordinator)
        case .breaker:
            route = Self.breakerRoute(&generator)
            operation = DTO.get(url(route)).use(breaker)
        case .scoped:
            let call = scope.makeCall(&generator)
            route = call.route
            operation = call.operation
        case .data, .group, .nestedGroup, .syncGroup:
            route = Self.dataRoute(&generator)
            operation = DTO.get(url(route))
        }
        operation.privateSession = session
        operation.idleTimeout = 2
        operation.totalTimeout = 5
        operation.owner = owner
        operation.retryPolicy = generator.next() % 5 == 0 ? .standard : RetryPolicy.none
        let fullLabel = "\(label) \(route)"
        let id = ledger.register(operation, label: fullLabel, topLevel: topLevel)
        let ledger = ledger
        let logger = logger
        operation.onCompletion { finished in
            let state = finished.stateDescription
            if let download = finished as? DownloadOperation, finished.state == .successFinished {
                ledger.expectFile(download.destination.lastPathComponent)
                if let size = Self.payloadSize(of: route) {
                    // Read here, in the completion, outside every lock of the run.
                    let file = try? Data(contentsOf: download.destination)
                    if file != DemoPayload.data(size: size) {
                        ledger.recordCorruptFile("\(fullLabel): \(file?.count ?? -1) bytes that are not the \(size)-byte payload")
                    }
                }
            }
            if case .circuitOpen = finished.error?.kind { ledger.recordCircuitRefusal() }
            ledger.completed(id, operation: finished, state: state)
            logger.debug("\(fullLabel): \(state)\(finished.error.map { " — \($0)" } ?? "") \(String(describing: finished))")
            // The request as a command, credential included (redacted): the run's log check covers it.
            logger.trace("\(fullLabel): \(finished.cURLDescription)")
        }
        return (operation, id)
    }

    private func work(for operation: BaseOperation, id: Int) -> ChaosWork {
        ChaosWork(
            operation: operation, id: id,
            syncStart: { _ = operation.syncStart() },
            run: { _ = try? await operation.run() })
    }

    // MARK: Groups

    private func makeGroup(_ kind: ChaosKind, owner: ChaosOwner, label: String, topLevel: Bool, detail: UInt64) -> ChaosWork {
        let group: GroupOperation<Int>
        switch kind {
        case .syncGroup:
            group = GroupOperation<Int>(sync: { [self] context in
                var generator = SeededGenerator(seed: detail)
                let count = 2 + Int(generator.next() % 2)
                for index in 0..<count {
                    let kind: ChaosKind = generator.next() % 3 == 0 ? .authenticated : .data
                    let sub = makeSingle(kind, owner: owner, label: "\(label)/\(index)", topLevel: false, using: &generator)
                    try context.syncRun(sub.operation)
                }
                return count
            })
        case .nestedGroup:
            group = GroupOperation<Int>(policy: detail % 2 == 0 ? .failFast : .collectPartialResults) { [self] context in
                var generator = SeededGenerator(seed: detail)
                let parallel = (0..<2).map { index in
                    makeSingle(
                        index == 0 ? .download : .data, owner: owner, label: "\(label)/\(index)", topLevel: false,
                        using: &generator
                    ).operation
                }
                let nested = makeGroup(.group, owner: owner, label: "\(label)/inner", topLevel: false, detail: generator.next())
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for operation in parallel {
                        tasks.addTask { try await context.run(operation) }
                    }
                    if let inner = nested.operation as? GroupOperation<Int> {
                        tasks.addTask { _ = try await context.run(inner) }
                    }
                    try await tasks.waitForAll()
                }
                return 3
            }
        case .data, .download, .upload, .authenticated, .breaker, .scoped, .group:
            group = GroupOperation<Int> { [self] context in
                var generator = SeededGenerator(seed: detail)
                let count = 2 + Int(generator.next() % 2)
                for index in 0..<count {
                    let kind: ChaosKind = [.data, .upload, .authenticated, .scoped][Int(generator.next() % 4)]
                    let sub = makeSingle(kind, owner: owner, label: "\(label)/\(index)", topLevel: false, using: &generator)
                    try await context.run(sub.operation)
                }
                return count
            }
        }
        let id = ledger.register(group, label: label, topLevel: topLevel)
        let ledger = ledger
        let logger = logger
        group.onCompletion { finished in
            ledger.completed(id, operation: finished, state: finished.stateDescription)
            logger.debug("\(label): \(finished.stateDescription)\(finished.error.map { " — \($0)" } ?? "")")
        }
        return ChaosWork(
            operation: group, id: id,
            syncStart: { _ = group.syncStart() },
            run: { _ = try? await group.run() })
    }

    // MARK: Routes

    private func url(_ route: String, relativeTo root: URL? = nil) -> URL {
        URL(string: route, relativeTo: root.map { $0.appendingPathComponent("") } ?? base)!.absoluteURL
    }

    private static func size(_ generator: inout SeededGenerator, upTo limit: UInt64) -> Int {
        Int(1 + generator.next() % limit)
    }

    /// A route of DemoServer for a data task: mostly healthy, often faulty.
    static func dataRoute(_ generator: inout SeededGenerator) -> String {
        switch generator.next() % 100 {
        case 0..<30: return "json"
        case 30..<38: return "status/\([500, 502, 503, 404, 401][Int(generator.next() % 5)])"
        case 38..<46: return "random-5xx?ok=0.5"
        case 46..<54: return "garbage"
        case 54..<62: return "delay?seconds=0.\(1 + generator.next() % 5)"
        case 62..<64: return "delay?seconds=8"
        case 64..<70: return "drip?bytes=40&interval=0.01"
        case 70..<73: return "drip?bytes=3&interval=3"
        case 73..<81: return "truncated/\(size(&generator, upTo: 200_000) + 2)"
        case 81..<89: return "reset/\(size(&generator, upTo: 200_000) + 2)"
        default: return "bytes/\(size(&generator, upTo: 300_000))"
        }
    }

    /// A route of DemoServer for a `.breaker` operation: failing more often than not (5xx, a
    /// reset connection, a timeout), so that its circuit keeps opening.
    static func breakerRoute(_ generator: inout SeededGenerator) -> String {
        switch generator.next() % 100 {
        case 0..<35: return "json"
        case 35..<70: return "status/\([500, 502, 503][Int(generator.next() % 3)])"
        case 70..<85: return "reset/\(size(&generator, upTo: 50_000) + 2)"
        case 85..<93: return "random-5xx?ok=0.5"
        default: return "delay?seconds=3"
        }
    }

    /// A route of DemoServer for a download.
    static func downloadRoute(_ generator: inout SeededGenerator) -> String {
        switch generator.next() % 100 {
        case 0..<40: return "bytes/\(size(&generator, upTo: 512_000))"
        case 40..<50: return "bytes/\(size(&generator, upTo: 400_000))?rate=400000"
        case 50..<58: return "norange/\(size(&generator, upTo: 300_000))"
        case 58..<70: return "truncated/\(size(&generator, upTo: 300_000) + 2)"
        case 70..<82: return "reset/\(size(&generator, upTo: 300_000) + 2)"
        case 82..<90: return "status/500"
        default: return "drip?bytes=30&interval=0.02"
        }
    }

    /// The size of the payload a download route serves from byte 0 (`bytes/N`, `norange/N`, with or
    /// without a rate), or nil for a route whose body is not that payload.
    static func payloadSize(of route: String) -> Int? {
        let path = route.prefix { $0 != "?" }
        for prefix in ["bytes/", "norange/"] where path.hasPrefix(prefix) {
            return Int(path.dropFirst(prefix.count))
        }
        return nil
    }
}
