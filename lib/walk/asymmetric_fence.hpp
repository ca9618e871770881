// A fence split in two halves of very different cost, for a protocol where
// one side runs per vertex and the other rarely (walk_executor.hpp,
// "Sections"): the frequent side pays a compiler barrier, the rare side makes
// every thread of the process execute a full memory barrier through Linux's
// membarrier(2). Together they order a store before a later load on both
// sides, as two full fences would.
#pragma once

#include <atomic>

namespace dag {

// True when heavy_fence() works here (Linux 4.14 or later, not forbidden by
// a seccomp filter, and not a ThreadSanitizer build, whose model of memory
// does not know membarrier). Decided once per process.
bool asymmetric_fence_available() noexcept;

// The frequent side. Only valid together with heavy_fence() on the other.
inline void light_fence() noexcept { std::atomic_signal_fence(std::memory_order_seq_cst); }

// The rare side: returns once every running thread of the process has
// executed a full barrier. Precondition: asymmetric_fence_available().
void heavy_fence() noexcept;

}  // namespace dag
