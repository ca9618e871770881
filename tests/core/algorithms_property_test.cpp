// Property tests over thousands of random graphs (fixed seed): every result
// is checked against a brute-force answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include "algo_test_support.hpp"
#include "graph/name_order.hpp"
#include "graph/shared_snapshot.hpp"
#include "algorithms/reachability.hpp"
#include "algorithms/tarjan.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/transitive_reduction.hpp"
#include "algorithms/validate.hpp"

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
    return Graph(g);  // Graph cannot be moved (it holds locks); copy out
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

// The documented tie-break (topo_order.hpp, name_order.hpp, dag.h): names
// compare bytewise (as unsigned bytes), an unnamed vertex counts as having
// the empty name, then the smaller id goes first.
bool tie_less(const Graph &g, VertexId a, VertexId b) {
    const std::optional<std::string_view> na = g.name(a);
    const std::optional<std::string_view> nb = g.name(b);
    const std::string ka(na.value_or("")), kb(nb.value_or(""));
    auto byte_less = [](char x, char y) { return static_cast<unsigned char>(x) < static_cast<unsigned char>(y); };
    if (std::lexicographical_compare(ka.begin(), ka.end(), kb.begin(), kb.end(), byte_less)) return true;
    if (std::lexicographical_compare(kb.begin(), kb.end(), ka.begin(), ka.end(), byte_less)) return false;
    return a < b;
}

// Plain Kahn's algorithm: among the vertices free now, a std::set ordered
// by tie_less hands out the smallest. dependents_first frees a vertex once
// every dependent is out (TopologicalOrder); otherwise once every dependency
// is out (ReverseTopologicalOrder, execution order).
std::vector<VertexId> reference_order(const Graph &g, bool dependents_first) {
    auto less = [&g](VertexId a, VertexId b) { return tie_less(g, a, b); };
    std::set<VertexId, decltype(less)> free(less);
    std::map<VertexId, std::size_t> waiting;
    for (VertexId v : g.vertices()) {
        waiting[v] = (dependents_first ? g.dependents(v) : g.dependencies(v)).size();
        if (waiting[v] == 0) free.insert(v);
    }
    std::vector<VertexId> out;
    while (!free.empty()) {
        const VertexId v = *free.begin();
        free.erase(free.begin());
        out.push_back(v);
        for (VertexId w : dependents_first ? g.dependencies(v) : g.dependents(v))
            if (--waiting.at(w) == 0) free.insert(w);
    }
    EXPECT_EQ(out.size(), g.vertex_count()) << "reference: acyclic graphs only";
    return out;
}

// Names whose bytewise order differs from a naive one: prefixes, upper case
// before lower case, digits as text ("10" < "2"), and multi-byte UTF-8
// (bytes above 0x7f, after every ASCII name).
const char *const tricky_names[] = {"a",  "ab", "aa", "b",  "B",  "Z",         "_",           "~",
                                    "10", "2",  "9",  "0",  "a0", "\xc3\xa9", "\xe2\x82\xac", "\xc3\xa9x"};

// Renames about a third of the live vertices: to a tricky name when free,
// else unnamed; so graphs end up unnamed, named or anything between.
void shuffle_names(Graph &g, std::mt19937 &rng) {
    for (VertexId v : g.vertices()) {
        if (rng() % 3 != 0) continue;
        const char *name = tricky_names[rng() % std::size(tricky_names)];
        if (rng() % 4 == 0 || g.has_name(name))
            g.set_name(v, std::nullopt);
        else
            g.set_name(v, std::string_view(name));
    }
}

// A sparse acyclic graph of `n` vertices (edges go from a smaller to a larger
// position of a random permutation), named in `mode`: 0 none, 1 all, 2 some;
// a few vertices are removed again.
Graph wide_acyclic_graph(std::mt19937 &rng, int n, int mode) {
    Graph g;
    std::vector<VertexId> ids;
    for (int i = 0; i < n; ++i) {
        const bool named = mode == 1 || (mode == 2 && rng() % 2 == 0);
        ids.push_back(g.add_vertex(named ? std::optional<std::string>("w" + std::to_string(rng() % 100000) + "." +
                                                                      std::to_string(i))
                                         : std::nullopt,
                                   nullptr));
    }
    std::shuffle(ids.begin(), ids.end(), rng);
    for (int i = 0; i + 1 < n; ++i)
        for (int k = 0, m = static_cast<int>(rng() % 4); k < m; ++k) {
            const int j = i + 1 + static_cast<int>(rng() % std::min(n - i - 1, 50));
            if (!g.has_edge(ids[i], ids[j])) g.connect(ids[i], ids[j]);
        }
    for (int k = 0; k < n / 10; ++k) {
        const VertexId victim = ids[rng() % ids.size()];
        if (g.has_vertex(victim)) g.remove_vertex(victim);
    }
    return Graph(g);
}

void expect_reference_orders(const Graph &g, const char *what, int round) {
    const std::string graph = g.vertex_count() <= 30 ? g.to_string() : "(large)";
    ASSERT_EQ(topological_order(g), reference_order(g, true)) << what << ", round " << round << "\n" << graph;
    ASSERT_EQ(reverse_topological_order(g), reference_order(g, false)) << what << ", round " << round << "\n" << graph;
}

// Terraform-like names: a long shared prefix, then parts that differ at and
// around the 8-byte chunks the name sort reads, some above 0x7f.
std::string address(std::mt19937 &rng) {
    static const char *const prefixes[] = {"module.app.aws_instance.", "module.app.aws_instance.web", "module.app.",
                                           "module.app.aws_instance.web\xc3\xa9", "m"};
    static const char *const parts[] = {"0", "1", "9", "a", "z", ".", "[", "]", "\xc3\xa9"};
    std::string s = prefixes[rng() % std::size(prefixes)];
    for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n; ++i) s += parts[rng() % std::size(parts)];
    return s;
}

// One graph kept across many orders, changed a little between them (the name
// order's merge path) and now and then a lot (its full sort): each order must
// equal the reference that sorts names afresh.
TEST(AlgorithmProperties, OrdersStayExactAcrossRenamesRemovalsAndReadds) {
    std::mt19937 rng(21);
    for (int graph = 0; graph < 6; ++graph) {
        Graph g = wide_acyclic_graph(rng, 300 + graph * 250, graph % 3);
        for (int round = 0; round < 40; ++round) {
            const int changes = round % 13 == 12 ? 1500 : static_cast<int>(rng() % 6);
            for (int k = 0; k < changes; ++k) {
                const std::vector<VertexId> live = g.vertices();
                const VertexId v = live[rng() % live.size()];
                switch (rng() % 5) {
                case 0:
                case 1: {
                    const std::string name = address(rng);
                    if (!g.has_name(name)) g.set_name(v, std::string_view(name));
                    break;
                }
                case 2:
                    g.set_name(v, std::nullopt);
                    break;
                case 3:
                    if (live.size() > 2) g.remove_vertex(v);
                    break;
                default: {
                    // A new vertex depending on existing ones stays acyclic;
                    // now and then it takes a name just given up.
                    std::optional<std::string> name;
                    if (const auto old = g.name(v); old && rng() % 2 == 0) {
                        name = std::string(*old);
                        g.set_name(v, std::nullopt);
                    } else if (rng() % 3 != 0) {
                        name = address(rng);
                        if (g.has_name(*name)) name.reset();
                    }
                    const VertexId added = g.add_vertex(name, nullptr);
                    g.connect(added, v);
                }
                }
            }
            ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "kept graph", graph * 100 + round));
        }
    }
}

// Graphs only added to between orders: new vertices (unnamed, tricky or
// Terraform-like names) depending on old ones and on each other, a few or
// dozens at once, and edges between old vertices, mostly agreeing with the
// order: each order, extended from the kept one where it can be
// (order_extension.hpp), must equal the reference. The extension must be taken, not only the
// computation from scratch: an extended order leaves the snapshot unmade.
TEST(AlgorithmProperties, OrdersAfterAddsEqualTheReference) {
    std::mt19937 rng(1221);
    int extended = 0, orders = 0;
    for (int graph = 0; graph < 9; ++graph) {
        Graph g = wide_acyclic_graph(rng, 60 + graph * 90, graph % 3);
        topological_order(g);
        reverse_topological_order(g);
        for (int round = 0; round < 30; ++round) {
            const std::vector<VertexId> before = g.vertices();
            const std::vector<VertexId> order = reverse_topological_order(g);
            std::vector<VertexId> fresh;
            // Now and then many at once: they share places and order among
            // themselves by key.
            const int adds = round % 5 == 4 ? 20 + static_cast<int>(rng() % 20) : static_cast<int>(rng() % 4);
            for (int k = 0; k < adds; ++k) {
                std::optional<std::string> name;
                if (graph % 3 != 0 && rng() % 4 != 0)
                    name = rng() % 2 ? address(rng) : std::string(tricky_names[rng() % std::size(tricky_names)]);
                if (name && g.has_name(*name)) name.reset();
                const VertexId v = g.add_vertex(name, nullptr);
                for (int d = 0, deps = static_cast<int>(rng() % 4); d < deps; ++d) {
                    if (!fresh.empty() && rng() % 10 < 3)
                        g.connect(v, fresh[rng() % fresh.size()]);
                    else
                        g.connect(v, before[rng() % before.size()]);
                }
                fresh.push_back(v);
            }
            for (int k = 0, m = static_cast<int>(rng() % 3); k < m; ++k) {
                // Later in execution order depends on earlier: acyclic.
                std::size_t i = rng() % order.size(), j = rng() % order.size();
                if (i == j) continue;
                if (i < j) std::swap(i, j);
                g.connect(order[i], order[j]);
            }
            const std::string shape = g.vertex_count() <= 30 ? g.to_string() : "(large)";
            for (const bool dependents_first : {round % 2 == 0, round % 2 != 0}) {
                const bool unmade = g.cached_snapshot() == nullptr;
                const std::vector<VertexId> got = dependents_first ? topological_order(g) : reverse_topological_order(g);
                ++orders;
                if (unmade && g.cached_snapshot() == nullptr) ++extended;
                ASSERT_EQ(got, reference_order(g, dependents_first))
                    << "graph " << graph << ", round " << round << (dependents_first ? ", dependents first" : "")
                    << "\n" << shape;
            }
        }
    }
    EXPECT_GT(extended, orders / 3) << extended << " of " << orders << " orders extended";
}

bool ranks_are_identity(const Graph &g) {
    const SharedSnapshot s = shared_snapshot(g);
    return name_ranks(g, *s)->identity;
}

// A graph whose vertices were added in name order (as an import of a DOT
// file libdag wrote adds them) orders on its snapshot's own rows, with
// no renumbering: the orders must still be the reference's, and a change that
// puts a name out of order must end the shortcut.
TEST(AlgorithmProperties, GraphsAddedInNameOrderOrderAsTheReferenceDoes) {
    std::mt19937 rng(1221);
    for (int round = 0; round < 60; ++round) {
        const int n = 1 + static_cast<int>(rng() % (round < 50 ? 60 : 3000));
        std::vector<std::string> names;
        for (int i = 0; i < n; ++i) names.push_back(address(rng) + "#" + std::to_string(i));
        std::sort(names.begin(), names.end());
        Graph g;
        // Unnamed vertices rank first, so a few added first keep the shortcut.
        const int unnamed = round % 3 == 0 ? static_cast<int>(rng() % 4) : 0;
        std::vector<VertexId> ids;
        for (int i = 0; i < unnamed; ++i) ids.push_back(g.add_vertex(std::nullopt, nullptr));
        for (const std::string &name : names) ids.push_back(g.add_vertex(std::string_view(name), nullptr));
        std::vector<VertexId> order = ids;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i = 0; i + 1 < order.size(); ++i)
            for (int k = 0, m = static_cast<int>(rng() % 4); k < m; ++k) {
                const std::size_t j = i + 1 + rng() % (order.size() - i - 1);
                if (!g.has_edge(order[i], order[j])) g.connect(order[i], order[j]);
            }
        // Removing vertices keeps the rest in name order.
        if (round % 4 == 1 && ids.size() > 2) g.remove_vertex(ids[rng() % ids.size()]);
        ASSERT_TRUE(ranks_are_identity(g)) << "round " << round;
        ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "added in name order", round));

        // Out of order: the first named vertex renamed past every other name,
        // or an unnamed vertex added after the named ones.
        std::vector<VertexId> named;
        for (std::size_t i = static_cast<std::size_t>(unnamed); i < ids.size(); ++i)
            if (g.has_vertex(ids[i])) named.push_back(ids[i]);
        bool out_of_order = false;
        if (round % 2 == 0 && named.size() > 1) {
            g.set_name(named.front(), std::string_view("\xe2\x82\xac last"));
            out_of_order = true;
        } else {
            const VertexId late = g.add_vertex(std::nullopt, nullptr);
            if (!named.empty()) g.connect(late, named.back());
            out_of_order = !named.empty();
        }
        ASSERT_EQ(ranks_are_identity(g), !out_of_order) << "round " << round;
        ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "then out of order", round));
    }
}

TEST(AlgorithmProperties, OrdersMatchReferenceKahnWithNameThenIdTies) {
    std::mt19937 rng(6);
    for (int round = 0; round < graphs_per_property; ++round) {
        Graph g = random_graph(rng, true);
        if (round % 5 == 0) shuffle_names(g, rng);
        ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "random", round));
        // The orders above cached a snapshot; renames must not reuse its ties.
        shuffle_names(g, rng);
        ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "renamed", round));
    }
    // Over 64 and over 4096 vertices: the rank queue's bitmaps get more levels.
    for (int round = 0; round < 30; ++round) {
        const int n = round == 0 ? 5000 : 65 + static_cast<int>(rng() % 300);
        Graph g = wide_acyclic_graph(rng, n, round % 3);
        ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "wide", round));
        if (round % 2 == 0) {
            shuffle_names(g, rng);
            ASSERT_NO_FATAL_FAILURE(expect_reference_orders(g, "wide renamed", round));
        }
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

// Large and wide enough that the cycle check's queue holds many vertices
// and runs ahead of the one it handles (it prefetches up to a dozen entries
// ahead): a short path and one edge back along it make the only cycle, and
// taking that edge away again leaves none.
TEST(AlgorithmProperties, OneEdgeBackInALargeGraphIsFound) {
    std::mt19937 rng(11);
    for (int round = 0; round < 20; ++round) {
        Graph g;
        const int n = 3000;
        std::vector<VertexId> ids;
        for (int i = 0; i < n; ++i) ids.push_back(g.add_vertex(std::nullopt, nullptr));
        std::shuffle(ids.begin(), ids.end(), rng);
        // Edges only forward in the shuffled order, so every vertex on the
        // cycle lies between its two ends in that order.
        for (int k = 0; k < 3 * n; ++k) {
            const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
            if (a < b) g.connect(ids[a], ids[b]);
        }
        const int to = static_cast<int>(rng() % (n - 60)), from = to + 2 + static_cast<int>(rng() % 50);
        for (int i = to; i < from; ++i) g.connect(ids[i], ids[i + 1]);
        // The check's own answer first (a walk's and a reduction's): a cycle
        // seen where there is none would refuse the graph.
        EXPECT_FALSE(has_cycle(freeze(g)));
        EXPECT_NO_THROW(require_acyclic(g, freeze(g)));
        EXPECT_TRUE(validate(g, false).cycles.empty());
        g.connect(ids[from], ids[to]);
        EXPECT_TRUE(has_cycle(freeze(g)));
        const Validation v = validate(g, false);
        ASSERT_EQ(v.cycles.size(), 1u);
        EXPECT_EQ(v.cycles[0].size(), static_cast<std::size_t>(from - to + 1));
        g.disconnect(ids[from], ids[to]);
        EXPECT_FALSE(has_cycle(freeze(g)));
        EXPECT_TRUE(validate(g, false).cycles.empty());
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
