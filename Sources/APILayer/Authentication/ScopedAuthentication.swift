import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The interceptor of an operation an API scope made: the API's coordinator, where the method
/// wants the token, and the origins allowed to receive it.
///
/// A request to any other origin goes without the token, and a refusal from another origin
/// (after a redirect, say) says nothing about the API's token: it is not parked and starts no
/// refresh.
struct ScopedAuthentication: OperationInterceptor {
    let coordinator: AuthenticationCoordinator
    let placement: TokenPlacement
    let origins: Set<APIOrigin>

    /// True when `url` belongs to one of the API's origins.
    func mayCarryToken(_ url: URL?) -> Bool {
        guard let url, let origin = APIOrigin(url) else { return false }
        return origins.contains(origin)
    }

    func adapt(_ request: URLRequest, for operation: BaseOperation) -> RequestDecision {
        guard mayCarryToken(request.url) else { return .proceed(request) }
        return coordinator.adapt(request, for: operation, placement: placement)
    }

    func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision {
        guard mayCarryToken(operation.request?.url), mayCarryToken(response.url ?? operation.request?.url) else {
            return .useDefault
        }
        return coordinator.judgeCredential(response, body: body, for: operation)
    }

    func didPostpone(_ operation: BaseOperation) {
        coordinator.didPostpone(operation)
    }
}
