// ThreadSanitizer asks for this function when the process starts (compiler-rt declares it weak);
// what it returns is read like a suppressions file. The test targets that run DemoServer depend
// on this target, and so does the `apilayer` tool, whose `demo` (DemoServer inside) the tests run
// as a child process: `swift test --sanitize=thread` needs no TSAN_OPTIONS. A binary built
// without ThreadSanitizer never calls it.
//
// Each entry suppresses one known false positive in a dependency, never a race in this
// project's own code.
//
// NIOPooledRecvBufferAllocator._reuseExistingBuffer (swift-nio): a channel reads into a pooled
// buffer again once `isKnownUniquelyReferenced` says no one else holds it. When a Hummingbird
// handler of DemoServer read a request body chunk on a concurrency thread and dropped it, the
// event loop's reuse looks unordered to TSan, because the ordering is carried by the Swift
// runtime's reference count, whose atomics are not instrumented. Reported upstream as
// apple/swift-nio#303 (and #2322). The report names the pool's reuse in one of its stacks
// (a `realloc`, or the socket `read` into the reused bytes): mangled, as llvm-symbolizer prints
// it (`Buffer` in `_reuseExistingBuffer` becomes a substitution), and demangled.
//
// MergeStorage (swift-async-algorithms): Hummingbird's date cache ticks once a second through
// swift-service-lifecycle's `cancelOnGracefulShutdown()`, a `merge` of its timer and DemoServer's
// shutdown signal. `MergeStorage.next()` resumes its upstream tasks' continuations; TSan
// then reports the resumed task's frame writing the word `UnsafeContinuation.resume` read, as a
// race. The hand-off goes through the concurrency runtime's atomics, which TSan does not see:
// swiftlang/swift#57803. The report names MergeStorage in the resuming stack (mangled, as
// llvm-symbolizer prints it, and demangled).

#include "ThreadSanitizerSuppressions.h"

const char *__tsan_default_suppressions(void) {
    return "race:NIOPooledRecvBufferAllocatorV014_reuseExisting\n"
           "race:NIOPooledRecvBufferAllocator._reuseExistingBuffer\n"
           "race:AsyncAlgorithms12MergeStorage\n"
           "race:AsyncAlgorithms.MergeStorage\n";
}
