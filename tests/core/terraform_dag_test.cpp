// Every case of Terraform's internal/dag/dag_test.go except the two Walk
// cases, which exercise the parallel walker and are ported with it. Where
// Terraform accepts any of several answers, the expectation here is the one
// deterministic answer libdag gives.
#include <gtest/gtest.h>

#include <set>

#include "algo_test_support.hpp"
#include "algorithms/reachability.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/transitive_reduction.hpp"
#include "algorithms/traversal.hpp"
#include "algorithms/validate.hpp"

namespace dag {
namespace {

using test::error_of;
using test::NumberedGraph;

TEST(TerraformDag, AcyclicGraphRoot) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(3, 2);
    t.connect(3, 1);
    EXPECT_EQ(root(t.g), t.id(3));
}

TEST(TerraformDag, AcyclicGraphRootCycle) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect({{1, 2}, {2, 3}, {3, 1}});
    EXPECT_EQ(error_of(Errc::no_root, [&] { root(t.g); }), "no roots found");
}

TEST(TerraformDag, AcyclicGraphRootMultiple) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(3, 2);
    EXPECT_EQ(error_of(Errc::multiple_roots, [&] { root(t.g); }), "multiple roots: 1, 3");
}

TEST(TerraformDag, TransReduction) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect({{1, 2}, {1, 3}, {2, 3}});
    EXPECT_EQ(transitive_reduction(t.g), 1u);
    EXPECT_EQ(t.g.to_string(), "1\n  2\n2\n  3\n3\n");
}

TEST(TerraformDag, TransReductionMore) {
    NumberedGraph t;
    t.add_range(1, 4);
    t.connect({{1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}});
    EXPECT_EQ(transitive_reduction(t.g), 3u);
    EXPECT_EQ(t.g.to_string(), "1\n  2\n2\n  3\n3\n  4\n4\n");
}

TEST(TerraformDag, TransReductionMultipleRoots) {
    NumberedGraph t;
    t.add_range(1, 4);
    t.connect({{1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}});
    t.add_range(5, 8);
    t.connect({{5, 6}, {5, 7}, {5, 8}, {6, 7}, {6, 8}, {7, 8}});
    EXPECT_EQ(transitive_reduction(t.g), 6u);
    EXPECT_EQ(t.g.to_string(), "1\n  2\n2\n  3\n3\n  4\n4\n5\n  6\n6\n  7\n7\n  8\n8\n");
}

// Terraform connects 200 vertices every way (a cycle through all of them)
// and only checks that the reduction does not sort names. libdag refuses the
// cyclic graph and leaves it unchanged; the acyclic version (i -> j for
// i < j) reduces to the chain 0 -> 1 -> ... -> 199.
TEST(TerraformDag, TransReductionFullyConnected) {
    constexpr int count = 200;
    NumberedGraph cyclic;
    cyclic.add_range(0, count - 1);
    for (int i = 0; i < count; ++i)
        for (int j = 0; j < count; ++j)
            if (i != j) cyclic.connect(i, j);
    const std::size_t edges = cyclic.g.edge_count();
    std::string msg = error_of(Errc::cycle, [&] { transitive_reduction(cyclic.g); });
    EXPECT_EQ(msg.rfind("Cycle:\n  0\n  1\n  10\n  100\n", 0), 0u) << msg.substr(0, 40);
    EXPECT_EQ(cyclic.g.edge_count(), edges);

    NumberedGraph dag;
    dag.add_range(0, count - 1);
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j) dag.connect(i, j);
    EXPECT_EQ(transitive_reduction(dag.g), static_cast<std::size_t>(count * (count - 1) / 2 - (count - 1)));
    EXPECT_EQ(dag.g.edge_count(), static_cast<std::size_t>(count - 1));
    for (int i = 0; i + 1 < count; ++i) EXPECT_TRUE(dag.g.has_edge(dag.id(i), dag.id(i + 1)));
}

TEST(TerraformDag, AcyclicGraphValidate) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(3, 2);
    t.connect(3, 1);
    Validation v = validate(t.g, true);
    EXPECT_TRUE(v.ok()) << v.text();
}

TEST(TerraformDag, AcyclicGraphValidateCycle) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect({{3, 2}, {3, 1}, {1, 2}, {2, 1}});
    Validation v = validate(t.g, true);
    EXPECT_FALSE(v.ok());
    EXPECT_EQ(v.text(), "Cycle:\n  1\n  2");
    EXPECT_EQ(static_cast<int>(v.errc()), static_cast<int>(Errc::cycle));
    ASSERT_EQ(v.cycles.size(), 1u);
    EXPECT_EQ(v.cycles[0], t.ids({1, 2}));
}

TEST(TerraformDag, AcyclicGraphValidateCycleSelf) {
    NumberedGraph t;
    t.add_range(1, 2);
    t.connect(1, 1);
    Validation v = validate(t.g, true);
    EXPECT_EQ(v.text(), "Self reference: 1");
    EXPECT_EQ(v.self_references, t.ids({1}));
    EXPECT_TRUE(v.cycles.empty());
}

// Terraform's test connects 0 -> 1 without adding 0 (its graph tolerates
// that); here 0 is added first.
NumberedGraph ancestors_chain() {
    NumberedGraph t;
    t.add_range(0, 5);
    t.connect({{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
    return t;
}

TEST(TerraformDag, AcyclicGraphAncestors) {
    NumberedGraph t = ancestors_chain();
    EXPECT_EQ(ancestors(t.g, {t.id(2)}), t.ids({3, 4, 5}));
}

TEST(TerraformDag, AcyclicGraphDescendants) {
    NumberedGraph t = ancestors_chain();
    EXPECT_EQ(descendants(t.g, {t.id(2)}), t.ids({0, 1}));
}

TEST(TerraformDag, AcyclicGraphFindDescendants) {
    NumberedGraph t;
    t.add_range(0, 6);
    t.connect({{0, 1}, {1, 2}, {2, 6}, {3, 4}, {4, 5}, {5, 6}});
    auto odd = [&](VertexId v) { return t.number(v) % 2 != 0; };
    EXPECT_EQ(first_descendants_with(t.g, {t.id(6)}, odd), t.ids({1, 5}));
    EXPECT_TRUE(match_descendant(t.g, {t.id(6)}, [&](VertexId v) { return t.number(v) == 1; }));
    EXPECT_FALSE(match_descendant(t.g, {t.id(6)}, [&](VertexId v) { return t.number(v) == 6; }))
        << "6 is not a descendant of itself";
    EXPECT_FALSE(match_descendant(t.g, {t.id(6)}, [&](VertexId v) { return t.number(v) == 10; }));
}

TEST(TerraformDag, AcyclicGraphFindAncestors) {
    NumberedGraph t;
    t.add_range(0, 6);
    t.connect({{1, 0}, {2, 1}, {6, 2}, {4, 3}, {5, 4}, {6, 5}});
    auto odd = [&](VertexId v) { return t.number(v) % 2 != 0; };
    EXPECT_EQ(first_ancestors_with(t.g, {t.id(6)}, odd), t.ids({1, 5}));
    EXPECT_TRUE(match_ancestor(t.g, {t.id(6)}, [&](VertexId v) { return t.number(v) == 1; }));
    EXPECT_FALSE(match_ancestor(t.g, {t.id(6)}, [&](VertexId v) { return t.number(v) == 6; }));
    EXPECT_FALSE(match_ancestor(t.g, {t.id(6)}, [&](VertexId v) { return t.number(v) == 10; }));
}

/* Terraform's sample, all edges pointing downwards (from depends on to):
       1    2
      / \  /  \
     3    4    5
    /      \  /
   6         7
           / | \
          8  9  10
           \ | /
             11
*/
class TerraformWalkOrder : public ::testing::Test {
protected:
    void SetUp() override {
        t.add_range(1, 11);
        const int edges[][2] = {{1, 3}, {1, 4}, {2, 4},  {2, 5},  {3, 6},  {4, 7},  {5, 7},
                                {7, 8}, {7, 9}, {7, 10}, {8, 11}, {9, 11}, {10, 11}};
        for (const auto &e : edges) t.connect(e[0], e[1]);
    }

    std::vector<std::pair<int, std::size_t>> walk(std::initializer_list<int> start, bool bfs, bool reverse) {
        std::vector<std::pair<int, std::size_t>> visits;
        TraversalOptions opts;
        opts.breadth_first = bfs;
        opts.reverse = reverse;
        opts.sorted = true;
        traverse(t.g, t.ids(start), opts, [&](VertexId v, std::size_t d) {
            visits.emplace_back(t.number(v), d);
            return Visit::proceed;
        });
        return visits;
    }

    NumberedGraph t;
};

using Visits = std::vector<std::pair<int, std::size_t>>;

TEST_F(TerraformWalkOrder, DepthFirst) {
    EXPECT_EQ(walk({2, 1}, false, false),
              (Visits{{2, 0}, {5, 1}, {7, 2}, {9, 3}, {11, 4}, {8, 3}, {10, 3}, {4, 1}, {1, 0}, {3, 1}, {6, 2}}));
}

TEST_F(TerraformWalkOrder, ReverseDepthFirst) {
    EXPECT_EQ(walk({11, 6}, false, true),
              (Visits{{6, 0}, {3, 1}, {1, 2}, {11, 0}, {9, 1}, {7, 2}, {5, 3}, {2, 4}, {4, 3}, {8, 1}, {10, 1}}));
}

TEST_F(TerraformWalkOrder, BreadthFirst) {
    EXPECT_EQ(walk({2, 1}, true, false),
              (Visits{{1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 1}, {6, 2}, {7, 2}, {10, 3}, {8, 3}, {9, 3}, {11, 4}}));
}

TEST_F(TerraformWalkOrder, ReverseBreadthFirst) {
    EXPECT_EQ(walk({11, 6}, true, true),
              (Visits{{11, 0}, {6, 0}, {10, 1}, {8, 1}, {9, 1}, {3, 1}, {7, 2}, {1, 2}, {4, 3}, {5, 3}, {2, 4}}));
}

// Terraform checks only that each vertex follows what it must; libdag's
// order is also exact: free vertices are taken smallest name first.
TEST_F(TerraformWalkOrder, TopologicalOrder) {
    std::vector<VertexId> order = topological_order(t.g);
    EXPECT_EQ(order, t.ids({1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11}));
    std::set<VertexId> done;
    for (VertexId v : order) {
        for (VertexId dep : t.g.dependents(v)) EXPECT_TRUE(done.count(dep)) << t.g.display_name(v);
        done.insert(v);
    }
}

TEST_F(TerraformWalkOrder, ReverseTopologicalOrder) {
    std::vector<VertexId> order = reverse_topological_order(t.g);
    EXPECT_EQ(order, t.ids({11, 10, 6, 3, 8, 9, 7, 4, 1, 5, 2}));
    std::set<VertexId> done;
    for (VertexId v : order) {
        for (VertexId dep : t.g.dependencies(v)) EXPECT_TRUE(done.count(dep)) << t.g.display_name(v);
        done.insert(v);
    }
}

}  // namespace
}  // namespace dag
