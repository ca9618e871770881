// Cheap invariants of the algorithms, checked on the small graphs the
// program harness builds.
#pragma once

#include "fuzz_check.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace fuzz {

// Every vertex each vertex reaches by its dependencies.
inline std::map<uint64_t, std::set<uint64_t>> reachability(const dag_graph *g) {
    std::map<uint64_t, std::set<uint64_t>> next;
    const auto e = edges(g);
    for (size_t i = 0; i + 1 < e.size(); i += 2) next[e[i]].insert(e[i + 1]);
    std::map<uint64_t, std::set<uint64_t>> reach;
    for (uint64_t v : vertices(g)) {
        std::vector<uint64_t> stack(next[v].begin(), next[v].end());
        auto &r = reach[v];
        while (!stack.empty()) {
            const uint64_t u = stack.back();
            stack.pop_back();
            if (!r.insert(u).second) continue;
            stack.insert(stack.end(), next[u].begin(), next[u].end());
        }
    }
    return reach;
}

inline bool has_self_edge(const dag_graph *g) {
    const auto e = edges(g);
    for (size_t i = 0; i + 1 < e.size(); i += 2)
        if (e[i] == e[i + 1]) return true;
    return false;
}

// The documented order, computed here per call: Kahn's algorithm taking,
// among the free vertices, unnamed ones first by id, then the bytewise
// smallest name, then the smallest id. A kept order (dag.h: an order of an
// unchanged graph is kept) that outlived a rename, say, differs from it.
inline std::vector<uint64_t> reference_order(const dag_graph *g, bool reverse) {
    const auto pairs = edges(g);
    std::map<uint64_t, std::vector<uint64_t>> next;
    std::map<uint64_t, size_t> waiting;
    for (uint64_t v : vertices(g)) waiting[v] = 0;
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        // Dependents first: an edge's source (the dependent) frees its target.
        const uint64_t first = reverse ? pairs[i + 1] : pairs[i], then = reverse ? pairs[i] : pairs[i + 1];
        next[first].push_back(then);
        ++waiting[then];
    }
    using Key = std::tuple<bool, std::string, uint64_t>;
    auto key = [&](uint64_t v) {
        const char *name = name_of(g, v);
        return Key{name != nullptr, name ? name : "", v};
    };
    std::set<Key> free;
    for (const auto &[v, n] : waiting)
        if (n == 0) free.insert(key(v));
    std::vector<uint64_t> order;
    while (!free.empty()) {
        const uint64_t v = std::get<2>(*free.begin());
        free.erase(free.begin());
        order.push_back(v);
        for (uint64_t w : next[v])
            if (--waiting[w] == 0) free.insert(key(w));
    }
    return order;
}

// dag_topological_order (dependents first) or its reverse: a permutation of
// the vertices that puts every edge's two ends in the promised order, given
// exactly when the graph has neither a cycle nor a self reference, with the
// documented tie-break.
inline void check_order(const dag_graph *g, bool reverse) {
    dag_ids *ids = nullptr;
    const dag_status st = reverse ? FUZZ_CALL(dag_reverse_topological_order(g, &ids, &e))
                                  : FUZZ_CALL(dag_topological_order(g, &ids, &e));
    dag_id_lists *cycles = nullptr;
    require(FUZZ_CALL(dag_cycles(g, &cycles, &e)) == DAG_OK, "dag_cycles");
    const bool acyclic = dag_id_lists_count(cycles) == 0 && !has_self_edge(g);
    dag_id_lists_free(cycles);
    require((st == DAG_OK) == acyclic, "order given for a cyclic graph, or refused for a DAG");
    if (st != DAG_OK) return;
    const auto order = take(ids);
    std::map<uint64_t, size_t> pos;
    for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
    require(pos.size() == order.size() && order.size() == dag_vertex_count(g),
            "order is not a permutation of the vertices");
    const auto e = edges(g);
    for (size_t i = 0; i + 1 < e.size(); i += 2) {
        const bool dependent_first = pos.at(e[i]) < pos.at(e[i + 1]);
        require(dependent_first != reverse, "order breaks an edge");
    }
    require(order == reference_order(g, reverse), "order differs from the documented tie-break");
}

// dag_validate's result: its status, messages joined into its text, one
// message per problem; its cycles are dag_cycles' and its self references
// the graph's self edges; DAG_E_CYCLE exactly when there is either.
inline void check_validation(const dag_graph *g, dag_status st, const dag_validation *v) {
    require(dag_validation_status(v) == st, "validation's status differs from dag_validate's");
    const size_t messages = dag_validation_message_count(v);
    require((st == DAG_OK) == (messages == 0), "a valid graph with messages, or problems without");
    std::string joined;
    for (size_t i = 0; i < messages; ++i) {
        const char *m = dag_validation_message(v, i);
        require(m != nullptr && *m != '\0', "validation message missing");
        joined += (i == 0 ? "" : "\n") + std::string(m);
    }
    require(dag_validation_message(v, messages) == nullptr, "a message past the last");
    const char *text = dag_validation_text(v);
    require(text != nullptr && joined == text, "validation text is not its messages joined", joined);

    dag_id_lists *cycles = nullptr;
    require(FUZZ_CALL(dag_cycles(g, &cycles, &e)) == DAG_OK, "dag_cycles");
    const size_t cycle_count = dag_validation_cycle_count(v);
    require(cycle_count == dag_id_lists_count(cycles), "validation's cycles are not dag_cycles'");
    for (size_t i = 0; i < cycle_count; ++i) {
        size_t n = 0, m = 0;
        const uint64_t *c = dag_validation_cycle(v, i, &n);
        const uint64_t *d = dag_id_lists_get(cycles, i, &m);
        require(c != nullptr && n >= 2, "a cycle of fewer than two vertices");
        require(n == m && std::equal(c, c + n, d), "validation's cycle differs from dag_cycles'");
        for (size_t j = 0; j < n; ++j) require(dag_has_vertex(g, c[j]) == 1, "cycle names a stranger");
    }
    dag_id_lists_free(cycles);

    size_t self_count = 0;
    const uint64_t *self = dag_validation_self_references(v, &self_count);
    std::set<uint64_t> self_edges;
    const auto e = edges(g);
    for (size_t i = 0; i + 1 < e.size(); i += 2)
        if (e[i] == e[i + 1]) self_edges.insert(e[i]);
    require(std::set<uint64_t>(self, self + self_count) == self_edges && self_count == self_edges.size(),
            "validation's self references are not the self edges");
    require(messages >= cycle_count + self_count, "fewer messages than problems");
    require((st == DAG_E_CYCLE) == (cycle_count + self_count > 0), "DAG_E_CYCLE and the cycles disagree");
}

// Transitive reduction of a DAG keeps what reaches what, and only removes.
inline void check_reduction(dag_graph *g) {
    const auto before = reachability(g);
    const auto edges_before = edges(g);
    size_t removed = 0;
    const dag_status st = FUZZ_CALL(dag_transitive_reduction(g, &removed, &e));
    if (st != DAG_OK) return;
    const auto after_edges = edges(g);
    require(after_edges.size() + 2 * removed == edges_before.size(), "reduction's count is wrong");
    for (size_t i = 0; i + 1 < after_edges.size(); i += 2) {
        bool kept = false;
        for (size_t j = 0; j + 1 < edges_before.size() && !kept; j += 2)
            kept = edges_before[j] == after_edges[i] && edges_before[j + 1] == after_edges[i + 1];
        require(kept, "reduction added an edge");
    }
    require(reachability(g) == before, "reduction changed reachability");
}

}  // namespace fuzz
