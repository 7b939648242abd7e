import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// Builds the request of the next transfer: the operation's request, with a `Range` for the
    /// bytes still missing when a suspended GET resumes. Call with the lock held.
    func prepareTransfer(firstRun: Bool, effects: inout Effects) -> Result<PreparedTransfer, NetOpsError> {
        // Operations own their timeouts; the engine's is only a backstop behind them (and
        // FoundationNetworking truncates fractional values to whole seconds). It is set on the
        // kept request itself, in place: setting it on a copy made Foundation copy the request
        // for every transfer.
        let backstop = storage.settings.idleTimeout.rounded(.up) + 5
        var taken = storage.request
        storage.request = Self.requestPlaceholder
        guard case .success(var request) = taken else {
            storage.request = taken
            if case let .failure(error) = taken { return .failure(error) }
            return .failure(NetOpsError(.invalidURL(""), url: nil))
        }
        taken = Self.requestPlaceholder
        if request.timeoutInterval != backstop { request.timeoutInterval = backstop }
        storage.request = .success(request)
        guard let url = request.url else { return .failure(NetOpsError(.invalidURL(""), url: nil)) }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            return .failure(NetOpsError(.unsupportedScheme(scheme), url: url))
        }
        guard let frozen = storage.frozen else { return .failure(NetOpsError(.cancelled, url: url)) }
        if firstRun, let refusal = frozen.runSlotRefusal { return .failure(refusal) }
        guard let number = machine.runNumber else {
            return .failure(NetOpsError(.cancelled, url: url))
        }

        var attemptRequest = request
        var requestedOffset: Int64 = 0
        // Late chunks of an earlier transfer are refused from here on, before the length kept
        // (where a `Range` resumes) is read.
        sink.admit(number)
        let kept = sink.bytesKept
        // Suspended after the body's last byte but before the transfer ended: a range from the
        // end is one no server can satisfy (416), so the body is asked for again.
        let keptAll = storage.progress.totalBytesToReceive.map { kept >= $0 } ?? false
        if kept > 0 {
            if !keptAll, canResumeWithRange(request), let validator = storage.response.flatMap(Self.rangeValidator(of:)) {
                attemptRequest.setValue("bytes=\(kept)-", forHTTPHeaderField: "Range")
                attemptRequest.setValue(validator, forHTTPHeaderField: "If-Range")
                requestedOffset = kept
                storage.history.rangeResumes += 1
            } else {
                effects.cleanUp(sink.reset())
                storage.history.restartsFromZero += 1
            }
        }
        storage.progress.bytesReceived = requestedOffset
        storage.progress.bytesSent = 0
        let now = DispatchTime.now()
        _ = machine.updateRun { run in
            run.requestedOffset = requestedOffset
            run.lastActivity = now
        }
        let rules = RedirectRules(
            follows: storage.settings.followsRedirects, redaction: redactionLocked, cookies: storage.settings.cookieJar,
            cookieHost: storage.settings.cookieJar == nil ? nil : url.host)
        return .success(
            PreparedTransfer(
                request: attemptRequest, rules: rules, transport: storage.settings.transport, body: storage.body, session: frozen.session,
                chain: frozen.chain, transferStages: frozen.transferStages, attempt: number,
                attemptsBefore: storage.history.attemptsMade, deadline: nextDeadlineLocked()))
    }

    /// Stands in for an operation's request while `prepareTransfer` holds it alone.
    private static let requestPlaceholder: Result<URLRequest, NetOpsError> = .failure(NetOpsError(.invalidURL(""), url: nil))

    /// Only a body-less GET can ask for the rest of its response.
    /// A body that came content-encoded was kept decoded, so its byte count is no offset into
    /// what the server sends: such a response starts over instead.
    private func canResumeWithRange(_ request: URLRequest) -> Bool {
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard method == "GET", request.httpBody == nil else { return false }
        if let coding = storage.response?.value(forHTTPHeaderField: "Content-Encoding"),
            !coding.trimmingHTTPWhitespace().isEmpty, coding.lowercased() != "identity"
        {
            return false
        }
        if case .none = storage.body { return true }
        return false
    }

    /// Hands a prepared transfer to its engine (outside the lock), after its chain prepared it.
    func launch(_ prepared: PreparedTransfer) {
        prepared.session.deadlines.arm(self, attempt: prepared.attempt, at: prepared.deadline)
        if let failure = writeDeferredForm() {
            abort(attempt: prepared.attempt, with: failure)
            return
        }
        var request = prepared.request
        let context = MiddlewareContext(operation: self, attempt: prepared.attemptsBefore + 1, session: prepared.session)
        for stage in prepared.chain {
            let decision: PrepareDecision
            do { decision = try stage.prepare(&request, context: context) } catch { decision = .fail(error) }
            switch decision {
            case .proceed:
                continue
            case let .park(lot):
                withEffects { effects in
                    guard isCurrent(prepared.attempt) else { return }
                    parkLocked(in: lot, effects: &effects)
                }
                return
            case let .fail(error):
                abort(attempt: prepared.attempt, with: operationError(error))
                return
            }
        }
        let number = prepared.attemptsBefore + 1
        if let jar = prepared.rules.cookies, let url = request.url, let cookies = jar.cookieHeader(for: url) {
            let own = request.value(forHTTPHeaderField: "Cookie")
            request.setValue(own.map { $0 + "; " + cookies } ?? cookies, forHTTPHeaderField: "Cookie")
        }
        // The one check of what goes on the wire, the same for both engines, after everything
        // that adds to the request (every stage: a token, trace headers, a service's own) and
        // the cookies.
        switch RequestCheck.checked(request) {
        case let .success(checked):
            request = checked
        case let .failure(refusal):
            refuseAttempt(prepared.attempt, request: request, error: refusal, chain: prepared.chain, context: context, counted: false)
            return
        }
        // Counted and kept in one hold, if nothing overtook the run while the chain prepared.
        let current = withLock { () -> Bool in
            guard isCurrent(prepared.attempt) else { return false }
            storage.history.attemptsMade = number
            storage.lastSentRequest = request
            return true
        }
        guard current else { return }
        let events = TransferAttempt(operation: self, attempt: prepared.attempt, rules: prepared.rules, transport: prepared.transport)
        let handle: any TransferHandle
        if prepared.transferStages.isEmpty {
            handle = prepared.session.engine.startTransfer(request, body: prepared.body, events: events)
        } else {
            handle = StagedTransfer(
                operation: self, runNumber: prepared.attempt, attempt: number, request: request, body: prepared.body, attemptEvents: events,
                stages: prepared.transferStages, chain: prepared.chain, session: prepared.session
            ).start()
        }
        let stale = withLock { () -> Bool in
            guard isCurrent(prepared.attempt) else { return true }
            _ = machine.updateRun { $0.handle = handle }
            return false
        }
        if stale { handle.cancel() }
    }

    /// Ends the attempt of run `attempt` with `error`, whatever the stages say: a request that
    /// cannot go (the check of what goes on the wire refused it), or a transfer stage that broke
    /// its rules. The stages still judge the attempt (telemetry closes it), but it is never
    /// retried or parked. `counted`: the attempt was counted when it was handed to the stages.
    func refuseAttempt(
        _ attempt: UInt64, request: URLRequest, error: NetOpsError, chain: [any NetworkMiddleware], context: MiddlewareContext, counted: Bool
    ) {
        var verdict = Verdict.fail(error)
        let outcome = AttemptOutcome(
            request: request, head: nil, body: Data(), error: error, bytesSent: 0, bytesReceived: 0, retryWaited: 0, isReplayable: false)
        for stage in chain.reversed() { try? stage.judge(outcome, verdict: &verdict, context: context) }
        withEffects { effects in
            guard isCurrent(attempt) else { return }
            if !counted { storage.history.attemptsMade += 1 }
            apply({ $0.abort(error) }, to: &effects)
        }
    }

    /// Ends the operation with `error` if run `attempt` is still the current one.
    private func abort(attempt: UInt64, with error: NetOpsError) {
        withEffects { effects in
            guard isCurrent(attempt) else { return }
            apply({ $0.abort(error) }, to: &effects)
        }
    }

    /// Parks the operation in `lot` (nil: its session's) if it is working; true when it
    /// parked. Call with the lock held.
    @discardableResult
    func parkLocked(in lot: ParkingLot?, effects: inout Effects) -> Bool {
        guard !machine.isPostponed else { return false }
        storage.parkedIn = lot
        var parked = false
        apply(
            { machine in
                let action = machine.postpone()
                parked = action != .none
                return action
            }, to: &effects)
        if !parked { storage.parkedIn = nil }
        return parked
    }

    /// The operation's error for what a stage failed it with: a `NetOpsError` as it is (with
    /// the request's URL when it names none), any other error wrapped as `.rejected`.
    func operationError(_ error: any Error) -> NetOpsError {
        let url = withLock { currentURL }
        guard var own = error as? NetOpsError else { return NetOpsError(rejecting: error, url: url) }
        if own.url == nil { own.url = url }
        return own
    }

    /// Writes the multipart form the operation was made with to its body file, once, on the
    /// thread that starts the first transfer (outside the lock); the failure of the write, if any.
    private func writeDeferredForm() -> NetOpsError? {
        guard let form = deferredForm, let file = ownedBodyFile else { return nil }
        let first = withLock { () -> Bool in
            defer { storage.deferredFormWritten = true }
            return !storage.deferredFormWritten
        }
        guard first else { return nil }
        do {
            try form.write(to: file)
            return nil
        } catch {
            try? FileManager.default.removeItem(at: file)
            if let refused = error as? NetOpsError { return NetOpsError(refused.kind, url: currentURL) }
            return NetOpsError(.invalidBody(reason: "multipart body: \(error)"), url: currentURL)
        }
    }

    /// A byte of run `number` moved: if that is the run in progress, its idle deadline counts
    /// from now and the answer is where it resumed the body; nil for an event of a run that is
    /// over. Call with the lock held.
    func touchLocked(_ number: UInt64) -> Int64? {
        machine.updateRun { run -> Int64? in
            guard run.number == number else { return nil }
            run.lastActivity = .now()
            return run.requestedOffset
        } ?? nil
    }

    /// The current progress and the closures and delegate to tell. Call with the lock held.
    func progressReportLocked() -> ProgressReport {
        ProgressReport(progress: storage.progress, handlers: storage.listeners.progressHandlers, delegate: lockedDelegate)
    }

    // MARK: Events of the current transfer

    func attempt(_ attempt: UInt64, didReceive response: ResponseHead) {
        withEffects { effects in
            guard let requestedOffset = touchLocked(attempt) else { return }
            // A HEAD, 204 or 304 answer announces the length of a body it does not carry.
            let bodied = ContentDecoding.mayHaveBody(status: response.statusCode, method: try? storage.request.get().httpMethod)
            let announced = bodied ? response.expectedContentLength : nil
            do {
                let accepted = storage.settings.acceptableStatusCodes.contains(response.statusCode)
                sink.responseArrived(accepted: accepted)
                if sink is FileSink, !accepted {
                    // An error answer: its body, held in memory, says why; the partial file
                    // stays as it is for a retry to resume.
                    storage.response = response
                    storage.progress.totalBytesToReceive = announced
                } else if requestedOffset > 0, response.statusCode == 206,
                    let range = ContentRange(response), range.first == requestedOffset
                {
                    // The server continues where the suspension stopped.
                    storage.progress.totalBytesToReceive = range.total ?? announced.map { $0 + range.first }
                } else {
                    if sink.bytesKept > 0 {
                        // A full answer to a ranged request (the resource changed, or the server
                        // ignores ranges): start over so the result stays byte-identical.
                        effects.cleanUp(sink.reset())
                        storage.history.restartsFromZero += 1
                    }
                    _ = machine.updateRun { $0.requestedOffset = 0 }
                    storage.response = response
                    storage.progress.totalBytesToReceive = announced
                }
                if let tooLarge = bodyLimitErrorLocked(forLength: storage.progress.totalBytesToReceive ?? 0) {
                    apply({ $0.abort(tooLarge) }, to: &effects)
                    return
                }
                try sink.prepare(expectedLength: announced)
                storage.progress.bytesReceived = sink.bytesKept
            } catch {
                apply({ $0.abort(fileError(error)) }, to: &effects)
            }
        }
    }

    func attempt(_ attempt: UInt64, didReceive data: Data) {
        if let file = sink as? FileSink {
            self.attempt(attempt, didReceive: data, into: file)
            return
        }
        withEffects { effects in
            guard touchLocked(attempt) != nil else { return }
            if let tooLarge = bodyLimitErrorLocked(forLength: sink.bytesKept + Int64(data.count)) {
                apply({ $0.abort(tooLarge) }, to: &effects)
                return
            }
            do {
                try sink.append(data)
                storage.progress.bytesReceived = sink.bytesKept
                effects.progress = progressReportLocked()
            } catch let refused as NetOpsError {
                // A stream that cannot go on (`StreamSink`).
                apply({ $0.abort(NetOpsError(refused.kind, url: currentURL)) }, to: &effects)
            } catch {
                apply({ $0.abort(fileError(error)) }, to: &effects)
            }
        }
    }

    /// A chunk for a file: written outside the operation's lock (the sink refuses it when the
    /// transfer is no longer the one it admits), then counted under the lock if the transfer is
    /// still the current one.
    private func attempt(_ attempt: UInt64, didReceive data: Data, into file: FileSink) {
        let kept: Int64?
        do {
            kept = try file.write(data, of: attempt)
        } catch {
            withEffects { effects in
                guard isCurrent(attempt) else { return }
                apply({ $0.abort(fileError(error)) }, to: &effects)
            }
            return
        }
        guard let kept else { return }
        withEffects { effects in
            guard touchLocked(attempt) != nil else { return }
            storage.progress.bytesReceived = kept
            effects.progress = progressReportLocked()
        }
    }

    func attempt(_ attempt: UInt64, didSend sent: Int64, expected: Int64?) {
        withEffects { effects in
            guard touchLocked(attempt) != nil else { return }
            storage.progress.bytesSent = sent
            storage.progress.totalBytesToSend = expected
            effects.progress = progressReportLocked()
        }
    }

    func attempt(_ attempt: UInt64, didCompleteWith failure: TransferFailure?) {
        // The operation's own reading, taken under the lock …
        struct Outcome {
            let outcome: AttemptOutcome
            let chain: [any NetworkMiddleware]
            let context: MiddlewareContext
        }
        let taken = withLock { () -> Outcome? in
            guard isCurrent(attempt), let frozen = storage.frozen else { return nil }
            let resumedAt = machine.withRun { $0.requestedOffset } ?? 0
            let outcome = AttemptOutcome(
                request: storage.lastSentRequest ?? URLRequest(url: currentURL ?? Self.placeholderURL),
                head: storage.response,
                body: sink.bodyInMemory,
                error: failure.map(error(for:)) ?? verdictOnCompleteResponse(),
                bytesSent: storage.progress.bytesSent,
                bytesReceived: max(0, storage.progress.bytesReceived - resumedAt),
                retryWaited: storage.history.retryWaited,
                isReplayable: isReplayableLocked)
            let context = MiddlewareContext(operation: self, attempt: storage.history.attemptsMade, session: frozen.session)
            return Outcome(outcome: outcome, chain: frozen.chain, context: context)
        }
        guard let taken else { return }
        let outcome = taken.outcome
        // … then the chain's, innermost stage first, outside it …
        var verdict: Verdict = outcome.error.map { .fail($0) } ?? .accept
        for stage in taken.chain.reversed() {
            do { try stage.judge(outcome, verdict: &verdict, context: taken.context) } catch { verdict = .fail(error) }
        }
        // … and the verdict applied under the lock, if nothing overtook it meanwhile.
        let failure: NetOpsError? = verdict.failure.map(operationError)
        withEffects { effects in
            guard isCurrent(attempt) else { return }
            switch verdict {
            case let .park(lot):
                parkLocked(in: lot, effects: &effects)
            case let .retry(delay):
                scheduleRetryLocked(after: delay, effects: &effects)
            case .accept where outcome.error == nil || outcome.error?.httpStatus != nil:
                var committed: NetOpsError?
                do { try sink.commit() } catch { committed = fileError(error) }
                if committed != nil { effects.cleanUp(sink.discard()) }
                apply({ $0.transferFinished(failure: committed) }, to: &effects)
            case .accept, .fail:
                // An accept of an attempt that brought no whole response keeps its failure.
                let error = failure ?? outcome.error ?? NetOpsError(.connectionLost(reason: "no response"), url: currentURL)
                // A body that came with an unaccepted status, or that a stage refused, stays
                // readable in memory (it says why); partial files, and what a broken transfer
                // left, always go.
                let brokenTransfer = error == outcome.error && error.httpStatus == nil
                if sink is FileSink || brokenTransfer { effects.cleanUp(sink.discard()) }
                apply({ $0.transferFinished(failure: error) }, to: &effects)
            }
        }
    }

    /// Stands in for the URL of a request that has none (it never reaches an engine).
    private static let placeholderURL = URL(string: "http://invalid.invalid/")!

    /// The operation's judgement of a response that arrived without a transport error.
    private func verdictOnCompleteResponse() -> NetOpsError? {
        guard let response = storage.response else {
            return NetOpsError(.connectionLost(reason: "no response"), url: currentURL)
        }
        if let total = storage.progress.totalBytesToReceive, sink.bytesKept < total {
            return NetOpsError(.truncatedBody(expected: total, received: sink.bytesKept), url: currentURL)
        }
        guard storage.settings.acceptableStatusCodes.contains(response.statusCode) else {
            return NetOpsError(.httpStatus(response.statusCode), url: currentURL)
        }
        return nil
    }

    /// Translates an engine failure. Call with the lock held.
    private func error(for failure: TransferFailure) -> NetOpsError {
        let url = currentURL
        switch failure {
        case .cancelled:
            return NetOpsError(.cancelled, url: url)
        case .timedOut:
            return NetOpsError(.idleTimeout(seconds: storage.settings.idleTimeout), url: url)
        case let .cannotConnect(reason):
            return NetOpsError(.cannotConnect(reason: reason), url: url)
        case let .connectionLost(reason):
            if let total = storage.progress.totalBytesToReceive, sink.bytesKept < total {
                return NetOpsError(.truncatedBody(expected: total, received: sink.bytesKept), url: url)
            }
            return NetOpsError(.connectionLost(reason: reason), url: url)
        case let .tls(reason):
            return NetOpsError(.tls(reason: reason), url: url)
        case .unsupportedURL:
            return NetOpsError(.unsupportedScheme(url?.scheme ?? ""), url: url)
        case let .file(reason):
            return NetOpsError(.file(path: "", reason: reason), url: url)
        case let .other(code, reason):
            if let total = storage.progress.totalBytesToReceive, sink.bytesKept < total {
                return NetOpsError(.truncatedBody(expected: total, received: sink.bytesKept), url: url)
            }
            return NetOpsError(.transport(code: code, reason: reason), url: url)
        }
    }

    func fileError(_ error: any Error) -> NetOpsError {
        let path = ((error as NSError).userInfo[NSFilePathErrorKey] as? String) ?? ""
        return NetOpsError(.file(path: path, reason: (error as NSError).localizedDescription), url: currentURL)
    }

    /// A strong ETag, else Last-Modified: what `If-Range` may carry (RFC 9110 §13.1.5).
    static func rangeValidator(of response: ResponseHead) -> String? {
        if let etag = response.value(forHTTPHeaderField: "ETag"), !etag.hasPrefix("W/") { return etag }
        return response.value(forHTTPHeaderField: "Last-Modified")
    }
}

/// Forwards one transfer's events to its operation, tagged with the transfer's number so events
/// of a stopped transfer are recognised and ignored.
final class TransferAttempt: EngineEvents, @unchecked Sendable {
    let operation: BaseOperation
    let attempt: UInt64
    let redirectRules: RedirectRules
    let transport: TransportChoice

    init(operation: BaseOperation, attempt: UInt64, rules: RedirectRules = .standard, transport: TransportChoice = .standard) {
        self.operation = operation
        self.attempt = attempt
        self.redirectRules = rules
        self.transport = transport
    }

    func transferDidReceive(head: ResponseHead) {
        redirectRules.storeCookies(of: head)
        operation.attempt(attempt, didReceive: head)
    }

    func transferDidReceive(data: Data) {
        operation.attempt(attempt, didReceive: data)
    }

    func transferDidSend(sent: Int64, expected: Int64?) {
        operation.attempt(attempt, didSend: sent, expected: expected)
    }

    func transferDidComplete(failure: TransferFailure?) {
        operation.attempt(attempt, didCompleteWith: failure)
    }

    var bodyGoesToFile: Bool { operation.sink is FileSink }

    var bodyDemand: (any BodyDemand)? { (operation.sink as? StreamSink)?.buffer }

    var completesInPlace: Bool { operation.mayCompleteInPlace }

    var endRelay: EndRelay? { operation.endRelayIfNobodyBlocks }
}

/// A `Content-Range: bytes first-last/total` response header.
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var total: Int64?

    init?(_ response: ResponseHead) {
        guard let header = response.value(forHTTPHeaderField: "Content-Range") else { return nil }
        self.init(header)
    }

    init?(_ header: String) {
        let trimmed = header.trimmingHTTPWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), last >= first else { return nil }
        self.first = first
        self.last = last
        self.total = halves[1] == "*" ? nil : Int64(halves[1])
    }
}
