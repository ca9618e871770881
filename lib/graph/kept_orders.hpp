// The two topological orders of a graph version, kept once computed: the
// next call on the unchanged graph copies the ids (O(V), a few nanoseconds a
// vertex) instead of running Kahn's pass again, whose reads jump about
// memory on a large graph with names in random order (bench/README.md,
// "Orders of an unchanged graph are kept").
//
// Kept with what an order depends on, so a change that could alter it
// drops it too: with the snapshot for a graph without names (its topology
// decides), with the name ranks for a named one (a rename drops the ranks,
// a topology change the snapshot and with it the ranks).
#pragma once

#include <atomic>
#include <mutex>

#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"

namespace dag {

class KeptOrders {
public:
    // The order going dependencies first (`dependencies_first`) or
    // dependents first: computed by `compute()` on the first call (other
    // threads asking meanwhile wait for it), then the kept one. An
    // exception from `compute` (a cycle, no memory) propagates and keeps
    // nothing, so the next call computes again. A mutex, not
    // std::call_once: ThreadSanitizer's call_once never lets a flag whose
    // function threw be tried again (the next call hangs).
    template <class Compute>
    const HugeVector<VertexId> &get(bool dependencies_first, const Compute &compute) const {
        Slot &slot = slots_[dependencies_first ? 1 : 0];
        if (slot.done.load(std::memory_order_acquire)) return slot.ids;
        std::lock_guard<std::mutex> lk(slot.mu);
        if (!slot.done.load(std::memory_order_relaxed)) {
            slot.ids = compute();
            slot.done.store(true, std::memory_order_release);
        }
        return slot.ids;
    }

private:
    struct Slot {
        std::mutex mu;
        std::atomic<bool> done{false};
        HugeVector<VertexId> ids;
    };
    mutable Slot slots_[2];
};

}  // namespace dag
