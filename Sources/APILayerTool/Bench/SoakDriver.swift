import APILayer
import Dispatch
import Foundation
import NetOps

/// Makes the calls of a soak run through `APIScope.soak`: `concurrency` tasks that each call one
/// after another, half of the calls awaited with `run()`, half started and awaited with
/// `finished()`; the calls `SoakMix` marks are cancelled, or suspended and resumed, from a
/// timer a few milliseconds after they were made (before they start, while parked, in flight
/// or as they end).
final class SoakDriver: Sendable {
    let ledger: SoakLedger
    let cancelPerMille: Int
    let suspendPerMille: Int
    private let disturbed = Locked((cancels: 0, suspensions: 0))

    init(ledger: SoakLedger, cancelPerMille: Int, suspendPerMille: Int) {
        self.ledger = ledger
        self.cancelPerMille = cancelPerMille
        self.suspendPerMille = suspendPerMille
    }

    /// Calls cancelled, and calls suspended (`suspend()` returned true) and resumed, so far.
    var disturbances: (cancels: Int, suspensions: Int) { disturbed.withLock { $0 } }

    /// Makes calls `range` with `concurrency` in flight and waits until every one ended and its
    /// waiter returned; false when nothing ended for `stallLimit` seconds first.
    func run(_ range: Range<Int>, concurrency: Int, stallLimit: Double) async -> Bool {
        let next = Locked(range.lowerBound)
        let done = Locked(false)
        Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        while let index = next.withLock({ index -> Int? in
                            guard index < range.upperBound else { return nil }
                            index += 1
                            return index - 1
                        }) {
                            await self.call(index)
                        }
                    }
                }
            }
            done.withLock { $0 = true }
        }
        var last = ledger.progress
        var lastChange = ContinuousClock.now
        while !done.withLock({ $0 }) {
            try? await Task.sleep(for: .milliseconds(50))
            let now = ledger.progress
            if now != last {
                last = now
                lastChange = .now
            } else if ContinuousClock.now - lastChange > .seconds(stallLimit) {
                return false
            }
        }
        return true
    }

    private func call(_ index: Int) async {
        let plan = SoakMix.call(index, cancelShare: cancelPerMille, suspendShare: suspendPerMille)
        switch plan.method {
        case .page:
            await drive(APIManager.operation(SoakAPI.page, properties: plan.properties, as: HTTPBench.IssuePage.self), index, plan)
        case .shared:
            await drive(APIManager.operation(SoakAPI.shared, properties: plan.properties, as: SoakModels.Shared.self), index, plan)
        case .flaky, .limited, .unavailable:
            await drive(APIManager.operation(plan.method, properties: plan.properties, as: SoakModels.Ack.self), index, plan)
        }
    }

    private func drive<Model>(_ operation: APIOperation<Model>, _ index: Int, _ plan: SoakMix.Call) async {
        let ledger = ledger
        ledger.started(index, operation)
        (operation as BaseOperation).onCompletion { ledger.ended(index, $0) }
        let disturbed = disturbed
        if plan.cancels {
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(plan.disturbAfter)) {
                operation.cancel()
                disturbed.withLock { $0.cancels += 1 }
            }
        } else if plan.suspends {
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(plan.disturbAfter)) {
                guard operation.suspend() else { return }
                disturbed.withLock { $0.suspensions += 1 }
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(plan.resumeAfter)) {
                    _ = operation.resume()
                }
            }
        }
        if plan.awaitsRun {
            _ = try? await operation.run()
        } else {
            operation.start()
            await operation.finished()
        }
        ledger.returned(index)
    }
}
