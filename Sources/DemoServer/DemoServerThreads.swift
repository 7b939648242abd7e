import NIOCore
import NIOPosix

/// Threads of a DemoServer's own: an event loop group for its connections and a task executor
/// for its handlers, so that a process which also runs clients (a test process, where a test may
/// block a thread of Swift's cooperative pool or of NIO's singleton loops for a while) cannot
/// leave the server without a thread to answer on.
public final class DemoServerThreads: TaskExecutor, Sendable {
    /// The event loops the server's channels run on.
    public let eventLoopGroup: MultiThreadedEventLoopGroup
    private let pool: NIOThreadPool

    /// Starts an event loop group of `threads` loops and `threads` executor threads. They live
    /// as long as the process, as the singletons they stand in for do.
    public init(threads: Int = 2) {
        eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Runs `job` on one of the executor's threads.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }
}
