import Foundation

/// Tells whether the machine can reach the network, checking only after a failure.
///
/// A monitor sends nothing on its own: it checks when asked (`check()`) or when an operation
/// that carries it fails to connect (`reportFailure()`). A check looks, in order, at the
/// machine's interfaces (is one other than loopback up, with an address beyond its link?), at
/// the resolver (does any of `resolverProbeHosts` resolve?) and at `probeURL` (does it answer
/// at all, whatever its status?); the first that fails makes the verdict `.offline` and says
/// why. After an offline verdict reached through `reportFailure()`, the monitor checks again
/// every `recheckInterval` until the machine is back online, and tells `updates()` when it is.
///
/// ```swift
/// let connectivity = ConnectivityMonitor(configuration: .init(resolverProbeHosts: ["api.example.com"]))
/// operation.connectivityMonitor = connectivity
/// // after a failure whose kind is .offline:
/// await connectivity.waitUntilOnline()
/// ```
public final class ConnectivityMonitor: Sendable {
    /// What a check looks at, and how often it repeats while offline.
    public struct Configuration: Sendable {
        /// Host names to resolve; the resolver counts as working if any of them resolves.
        /// Empty (the default): the resolver is not checked.
        public var resolverProbeHosts: [String]
        /// A URL that must answer (any HTTP status) for the machine to count as online; nil
        /// (the default): not checked.
        public var probeURL: URL?
        /// How long a resolver lookup or the probe URL may take before it counts as failed.
        public var probeTimeout: TimeInterval
        /// How long the monitor waits between checks while the machine is offline.
        public var recheckInterval: TimeInterval
        /// The session the probe URL is fetched with; nil: the operations' default session.
        public var session: NetworkSession?

        /// A configuration; by default only the interfaces are checked.
        public init(
            resolverProbeHosts: [String] = [], probeURL: URL? = nil, probeTimeout: TimeInterval = 3,
            recheckInterval: TimeInterval = 2, session: NetworkSession? = nil
        ) {
            self.resolverProbeHosts = resolverProbeHosts
            self.probeURL = probeURL
            self.probeTimeout = probeTimeout
            self.recheckInterval = recheckInterval
            self.session = session
        }
    }

    private struct State {
        var status: ConnectivityStatus?
        var isWatching = false
        /// Set by `stop()`: no check starts after it, and `updates()` streams have ended.
        var stopped = false
        /// The loop that rechecks while offline, while it runs.
        var watcher: Task<Void, Never>?
        var subscribers: [UInt64: AsyncStream<ConnectivityStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    /// What this monitor checks.
    public let configuration: Configuration
    private let state = Locked(State())

    /// A monitor that checks what `configuration` names.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The verdict of the last check; nil before the first.
    public var status: ConnectivityStatus? { state.withLock { $0.status } }

    /// Checks now and returns the verdict (also published to `updates()`).
    @discardableResult
    public func check() async -> ConnectivityStatus {
        let verdict = await evaluate()
        publish(verdict)
        return verdict
    }

    /// Each verdict that differs from the one before, starting with the current one if there
    /// is one. The stream ends when the task iterating it is cancelled, or when the monitor
    /// is stopped.
    public func updates() -> AsyncStream<ConnectivityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectivityStatus.self, bufferingPolicy: .bufferingNewest(8))
        let subscribed = state.withLock { state -> (UInt64, ConnectivityStatus?)? in
            guard !state.stopped else { return nil }
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = continuation
            return (state.nextSubscriber, state.status)
        }
        guard let (id, current) = subscribed else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        if let current { continuation.yield(current) }
        return stream
    }

    /// Returns once the machine is online again: at once unless the last verdict was offline.
    /// Returns early if the calling task is cancelled.
    public func waitUntilOnline() async {
        guard case .offline = status else { return }
        for await verdict in updates() where verdict.isOnline { return }
    }

    /// What an operation calls after it failed to connect: starts checking, unless a check is
    /// under way, and keeps checking every `recheckInterval` while the verdict is offline.
    public func reportFailure() {
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            defer { state.isWatching = true }
            return !state.isWatching
        }
        guard start else { return }
        // The loop holds the monitor only while it checks: a monitor nobody keeps stops
        // rechecking at its next turn.
        let watcher = Task.detached { [weak self] in
            var pause: TimeInterval?
            while !Task.isCancelled {
                if let pause { try? await Task.sleep(for: .seconds(pause)) }
                guard let monitor = self, !Task.isCancelled else { return }
                if await monitor.check().isOnline {
                    monitor.state.withLock {
                        $0.isWatching = false
                        $0.watcher = nil
                    }
                    return
                }
                pause = monitor.configuration.recheckInterval
            }
        }
        let stoppedMeanwhile = state.withLock { state -> Bool in
            if state.isWatching, !state.stopped { state.watcher = watcher }
            return state.stopped
        }
        if stoppedMeanwhile { watcher.cancel() }
    }

    /// Stops the monitor for good: the recheck loop ends, every `updates()` stream finishes,
    /// and later failures start no check (`check()` still answers when asked). A service's
    /// `APIService` calls it on shutdown. Calling it again does nothing.
    public func stop() {
        let (watcher, subscribers) = state.withLock { state -> (Task<Void, Never>?, [AsyncStream<ConnectivityStatus>.Continuation]) in
            guard !state.stopped else { return (nil, []) }
            state.stopped = true
            state.isWatching = false
            defer {
                state.watcher = nil
                state.subscribers = [:]
            }
            return (state.watcher, Array(state.subscribers.values))
        }
        watcher?.cancel()
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    private func publish(_ verdict: ConnectivityStatus) {
        let subscribers = state.withLock { state -> [AsyncStream<ConnectivityStatus>.Continuation] in
            guard state.status != verdict else { return [] }
            state.status = verdict
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(verdict) }
    }

    private func evaluate() async -> ConnectivityStatus {
        if NetworkInterfaces.usable().isEmpty {
            return .offline(reason: Self.noInterfaceReason)
        }
        let hosts = configuration.resolverProbeHosts
        if !hosts.isEmpty {
            let timeout = configuration.probeTimeout
            let anyResolves = await withTaskGroup(of: Bool.self) { group in
                for host in hosts { group.addTask { await ResolverProbe.resolves(host, timeout: timeout) } }
                for await resolved in group where resolved {
                    group.cancelAll()
                    return true
                }
                return false
            }
            if !anyResolves {
                return .offline(reason: "DNS failed for every probe host (\(hosts.joined(separator: ", ")))")
            }
        }
        if let url = configuration.probeURL {
            let probe = DataTaskOperation.get(url)
            probe.acceptableStatusCodes = Set(100..<600)
            probe.idleTimeout = configuration.probeTimeout
            probe.totalTimeout = configuration.probeTimeout
            // Any answer says the network is up: a redirect is not followed, a body is not kept.
            probe.followsRedirects = false
            probe.maximumResponseBodyBytes = Self.maximumProbeResponseBytes
            if let session = configuration.session { probe.privateSession = session }
            do {
                _ = try await probe.run()
            } catch {
                if case .transport(BaseOperation.responseBodyTooLargeCode, _)? = (error as? NetOpsError)?.kind {
                    return .online  // it answered, at length
                }
                return .offline(reason: "the probe URL did not answer: \(error)")
            }
        }
        return .online
    }
}

extension ConnectivityMonitor {
    /// The longest probe answer read: 64 KiB (the probe needs the status only).
    static let maximumProbeResponseBytes: Int64 = 64 << 10

    /// The reason given, by a check and by an operation's own classification, when no
    /// interface but loopback is up.
    static let noInterfaceReason = "no network interface other than loopback is up"
}
