import APILayer
import DemoServer
import Foundation
import NetOps

/// A thread that disturbs a chaos run until told to stop: it cancels, suspends and resumes
/// random live operations, cancels everything of an owner at once, and makes the token realm
/// expire its tokens, fail or hang for a moment.
final class ChaosAgitator: @unchecked Sendable {
    private let ledger: ChaosLedger
    private let owners: [ChaosOwner]
    private let authority: TokenAuthority
    private let stopped = NSCondition()
    private var stopRequested = false
    private var running = false
    private let seed: UInt64
    private var actions: [String: Int] = [:]

    /// Actions taken so far, by name.
    var actionCounts: [String: Int] { stopped.withLock { actions } }

    init(ledger: ChaosLedger, owners: [ChaosOwner], authority: TokenAuthority, seed: UInt64) {
        self.ledger = ledger
        self.owners = owners
        self.authority = authority
        self.seed = seed
    }

    /// Starts the thread.
    func start() {
        stopped.withLock { running = true }
        let thread = Thread { [self] in
            loop()
            stopped.withLock {
                running = false
                stopped.broadcast()
            }
        }
        thread.start()
    }

    /// Asks the thread to stop and waits until it did.
    func stop() {
        stopped.withLock {
            stopRequested = true
            while running { stopped.wait() }
        }
    }

    private var shouldStop: Bool { stopped.withLock { stopRequested } }

    private func loop() {
        var generator = SeededGenerator(seed: seed)
        while !shouldStop {
            usleep(UInt32(2_000 + generator.next() % 8_000))
            let roll = generator.next() % 1_000
            switch roll {
            case 0..<120:
                guard let operation = ledger.randomLive(using: &generator) else { continue }
                operation.cancel()
                count("cancel")
            case 120..<700:
                guard let operation = ledger.randomLive(using: &generator) as? BaseOperation else { continue }
                if operation.suspend() {
                    usleep(UInt32(generator.next() % 30_000))
                    operation.resume()
                    count("suspend-resume")
                } else {
                    // Not working (ready, parked or final): a stray resume must do nothing.
                    operation.resume()
                    count("stray-resume")
                }
            case 700..<720:
                let owner = owners[Int(generator.next() % UInt64(owners.count))]
                let cancelled = BaseOperation.cancelAllOperations(ownedBy: owner)
                count("owner-cancel")
                count("owner-cancelled-operations", by: cancelled)
            case 720..<730:
                authority.configure(mode: nil, delay: nil, lifetime: nil, maxUses: nil, expireAll: true)
                count("tokens-expired")
            case 730..<733:
                let mode: TokenAuthority.Mode = [.fail, .hang, .garbage][Int(generator.next() % 3)]
                authority.configure(mode: mode, delay: nil, lifetime: nil, maxUses: nil, expireAll: true)
                usleep(UInt32(100_000 + generator.next() % 400_000))
                authority.configure(mode: .normal, delay: nil, lifetime: nil, maxUses: nil, expireAll: false)
                count("refresh-\(mode.rawValue)")
            default:
                continue
            }
        }
    }

    private func count(_ action: String, by amount: Int = 1) {
        stopped.withLock { actions[action, default: 0] += amount }
    }
}
