import Foundation

/// The stage that tells a failure to connect apart from the network being down: every
/// operation's innermost stage, so every other one judges the failure as classified.
struct ConnectivityMiddleware: NetworkMiddleware {
    let monitor: ConnectivityMonitor?

    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        guard case let .fail(failure) = verdict, let error = failure as? NetOpsError, case .cannotConnect = error.kind else { return }
        verdict = .fail(BaseOperation.connectivityVerdict(on: error, monitor: monitor))
    }
}
