import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `OperationInterceptor` as a stage of the chain: its `adapt` prepares, its `judge` judges
/// a response that arrived, and its `.postpone` parks the operation in its session's lot.
@available(*, deprecated)
struct InterceptorMiddleware: NetworkMiddleware {
    let interceptor: any OperationInterceptor

    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        switch interceptor.adapt(request, for: context.operation) {
        case let .proceed(adapted):
            request = adapted
            return .proceed
        case .postpone:
            return .park(in: context.session.parkingLot)
        case let .fail(error):
            return .fail(error)
        }
    }

    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        // Only a response that arrived whole: a transport failure is the retry policy's.
        guard outcome.statusCode != nil, outcome.error == nil || outcome.error?.httpStatus != nil, let response = outcome.response else {
            return
        }
        switch interceptor.judge(response, body: outcome.body, for: context.operation) {
        case .useDefault:
            break
        case .postpone:
            verdict = .park(in: context.session.parkingLot)
        case let .retry(after):
            verdict = .retry(after: after)
        case let .fail(error):
            verdict = .fail(error)
        }
    }

    func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        interceptor.didPostpone(operation)
    }
}
