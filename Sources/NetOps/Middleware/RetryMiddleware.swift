import Foundation

/// The stage of a retry policy: turns a failure the policy finds transient into a retry after
/// the policy's delay. An operation's chain has it when its policy (its own, else its session's)
/// allows more than one attempt, outside the interceptor's and the operation's own stages, so
/// a 401 they park or a response they refuse is never retried by it.
struct RetryMiddleware: NetworkMiddleware {
    let policy: RetryPolicy

    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        guard case let .fail(failure) = verdict, let error = failure as? NetOpsError else { return }
        var random = JitterRandom()
        if let delay = policy.delay(
            after: error, response: outcome.response, attemptsMade: context.attempt, waited: outcome.retryWaited,
            replayable: outcome.isReplayable, random: &random)
        {
            verdict = .retry(after: delay)
        }
    }
}
