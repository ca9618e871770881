// Property tests over thousands of random graphs (fixed seed): every result
// is checked against a brute-force answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "algo_test_support.hpp"
#include "name_order.hpp"
#include "reachability.hpp"
#include "tarjan.hpp"
#include "topo_order.hpp"
#include "transitive_reduction.hpp"
#include "validate.hpp"

namespace dag {
namespace {

constexpr int graphs_per_property = 1000;

// A random graph of up to 24 vertices, some unnamed, some removed again (so
// ids have gaps). Acyclic graphs only get edges that go forward in a random
// permutation; the others get any edge, self edges included.
Graph random_graph(std::mt19937 &rng, bool acyclic) {
    Graph g;
    const int n = std::uniform_int_distribution<int>(0, 24)(rng);
    std::vector<VertexId> ids;
    for (int i = 0; i < n; ++i) {
        bool named = rng() % 4 != 0;
        ids.push_back(g.add_vertex(named ? std::optional<std::string>("v" + std::to_string(rng() % 1000) + "_" +
                                                                      std::to_string(i))
                                         : std::nullopt,
                                   nullptr));
    }
    std::shuffle(ids.begin(), ids.end(), rng);
    const double density = std::uniform_real_distribution<double>(0.0, 0.4)(rng);
    std::bernoulli_distribution edge(density);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (acyclic && i >= j) continue;
            if (!acyclic && i == j && rng() % 8 != 0) continue;
            if (edge(rng)) g.connect(ids[i], ids[j]);
        }
    for (int k = 0; k < n / 6; ++k) {
        VertexId victim = ids[rng() % ids.size()];
        if (g.has_vertex(victim)) g.remove_vertex(victim);
    }
    return g;
}

// reach[a] = every vertex reachable from a by one or more edges.
std::map<VertexId, std::set<VertexId>> closure(const Graph &g) {
    std::map<VertexId, std::set<VertexId>> reach;
    for (VertexId a : g.vertices()) {
        std::set<VertexId> &r = reach[a];
        std::vector<VertexId> stack = g.dependencies(a);
        while (!stack.empty()) {
            VertexId v = stack.back();
            stack.pop_back();
            if (!r.insert(v).second) continue;
            for (VertexId w : g.dependencies(v)) stack.push_back(w);
        }
    }
    return reach;
}

TEST(AlgorithmProperties, OrdersRespectEveryEdge) {
    std::mt19937 rng(1);
    for (int round = 0; round < graphs_per_property; ++round) {
        Graph g = random_graph(rng, true);
        const std::vector<VertexId> down = topological_order(g);
        const std::vector<VertexId> up = reverse_topological_order(g);
        ASSERT_EQ(down.size(), g.vertex_count());
        ASSERT_EQ(up.size(), g.vertex_count());
        std::map<VertexId, std::size_t> pd, pu;
        for (std::size_t i = 0; i < down.size(); ++i) pd[down[i]] = i;
        for (std::size_t i = 0; i < up.size(); ++i) pu[up[i]] = i;
        for (auto [a, b] : g.edges()) {
            EXPECT_LT(pd.at(a), pd.at(b)) << "dependent before dependency";
            EXPECT_LT(pu.at(b), pu.at(a)) << "dependency before dependent";
        }
        EXPECT_EQ(topological_order(g), down) << "deterministic";
    }
}

TEST(AlgorithmProperties, ReductionKeepsReachabilityAndIsMinimal) {
    std::mt19937 rng(2);
    for (int round = 0; round < graphs_per_property; ++round) {
        Graph g = random_graph(rng, true);
        const auto before = closure(g);
        const Snapshot s = freeze(g);
        // Fixed 64-column blocks give the same answer as the automatic width.
        const auto blocked = redundant_edges(s, 64);
        ASSERT_EQ(blocked, redundant_edges(s));
        const std::size_t edges = g.edge_count();
        EXPECT_EQ(transitive_reduction(g), blocked.size());
        EXPECT_EQ(g.edge_count(), edges - blocked.size());
        const auto after = closure(g);
        ASSERT_EQ(before, after);
        for (auto [a, b] : g.edges()) {
            // a -> b is needed: no other dependency of a reaches b.
            for (VertexId c : g.dependencies(a))
                if (c != b) {
                    EXPECT_FALSE(after.at(c).count(b)) << "edge is removable";
                }
        }
    }
}

TEST(AlgorithmProperties, ReductionOfWideGraphsSpansBlocks) {
    // More than 64 vertices, so 64-column blocks really split the matrix.
    std::mt19937 rng(3);
    for (int round = 0; round < 50; ++round) {
        Graph g;
        const int n = 70 + static_cast<int>(rng() % 80);
        for (int i = 0; i < n; ++i) g.add_vertex(std::nullopt, nullptr);
        for (int i = 1; i <= n; ++i)
            for (int k = 0; k < 3; ++k) {
                int j = i + 1 + static_cast<int>(rng() % 40);
                if (j <= n) g.connect(static_cast<VertexId>(i), static_cast<VertexId>(j));
            }
        const Snapshot s = freeze(g);
        const auto blocked = redundant_edges(s, 64);
        ASSERT_EQ(blocked, redundant_edges(s));
        const auto before = closure(g);
        transitive_reduction(g);
        ASSERT_EQ(before, closure(g));
        const auto after = closure(g);
        for (auto [a, b] : g.edges())
            for (VertexId c : g.dependencies(a))
                if (c != b) {
                    EXPECT_FALSE(after.at(c).count(b));
                }
    }
}

TEST(AlgorithmProperties, AncestorsAndDescendantsMatchBruteForce) {
    std::mt19937 rng(4);
    for (int round = 0; round < graphs_per_property; ++round) {
        Graph g = random_graph(rng, round % 2 == 0);
        const std::vector<VertexId> all = g.vertices();
        if (all.empty()) continue;
        const auto reach = closure(g);
        std::vector<VertexId> start;
        for (int k = 0, m = 1 + static_cast<int>(rng() % 3); k < m; ++k) start.push_back(all[rng() % all.size()]);

        std::set<VertexId> anc, desc;
        for (VertexId s : start) anc.insert(reach.at(s).begin(), reach.at(s).end());
        for (VertexId v : all)
            for (VertexId s : start)
                if (reach.at(v).count(s)) desc.insert(v);
        EXPECT_EQ(ancestors(g, start), std::vector<VertexId>(anc.begin(), anc.end()));
        EXPECT_EQ(descendants(g, start), std::vector<VertexId>(desc.begin(), desc.end()));

        const VertexId target = all[rng() % all.size()];
        auto is_target = [&](VertexId v) { return v == target; };
        EXPECT_EQ(match_ancestor(g, start, is_target), anc.count(target) == 1);
        EXPECT_EQ(match_descendant(g, start, is_target), desc.count(target) == 1);
    }
}

TEST(AlgorithmProperties, CyclesAreRealAndComplete) {
    std::mt19937 rng(5);
    for (int round = 0; round < graphs_per_property; ++round) {
        Graph g = random_graph(rng, false);
        const auto reach = closure(g);
        const Validation v = validate(g, false);

        std::set<VertexId> reported;
        for (const auto &cycle : v.cycles) {
            ASSERT_GE(cycle.size(), 2u);
            for (VertexId a : cycle)
                for (VertexId b : cycle) EXPECT_TRUE(reach.at(a).count(b)) << "not strongly connected";
            // Depth-first along dependencies: each vertex after the first
            // is a dependency of one listed before it.
            for (std::size_t i = 1; i < cycle.size(); ++i) {
                bool fed = false;
                for (std::size_t j = 0; j < i && !fed; ++j) fed = g.has_edge(cycle[j], cycle[i]);
                EXPECT_TRUE(fed);
            }
            for (VertexId a : cycle) EXPECT_TRUE(reported.insert(a).second) << "vertex in two cycles";
        }
        std::vector<VertexId> selfs;
        for (VertexId a : g.vertices()) {
            bool on_cycle = false;
            for (VertexId b : reach.at(a)) on_cycle |= b != a && reach.at(b).count(a);
            EXPECT_EQ(on_cycle, reported.count(a) == 1) << "every vertex on a cycle is reported";
            if (g.has_edge(a, a)) selfs.push_back(a);
        }
        // As printed: an unnamed vertex's id is its name there.
        std::sort(selfs.begin(), selfs.end(), [&](VertexId a, VertexId b) {
            return std::make_pair(g.display_name(a), a) < std::make_pair(g.display_name(b), b);
        });
        EXPECT_EQ(v.self_references, selfs);
        EXPECT_EQ(v.messages.size(), v.cycles.size() + v.self_references.size());
        EXPECT_EQ(cycle_report(g), v.text());

        const bool cyclic = !v.cycles.empty() || !v.self_references.empty();
        if (cyclic) {
            EXPECT_THROW(topological_order(g), Error);
            const std::size_t edges = g.edge_count();
            EXPECT_THROW(transitive_reduction(g), Error);
            EXPECT_EQ(g.edge_count(), edges) << "refused reduction leaves the graph unchanged";
        } else {
            EXPECT_EQ(topological_order(g).size(), g.vertex_count());
        }
    }
}

}  // namespace
}  // namespace dag
