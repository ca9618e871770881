// Locks a mutex that is held only briefly by trying it for a while before
// sleeping on it. A ranked walk's workers all exchange vertices with its
// queue under one lock, held a microsecond or two at a time; asleep in the
// kernel, a worker that found it taken paid the futex wait and its owner the
// wake, several microseconds each on a virtual machine, for every batch.
#pragma once

#include <mutex>

namespace dag::walk_detail {

inline void lock_spinning(std::mutex &mu) {
    // 64 tries, each a locked compare-and-swap and a pause: a few
    // microseconds where a pause is long (recent Intel cores, about as long
    // as the lock is usually held), less where it is short, and 64 tries
    // back to back where there is no pause instruction.
    for (int i = 0; i < 64; ++i) {
        if (mu.try_lock()) return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    mu.lock();
}

}  // namespace dag::walk_detail
