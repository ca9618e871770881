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

#include <mutex>

#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"

namespace dag {

class KeptOrders {
public:
    // The order going dependencies first (`dependencies_first`) or
    // dependents first: computed by `compute()` on the first call (other
    // threads asking meanwhile wait for it), then the kept one. An
    // exception from `compute` (a cycle) propagates and keeps nothing, so
    // the next call computes again.
    template <class Compute>
    const HugeVector<VertexId> &get(bool dependencies_first, const Compute &compute) const {
        Slot &slot = slots_[dependencies_first ? 1 : 0];
        std::call_once(slot.once, [&] { slot.ids = compute(); });
        return slot.ids;
    }

private:
    struct Slot {
        std::once_flag once;
        HugeVector<VertexId> ids;
    };
    mutable Slot slots_[2];
};

}  // namespace dag
