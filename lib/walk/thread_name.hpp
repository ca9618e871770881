#pragma once
// Names the walker's own threads, so that `top -H`, gdb, perf and
// /proc/<pid>/task/<tid>/comm tell them from the host's threads.
#if defined(__linux__)
#include <pthread.h>
#endif

namespace dag::walk_detail {

// At most 15 characters (the kernel's limit). A host's thread_start hook,
// which runs after, may rename the thread.
inline void name_this_thread(const char *name) noexcept {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}

}  // namespace dag::walk_detail
