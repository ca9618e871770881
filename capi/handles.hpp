// What the opaque C handles are on the inside. Handles only wrap core
// objects; no graph logic lives here.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dag/dag.h"
#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"

struct dag_graph {
    dag::Graph graph;
    // The caller's handle plus every root walk of the graph whose handle is
    // not freed yet: a walk handle uses its graph until dag_walk_free, which
    // may come after dag_free. The last holder deletes the graph.
    std::atomic<std::size_t> holders{1};
};

namespace dag::capi {

// Drops one hold on `g` (NULL allowed), deleting it with the last.
inline void release_graph(dag_graph *g) noexcept {
    if (g && g->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete g;
}

// release_graph as a unique_ptr's deleter: a graph handle others may hold too.
struct ReleaseGraph {
    void operator()(dag_graph *g) const noexcept { release_graph(g); }
};

// One hold on a graph, from take() for as long as the object holding it
// lives.
class GraphHold {
public:
    GraphHold() = default;
    void take(dag_graph *g) noexcept {
        g->holders.fetch_add(1, std::memory_order_relaxed);
        g_ = g;
    }
    GraphHold(const GraphHold &) = delete;
    GraphHold &operator=(const GraphHold &) = delete;
    ~GraphHold() { release_graph(g_); }

private:
    dag_graph *g_ = nullptr;
};

}  // namespace dag::capi

struct dag_error {
    dag_status status;
    std::string message;
};

struct dag_ids {
    std::vector<std::uint64_t> values;
    // Used instead of `values` for a copy of an array the library keeps (an
    // order): on huge pages, so an order of 10^7 vertices handed out again
    // faults 40 pages in rather than 19,532 (bench/README.md).
    dag::HugeVector<std::uint64_t> large;

    const std::uint64_t *data() const noexcept { return large.empty() ? values.data() : large.data(); }
    std::size_t size() const noexcept { return large.empty() ? values.size() : large.size(); }
};
