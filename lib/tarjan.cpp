#include "tarjan.hpp"

#include <algorithm>

namespace dag {

Components strongly_connected(const Snapshot &s) {
    using Index = Snapshot::Index;
    constexpr Index unvisited = Snapshot::npos;
    const Index n = static_cast<Index>(s.size());

    Components out;
    out.members.reserve(n);
    out.component_of.assign(n, unvisited);
    std::vector<Index> order(n, unvisited);  // discovery number
    std::vector<Index> low(n);
    std::vector<Index> stack;  // Tarjan's stack of open vertices
    // The explicit call stack: a vertex and the position of the next edge
    // to follow, replacing one native stack frame per level of recursion.
    struct Frame {
        Index v;
        Index edge;
    };
    std::vector<Frame> calls;
    Index counter = 0;

    for (Index root = 0; root < n; ++root) {
        if (order[root] != unvisited) continue;
        order[root] = low[root] = counter++;
        stack.push_back(root);
        calls.push_back({root, s.out_offsets[root]});
        while (!calls.empty()) {
            Frame &f = calls.back();
            const Index v = f.v;
            if (f.edge < s.out_offsets[v + 1]) {
                const Index w = s.out_targets[f.edge++];
                if (order[w] == unvisited) {
                    order[w] = low[w] = counter++;
                    stack.push_back(w);
                    calls.push_back({w, s.out_offsets[w]});  // invalidates f
                } else if (out.component_of[w] == unvisited) {
                    // w is still on Tarjan's stack: it has no component yet.
                    low[v] = std::min(low[v], order[w]);
                }
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
                Index parent = calls.back().v;
                low[parent] = std::min(low[parent], low[v]);
            }
        }
    }
    return out;
}

bool has_cycle(const Snapshot &s) {
    using Index = Snapshot::Index;
    for (Index v = 0; v < s.size(); ++v)
        if (std::binary_search(s.out_begin(v), s.out_end(v), v)) return true;
    // Kahn's pass is cheaper than Tarjan when only a yes/no is needed.
    const Index n = static_cast<Index>(s.size());
    std::vector<Index> indegree(n);
    std::vector<Index> ready;
    for (Index v = 0; v < n; ++v) {
        indegree[v] = s.in_degree(v);
        if (indegree[v] == 0) ready.push_back(v);
    }
    Index done = 0;
    while (!ready.empty()) {
        Index v = ready.back();
        ready.pop_back();
        ++done;
        for (const Index *w = s.out_begin(v); w != s.out_end(v); ++w)
            if (--indegree[*w] == 0) ready.push_back(*w);
    }
    return done != n;
}

std::vector<std::vector<VertexId>> strongly_connected_components(const Graph &g) {
    const Snapshot s = freeze(g);
    const Components c = strongly_connected(s);
    std::vector<std::vector<VertexId>> out(c.count());
    for (std::size_t i = 0; i < c.count(); ++i)
        for (const auto *m = c.begin(i); m != c.end(i); ++m) out[i].push_back(s.ids[*m]);
    return out;
}

}  // namespace dag
