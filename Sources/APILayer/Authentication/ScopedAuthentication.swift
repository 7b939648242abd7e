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
///
/// Unless the scope allows it (`APIScope.Configuration.allowsInsecureTransport`), a request that
/// would carry the token to a host other than loopback over `http://`, or over TLS that verifies
/// nothing or accepts versions older than TLS 1.2, fails before anything is sent.
struct ScopedAuthentication: NetworkMiddleware {
    let coordinator: AuthenticationCoordinator
    let placement: TokenPlacement
    let origins: Set<Origin>
    /// Whether the token may go over cleartext or weak TLS to hosts other than loopback.
    var allowsInsecureTransport = false

    /// True when `url` belongs to one of the API's origins.
    func mayCarryToken(_ url: URL?) -> Bool {
        guard let url, let origin = Origin(url) else { return false }
        return origins.contains(origin)
    }

    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        guard mayCarryToken(request.url) else { return .proceed }
        if !allowsInsecureTransport, let refusal = Self.insecureTransport(of: request.url, context: context) {
            return .fail(NetOpsError(.invalidRequest(reason: refusal), url: request.url))
        }
        return coordinator.placeToken(in: &request, for: context.operation, placement: placement)
    }

    /// Why the token cannot go to `url` the way the operation would send it, or nil.
    static func insecureTransport(of url: URL?, context: MiddlewareContext) -> String? {
        guard let url, !Loopback.contains(host: url.host) else { return nil }
        let host = url.host ?? "the host"
        let optIn = "set APIScope.Configuration.allowsInsecureTransport in code to allow it"
        guard url.scheme?.lowercased() == "https" else {
            return "the API's token would go to \(host) over cleartext http, where it can be read on the way; use https, or \(optIn)"
        }
        let tls = context.operation.tlsSettings ?? context.session.engine.defaultTLS
        if !tls.verifiesCertificates {
            return "the API's token would go to \(host) over TLS that verifies no certificate (insecureWithoutVerification): "
                + "anyone on the way could read it; \(optIn)"
        }
        if tls.minimumVersion < .tls12 {
            return "the API's token would go to \(host) over TLS that accepts \(tls.minimumVersion) (minimumVersion): "
                + "use TLS 1.2 or newer, or \(optIn)"
        }
        return nil
    }

    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        // Only a response that arrived whole, from one of the API's origins.
        guard let status = outcome.statusCode, outcome.error == nil || outcome.error?.httpStatus != nil else { return }
        guard mayCarryToken(outcome.request.url), mayCarryToken(outcome.url ?? outcome.request.url) else { return }
        if let decided = coordinator.judgeCredential(status: status, url: outcome.url, body: outcome.body, for: context.operation) {
            verdict = decided
        }
    }

    func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        coordinator.operationDidPark(operation, in: lot)
    }
}
