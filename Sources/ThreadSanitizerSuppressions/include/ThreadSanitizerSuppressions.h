#ifndef THREAD_SANITIZER_SUPPRESSIONS_H
#define THREAD_SANITIZER_SUPPRESSIONS_H

/// The suppressions ThreadSanitizer reads at start-up when this object is linked into a test
/// binary built with `--sanitize=thread`; see ThreadSanitizerSuppressions.c for each entry's reason.
const char *__tsan_default_suppressions(void);

#endif
