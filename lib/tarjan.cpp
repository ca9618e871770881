#include "tarjan.hpp"

#include <algorithm>

namespace dag {

namespace {

using Index = Snapshot::Index;

// Tarjan over slots 0..n-1; `neighbours(v)` gives an iterator pair over v's
// dependencies, and dead slots are skipped. Roots are tried in slot order.
template <class Alive, class Neighbours>
Components tarjan(Index n, Alive alive, Neighbours neighbours) {
    constexpr Index unvisited = Snapshot::npos;
    using Iter = decltype(neighbours(Index{0}).first);

    Components out;
    out.members.reserve(n);
    out.component_of.assign(n, unvisited);
    std::vector<Index> order(n, unvisited);  // discovery number
    std::vector<Index> low(n);
    std::vector<Index> stack;  // Tarjan's stack of open vertices
    // The explicit call stack: a vertex and where its edge scan stands,
    // replacing one native stack frame per level of recursion.
    struct Frame {
        Index v;
        Iter next, end;
    };
    std::vector<Frame> calls;
    Index counter = 0;

    auto open = [&](Index v) {
        order[v] = low[v] = counter++;
        stack.push_back(v);
        auto [first, last] = neighbours(v);
        calls.push_back({v, first, last});
    };

    for (Index root = 0; root < n; ++root) {
        if (order[root] != unvisited || !alive(root)) continue;
        open(root);
        while (!calls.empty()) {
            Frame &f = calls.back();
            const Index v = f.v;
            if (f.next != f.end) {
                const Index w = static_cast<Index>(*f.next);
                ++f.next;
                if (order[w] == unvisited)
                    open(w);  // invalidates f
                else if (out.component_of[w] == unvisited)
                    low[v] = std::min(low[v], order[w]);  // w is still open: on the stack
                continue;
            }
            if (low[v] == order[v]) {
                const Index c = static_cast<Index>(out.count());
                Index w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    out.component_of[w] = c;
                    out.members.push_back(w);
                } while (w != v);
                out.offsets.push_back(static_cast<Index>(out.members.size()));
            }
            calls.pop_back();
            if (!calls.empty()) {
                const Index parent = calls.back().v;
                low[parent] = std::min(low[parent], low[v]);
            }
        }
    }
    return out;
}

}  // namespace

Components strongly_connected(const Snapshot &s) {
    return tarjan(
        static_cast<Index>(s.size()), [](Index) { return true; },
        [&](Index v) { return std::make_pair(s.out_begin(v), s.out_end(v)); });
}

Components strongly_connected(const Graph &g) {
    const AdjacencyList &adj = g.adjacency();
    return tarjan(
        static_cast<Index>(g.index_bound()), [&](Index v) { return g.alive_index(v); },
        [&](Index v) { return boost::adjacent_vertices(v, adj); });
}

bool has_cycle(const Snapshot &s) {
    // Kahn's pass is cheaper than Tarjan when only a yes/no is needed; a
    // self edge keeps its vertex's in-degree above zero, so it counts too.
    const Index n = static_cast<Index>(s.size());
    std::vector<Index> indegree(n);
    std::vector<Index> ready;
    for (Index v = 0; v < n; ++v) {
        indegree[v] = s.in_degree(v);
        if (indegree[v] == 0) ready.push_back(v);
    }
    Index done = 0;
    while (!ready.empty()) {
        const Index v = ready.back();
        ready.pop_back();
        ++done;
        for (const Index *w = s.out_begin(v); w != s.out_end(v); ++w)
            if (--indegree[*w] == 0) ready.push_back(*w);
    }
    return done != n;
}

std::vector<std::vector<VertexId>> strongly_connected_components(const Graph &g) {
    const Components c = strongly_connected(g);
    std::vector<std::vector<VertexId>> out(c.count());
    for (std::size_t i = 0; i < c.count(); ++i)
        for (const Index *m = c.begin(i); m != c.end(i); ++m) out[i].push_back(Graph::id_of(*m));
    return out;
}

}  // namespace dag
