// Queries of an unchanged graph share one snapshot: the first one freezes the
// graph and caches the snapshot on it (Graph::cache_snapshot), later queries
// and walks read that one until a mutation drops it.
//
// Only an acyclic snapshot is ever cached, because the walker takes a cached
// snapshot as already checked for cycles: a query caches its fresh snapshot
// only once it has found the graph acyclic on the way, and a cached one tells
// a query the graph is acyclic without looking.
#pragma once

#include <memory>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {

struct SharedSnapshot {
    std::shared_ptr<const Snapshot> snapshot;
    bool cached = false;  // taken from the graph's cache, so acyclic

    const Snapshot &operator*() const noexcept { return *snapshot; }
    const Snapshot *operator->() const noexcept { return snapshot.get(); }
};

// The graph's cached snapshot, or a fresh freeze(g).
inline SharedSnapshot shared_snapshot(const Graph &g) {
    if (std::shared_ptr<const Snapshot> s = g.cached_snapshot()) return {std::move(s), true};
    return {std::make_shared<const Snapshot>(freeze(g)), false};
}

// Caches a fresh snapshot the caller has found acyclic. Const queries may run
// concurrently: the cache is guarded, and racing queries cache equal
// snapshots of the same unchanged graph.
inline void share_if_acyclic(const Graph &g, const SharedSnapshot &s, bool acyclic) {
    if (acyclic && !s.cached) g.cache_snapshot(s.snapshot);
}

}  // namespace dag
