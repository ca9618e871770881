#include "algorithms/traversal.hpp"

#include <algorithm>
#include <deque>

#include "graph/name_order.hpp"

namespace dag {

void check_vertices(const Graph &g, const std::vector<VertexId> &ids) {
    for (VertexId id : ids) g.checked(id);
}

bool traverse(const Graph &g, const std::vector<VertexId> &start, TraversalOptions options,
              const Visitor &visit) {
    check_vertices(g, start);
    struct Visiting {
        const Graph &g;
        explicit Visiting(const Graph &graph) : g(graph) { g.begin_visit(); }
        ~Visiting() { g.end_visit(); }
    } visiting(g);
    const AdjacencyList &adj = g.adjacency();
    const ReverseList &rev = g.reverse_adjacency();

    struct Entry {
        VertexId id;
        std::size_t depth;
    };
    // A deque serves as the stack (take from the back) and the queue (take
    // from the front) alike.
    std::deque<Entry> frontier;
    std::vector<char> seen(g.index_bound(), 0);
    std::vector<VertexId> batch;

    auto push_batch = [&](std::size_t depth) {
        if (options.sorted) std::sort(batch.begin(), batch.end(), NameLess{g});
        for (VertexId id : batch) frontier.push_back({id, depth});
    };

    // Duplicates would change which copy a depth-first walk takes first;
    // keeping each id's first occurrence makes the start a true set.
    for (VertexId id : start) {
        Vertex v = Graph::index_of(id);
        if (seen[v]) continue;
        seen[v] = 1;
        batch.push_back(id);
    }
    for (VertexId id : batch) seen[Graph::index_of(id)] = 0;
    push_batch(0);
    while (!frontier.empty()) {
        Entry cur;
        if (options.breadth_first) {
            cur = frontier.front();
            frontier.pop_front();
        } else {
            cur = frontier.back();
            frontier.pop_back();
        }
        const Vertex v = Graph::index_of(cur.id);
        if (seen[v]) continue;
        seen[v] = 1;

        const Visit what = visit(cur.id, cur.depth);
        if (what == Visit::stop) return false;
        if (what == Visit::skip) continue;

        batch.clear();
        if (options.reverse) {
            for (auto [it, end] = boost::adjacent_vertices(v, rev); it != end; ++it)
                batch.push_back(Graph::id_of(*it));
        } else {
            for (auto [it, end] = boost::adjacent_vertices(v, adj); it != end; ++it)
                batch.push_back(Graph::id_of(*it));
        }
        if (!options.sorted) std::sort(batch.begin(), batch.end());
        push_batch(cur.depth + 1);
    }
    return true;
}

}  // namespace dag
