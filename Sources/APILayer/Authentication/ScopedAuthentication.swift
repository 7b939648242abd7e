import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The authentication stage of an operation an API scope made: the API's coordinator, where
/// the method wants the token, and the origins allowed to receive it.
///
/// A request to any other origin goes without the token, and a refusal from another origin
/// (after a redirect, say) says nothing about the API's token: it is not parked and starts no
/// refresh.
struct ScopedAuthentication: NetworkMiddleware {
    let coordinator: AuthenticationCoordinator
    let placement: TokenPlacement
    let origins: Set<APIOrigin>

    /// True when `url` belongs to one of the API's origins.
    func mayCarryToken(_ url: URL?) -> Bool {
        guard let url, let origin = APIOrigin(url) else { return false }
        return origins.contains(origin)
    }

    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        guard mayCarryToken(request.url) else { return .proceed }
        return coordinator.stage(coordinator.adapt(request, for: context.operation, placement: placement), request: &request)
    }

    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        // Only a response that arrived whole, from one of the API's origins.
        guard let status = outcome.statusCode, outcome.error == nil || outcome.error?.httpStatus != nil else { return }
        guard mayCarryToken(outcome.request.url), mayCarryToken(outcome.url ?? outcome.request.url) else { return }
        coordinator.stage(
            coordinator.judgeCredential(status: status, url: outcome.url, body: outcome.body, for: context.operation), verdict: &verdict)
    }

    func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        coordinator.operationDidPark(operation, in: lot)
    }
}
