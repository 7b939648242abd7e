import Dispatch
import Foundation
import Synchronization

/// The threads a DemoServer's tasks run on: serial dispatch queues of its own, used in turn.
///
/// Without them the server's request handlers are jobs of Swift's cooperative pool, which has
/// one thread per core. A process that embeds the server — the test process above all, where
/// hundreds of tests start at once and some compute for seconds — queues the handlers behind its
/// own jobs: a request waited 3 s for its answer on a loaded two-core machine. A custom serial
/// queue gets a thread of its own whenever it has work, so the server's tasks share the cores
/// through the kernel's scheduler instead of waiting in the pool's queue.
///
/// One set for the process, shared by its servers, alive as long as the process: a task keeps
/// only an unowned reference to the executor it prefers.
final class ServerThreads: TaskExecutor {
    /// The process's server threads: one queue per core.
    static let shared = ServerThreads(count: ProcessInfo.processInfo.activeProcessorCount)

    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)

    /// Marks the queues, so code can tell it runs on one of them.
    private static let mark = DispatchSpecificKey<Bool>()

    /// - Parameter count: How many serial queues take the server's jobs, in turn.
    init(count: Int) {
        queues = (0..<max(count, 1)).map { index in
            let queue = DispatchQueue(label: "DemoServer.\(index)")
            queue.setSpecific(key: Self.mark, value: true)
            return queue
        }
    }

    /// True on the server's threads, while they run one of its jobs.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: mark) ?? false }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let turn = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let executor = asUnownedTaskExecutor()
        queues[turn % queues.count].async {
            job.runSynchronously(on: executor)
        }
    }
}
