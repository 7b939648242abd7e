// ThreadSanitizer asks for this function when the process starts (compiler-rt declares it weak);
// what it returns is read like a suppressions file. The test targets that run DemoServer depend
// on this target, so `swift test --sanitize=thread` needs no TSAN_OPTIONS. A binary built
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

#include "ThreadSanitizerSuppressions.h"

const char *__tsan_default_suppressions(void) {
    return "race:NIOPooledRecvBufferAllocatorV014_reuseExisting\n"
           "race:NIOPooledRecvBufferAllocator._reuseExistingBuffer\n";
}
