import Foundation
import Logging
import NetOps
import NetOpsHTTP
import ServiceLifecycle

/// The APIs a service calls, as one member of its `ServiceGroup`: on graceful shutdown it stops
/// their calls in order, so that none is cut or outlives the process's last log line.
///
/// It owns the scopes it is given, their sessions (and any others it is given) and the
/// connectivity monitors their configurations name. `run()` waits; when the group shuts down
/// gracefully (SIGTERM), it
/// 1. refuses new calls of its APIs (an `APIError` at `construction`, or a `NetOpsError`
///    `.rejected` for an operation made earlier, both carrying `ServiceStoppingError`);
/// 2. lets the calls in flight finish, retries and replays included, for up to `drainTimeout`;
/// 3. cancels the calls still running, and waits until each has ended;
/// 4. writes what the APIs recorded (`TemplateRecorder.flush()`, for scopes with a
///    `TemplateRecording`), stops the APIs' token refreshers (`AuthenticationCoordinator.stop()`),
///    waits for a shared token store's writes (`flushStore()`) and for each API cache's disk writes
///    (`HTTPCache.flush()`), each for at most `cancelGrace`, stops the connectivity monitors,
///    and shuts the sessions' engines down.
/// When its task is cancelled instead, it skips step 2. Every call ends once: finished, failed
/// or cancelled.
///
/// ```swift
/// let apis = APIService(scopes: [.billing, .tracker], configuration: .init(drainTimeout: .seconds(10)))
/// let group = ServiceGroup(
///     configuration: .init(services: [.init(service: server), .init(service: apis)],
///                          gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
///
/// A `ServiceGroup` shuts its services down in reverse order: listed after the HTTP server, the
/// APIs drain first, so a request the server still handles gets a clear refusal instead of a
/// call cut halfway. A scope belongs to one service; `NetworkSession.shared` is never shut down.
public final class APIService: Service, Sendable, CustomStringConvertible {
    /// How the service stops.
    public struct Configuration: Sendable {
        /// How long calls in flight may go on after a graceful shutdown began before they are
        /// cancelled (10 s unless set).
        public var drainTimeout: Duration
        /// How long the service waits for cancelled calls to end before it shuts the engines
        /// down anyway (5 s unless set). A call ends soon after its cancel; this bounds a stage
        /// of a service's own that never returns.
        public var cancelGrace: Duration

        /// A configuration with the given bounds.
        public init(drainTimeout: Duration = .seconds(10), cancelGrace: Duration = .seconds(5)) {
            self.drainTimeout = drainTimeout
            self.cancelGrace = cancelGrace
        }
    }

    /// What the service stopped, reported once its shutdown is over.
    public struct ShutdownReport: Sendable, Equatable {
        /// Calls in flight when the shutdown began.
        public var inFlightAtStart: Int
        /// Of those, the calls cancelled after `drainTimeout` (or at once on cancellation).
        public var cancelled: Int
        /// Calls still not ended after `cancelGrace` (0 unless a stage never returns).
        public var unended: Int
        /// Sessions whose engines were shut down.
        public var sessionsShutDown: Int
    }

    private enum Phase: Sendable {
        case running
        case stopping
        case stopped(ShutdownReport)
    }

    /// The APIs it owns.
    public let scopes: [APIScope]
    /// How it stops.
    public let configuration: Configuration
    private let extraSessions: [NetworkSession]
    private let extraMonitors: [ConnectivityMonitor]
    private let admissions: [CallAdmission]
    private let logger: Logger
    private let phase = Locked(Phase.running)

    /// A service owning `scopes` (their calls are counted from now on), and `sessions` and
    /// `connectivityMonitors` besides those the scopes' configurations name.
    public init(
        scopes: [APIScope], sessions: [NetworkSession] = [], connectivityMonitors: [ConnectivityMonitor] = [],
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "APILayer.service")
    ) {
        self.scopes = scopes
        self.extraSessions = sessions
        self.extraMonitors = connectivityMonitors
        self.configuration = configuration
        self.logger = logger
        self.admissions = scopes.map { $0.admission() }
    }

    /// "APIService(billing, tracker)".
    public var description: String { "APIService(\(scopes.map(\.name).joined(separator: ", ")))" }

    /// How many calls of the service's APIs are in flight now.
    public var callsInFlight: Int { admissions.reduce(0) { $0 + $1.inFlightCount } }

    /// What the last shutdown stopped; nil until one is over.
    public var shutdownReport: ShutdownReport? {
        if case let .stopped(report) = phase.withLock({ $0 }) { return report }
        return nil
    }

    /// Waits until the service group shuts down, then stops the APIs as the type's
    /// documentation says: drained on a graceful shutdown, at once on cancellation.
    public func run() async throws {
        let graceful: Bool
        do {
            try await gracefulShutdown()
            graceful = true
        } catch {
            graceful = false
        }
        await stop(draining: graceful)
    }

    /// Stops the APIs now, without a service group: drains them for `drainTimeout` when
    /// `draining`, then cancels what is left and shuts everything down. Returns once it is
    /// over; a second call waits for nothing and returns the first's report.
    @discardableResult
    public func stop(draining: Bool = true) async -> ShutdownReport {
        let begins = phase.withLock { phase -> Bool in
            guard case .running = phase else { return false }
            phase = .stopping
            return true
        }
        guard begins else { return shutdownReport ?? ShutdownReport(inFlightAtStart: 0, cancelled: 0, unended: 0, sessionsShutDown: 0) }
        for admission in admissions { admission.close() }
        let inFlight = callsInFlight
        logger.info(
            "\(description) stopping: \(inFlight) calls in flight, new calls refused",
            metadata: ["apilayer.drain_timeout_s": "\(Self.seconds(configuration.drainTimeout))"])
        if draining, inFlight > 0, !Task.isCancelled {
            await Self.drain(admissions, upTo: configuration.drainTimeout)
        }
        let cancelled = admissions.reduce(0) { $0 + $1.cancelAll() }
        if cancelled > 0 {
            logger.warning("\(description): \(cancelled) calls still running were cancelled")
            // Not bound to this task's cancellation: the calls must end before the engines go.
            await Task { [admissions, configuration] in await Self.drain(admissions, upTo: configuration.cancelGrace) }.value
        }
        let unended = callsInFlight
        if unended > 0 {
            logger.error("\(description): \(unended) cancelled calls did not end within \(Self.seconds(configuration.cancelGrace)) s")
        }
        // Every call has ended: what a scope recorded is complete, and written now.
        for scope in scopes {
            do { try scope.templateRecorder?.flush() } catch {
                logger.error("\(description): \(scope.name): \(error)")
            }
        }
        for scope in scopes { scope.authentication?.stop() }
        // A shared store's background writes (a login, a logout) and the caches' disk writes land
        // before the process ends — each waited for at most `cancelGrace`: a database that went
        // away must not hold the stop past the orchestrator's grace period.
        for scope in scopes {
            if let authentication = scope.authentication {
                let flushed = await Self.run(upTo: configuration.cancelGrace) { await authentication.flushStore() }
                if !flushed {
                    let grace = Self.seconds(configuration.cancelGrace)
                    logger.error("\(description): the token store of API \(scope.name) did not take its writes within \(grace) s")
                }
            }
            if let cache = scope.configuration.cache {
                let flushed = await Self.run(upTo: configuration.cancelGrace) { await Self.flush(cache) }
                if !flushed {
                    let grace = Self.seconds(configuration.cancelGrace)
                    logger.error("\(description): the cache of API \(scope.name) did not write its entries within \(grace) s")
                }
            }
        }
        for monitor in monitors() { monitor.stop() }
        let sessions = sessionsToShutDown()
        for session in sessions {
            do { try await session.shutdown() } catch {
                logger.warning("\(description): a session did not shut down cleanly: \(error)")
            }
        }
        let report = ShutdownReport(inFlightAtStart: inFlight, cancelled: cancelled, unended: unended, sessionsShutDown: sessions.count)
        phase.withLock { $0 = .stopped(report) }
        logger.info("\(description) stopped: \(inFlight - cancelled) calls finished, \(cancelled) cancelled, \(sessions.count) sessions shut down")
        return report
    }

    /// Returns when every admission drained or `limit` passed, whichever comes first.
    private static func drain(_ admissions: [CallAdmission], upTo limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for admission in admissions { await admission.drained() }
            }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Whether `work` ended within `limit`; it goes on in the background when it did not (a
    /// task group would wait for it at its end, whatever its cancellation).
    private static func run(upTo limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answered = Locked(false)
            let answer: @Sendable (Bool) -> Void = { value in
                let first = answered.withLock { answered -> Bool in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: value) }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                answer(false)
            }
            Task {
                await work()
                answer(true)
                timer.cancel()
            }
        }
    }

    /// Waits for `cache`'s disk writes off the cooperative threads (`HTTPCache.flush()` blocks).
    private static func flush(_ cache: HTTPCache) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                cache.flush()
                continuation.resume()
            }
        }
    }

    /// The sessions of the scopes and the ones given, each once; never `NetworkSession.shared`.
    private func sessionsToShutDown() -> [NetworkSession] {
        var seen = Set<ObjectIdentifier>()
        return (scopes.compactMap(\.configuration.session) + extraSessions).filter {
            $0 !== NetworkSession.shared && seen.insert(ObjectIdentifier($0)).inserted
        }
    }

    /// The monitors of the scopes and the ones given, each once.
    private func monitors() -> [ConnectivityMonitor] {
        var seen = Set<ObjectIdentifier>()
        return (scopes.compactMap(\.configuration.connectivityMonitor) + extraMonitors).filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
