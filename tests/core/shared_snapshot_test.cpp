// Queries share the snapshot cached on the graph (shared_snapshot.hpp): they
// reuse it while the graph is unchanged, never answer from a stale one after
// a mutation, cache only acyclic ones (the walker relies on that), and may
// run concurrently on one graph.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "algo_test_support.hpp"
#include "algorithms/tarjan.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/transitive_reduction.hpp"
#include "algorithms/validate.hpp"
#include "walk/walker.hpp"

namespace dag {
namespace {

using test::component_lists;
using test::error_of;

Outcome ok_body(void *, Walk &, VertexId, const char **) { return Outcome::ok; }

// a -> b -> c, ids 1, 2, 3.
void abc(Graph &g) {
    for (const char *name : {"a", "b", "c"}) g.add_vertex(name, nullptr);
    g.connect(1, 2);
    g.connect(2, 3);
}

TEST(SharedSnapshot, AnAcyclicQueryCachesAndTheNextReusesIt) {
    Graph g;
    abc(g);
    ASSERT_EQ(g.cached_snapshot(), nullptr);
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 2, 3}));
    const std::shared_ptr<const Snapshot> first = g.cached_snapshot();
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{3, 2, 1}));
    EXPECT_EQ(component_lists(g), (std::vector<std::vector<VertexId>>{{3}, {2}, {1}}));
    EXPECT_TRUE(validate(g, true).ok());
    EXPECT_EQ(cycle_report(g), "");
    EXPECT_EQ(g.cached_snapshot(), first) << "the same snapshot served every query";
}

TEST(SharedSnapshot, EveryQueryOfAnAcyclicGraphCaches) {
    const std::vector<std::function<void(const Graph &)>> queries = {
        [](const Graph &g) { topological_order(g); },
        [](const Graph &g) { reverse_topological_order(g); },
        [](const Graph &g) { strongly_connected_components(g); },
        [](const Graph &g) { validate(g, false); },
        [](const Graph &g) { cycle_report(g); },
    };
    for (const auto &query : queries) {
        Graph g;
        abc(g);
        query(g);
        EXPECT_NE(g.cached_snapshot(), nullptr);
    }
}

TEST(SharedSnapshot, ResultsFollowEveryKindOfMutation) {
    Graph g;
    abc(g);
    topological_order(g);
    g.disconnect(2, 3);
    g.connect(3, 2);  // a -> b <- c
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 3, 2}));
    const VertexId d = g.add_vertex("0", nullptr);
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{d, 1, 3, 2})) << "a new vertex, first by name";
    g.set_name(d, "z");
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 3, 2, d})) << "renamed: ties by the new name";
    g.remove_vertex(3);
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 2, d}));
    EXPECT_EQ(component_lists(g), (std::vector<std::vector<VertexId>>{{2}, {1}, {d}}));
}

// Names are not in the snapshot: a rename keeps it, including the first name
// given in an unnamed graph and the last one taken away.
TEST(SharedSnapshot, ARenameKeepsTheSnapshotAndOrdersFollowTheNewNames) {
    Graph g;
    for (int i = 0; i < 3; ++i) g.add_vertex(std::nullopt, nullptr);  // three roots, ids 1, 2, 3
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 2, 3}));
    const std::shared_ptr<const Snapshot> first = g.cached_snapshot();
    ASSERT_NE(first, nullptr);
    g.set_name(1, "b");
    EXPECT_EQ(g.cached_snapshot(), first);
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{2, 3, 1})) << "unnamed (the empty name) first";
    g.set_name(2, "a");
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{3, 2, 1}));
    g.set_name(1, std::nullopt);
    g.set_name(2, std::nullopt);
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 2, 3})) << "unnamed again: ties by id";
    EXPECT_EQ(g.cached_snapshot(), first);
    g.connect(1, 2);
    EXPECT_NE(g.cached_snapshot(), first) << "an edge does drop it";
}

TEST(SharedSnapshot, ACycleAddedAfterACachedQueryIsFound) {
    Graph g;
    abc(g);
    EXPECT_TRUE(validate(g, true).ok());
    g.connect(3, 1);
    EXPECT_EQ(error_of(Errc::cycle, [&] { topological_order(g); }), "Cycle:\n  a\n  b\n  c");
    EXPECT_EQ(component_lists(g), (std::vector<std::vector<VertexId>>{{3, 2, 1}}));
    EXPECT_EQ(validate(g, false).cycles, (std::vector<std::vector<VertexId>>{{1, 2, 3}}));
    EXPECT_EQ(cycle_report(g), "Cycle:\n  a\n  b\n  c");
    EXPECT_EQ(error_of(Errc::cycle, [&] { transitive_reduction(g); }), "Cycle:\n  a\n  b\n  c");
}

TEST(SharedSnapshot, NoQueryCachesACyclicGraphSoTheWalkerStillRefusesIt) {
    Graph g;
    abc(g);
    g.connect(3, 3);  // only a self reference
    EXPECT_THROW(topological_order(g), Error);
    EXPECT_EQ(strongly_connected_components(g).count(), 3u);
    EXPECT_FALSE(validate(g, false).ok());
    EXPECT_NE(cycle_report(g), "");
    EXPECT_EQ(g.cached_snapshot(), nullptr);
    EXPECT_EQ(error_of(Errc::cycle, [&] { Walk::start(g, Visitor{ok_body, nullptr}, WalkOptions{}, nullptr); }),
              "Self reference: c");
}

TEST(SharedSnapshot, TheWalkerRefusesACycleAddedAfterACachedQuery) {
    Graph g;
    abc(g);
    topological_order(g);
    g.connect(3, 1);
    EXPECT_EQ(error_of(Errc::cycle, [&] { Walk::start(g, Visitor{ok_body, nullptr}, WalkOptions{}, nullptr); }),
              "Cycle:\n  a\n  b\n  c");
}

// Tarjan follows edges in the order they were added, warm or cold, as it
// did before queries shared snapshots: a -> c is added before a -> b.
TEST(SharedSnapshot, ComponentsFollowEdgesInTheOrderTheyWereAdded) {
    Graph g;
    for (const char *name : {"a", "b", "c"}) g.add_vertex(name, nullptr);
    g.connect(1, 3);
    g.connect(1, 2);
    const std::vector<std::vector<VertexId>> expected{{3}, {2}, {1}};
    EXPECT_EQ(component_lists(g), expected) << "cold";
    ASSERT_NE(g.cached_snapshot(), nullptr);
    EXPECT_EQ(component_lists(g), expected) << "warm";
}

// Four threads at a time run `queries` (given the thread's number; true when
// every answer is the expected one) on `g` with nothing cached, 20 times.
template <class Queries>
void expect_racing_queries_agree(Graph &g, const Queries &queries) {
    for (int round = 0; round < 20; ++round) {
        g.cache_snapshot(nullptr);
        std::vector<std::thread> threads;
        std::vector<int> good(4, 0);
        for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { good[t] = queries(t); });
        for (auto &th : threads) th.join();
        EXPECT_EQ(good, std::vector<int>(4, 1)) << "round " << round;
    }
}

// Const queries may run concurrently (DESIGN.md section 4, rule 9): several
// threads race to freeze and cache the same graph, then read the cache.
TEST(SharedSnapshot, ConcurrentQueriesAgree) {
    Graph g;
    const VertexId n = 2000;
    for (VertexId i = 0; i < n; ++i) g.add_vertex(std::nullopt, nullptr);
    for (VertexId i = 1; i < n; ++i) {
        g.connect(i, i + 1);
        if (i * 7 % n + 1 > i) g.connect(i, i * 7 % n + 1);
    }
    const std::vector<VertexId> order = topological_order(g);
    const std::vector<std::vector<VertexId>> components = component_lists(g);
    expect_racing_queries_agree(g, [&](int) {
        return topological_order(g) == order && component_lists(g) == components && validate(g, false).ok() &&
               cycle_report(g).empty();
    });
}

// The same for a named graph, the two directions at once: each order
// renumbers the neighbour lists it reads the first time it needs them, and
// threads racing to do that for both must each see whole lists.
TEST(SharedSnapshot, ConcurrentOrdersOfANamedGraphAgree) {
    Graph g;
    const VertexId n = 2000;
    for (VertexId i = 0; i < n; ++i) g.add_vertex("module.m" + std::to_string(i * 7919 % n), nullptr);
    for (VertexId i = 1; i < n; ++i) {
        g.connect(i, i + 1);
        if (i * 7 % n + 1 > i) g.connect(i, i * 7 % n + 1);
    }
    const std::vector<VertexId> down = topological_order(g);
    const std::vector<VertexId> up = reverse_topological_order(g);
    expect_racing_queries_agree(g, [&](int t) {
        return t % 2 ? reverse_topological_order(g) == up && topological_order(g) == down
                     : topological_order(g) == down && reverse_topological_order(g) == up;
    });
}

// Orders extended after additions (order_extension.hpp), raced: threads
// asking both directions at once after each addition each get the order a
// copy of the graph, which keeps nothing, computes afresh.
TEST(SharedSnapshot, ConcurrentOrdersExtendedAfterAdditionsAgree) {
    Graph g;
    const VertexId n = 2000;
    for (VertexId i = 0; i < n; ++i) g.add_vertex("module.m" + std::to_string(i * 7919 % n), nullptr);
    for (VertexId i = 1; i < n; ++i) g.connect(i, i * 7 % n + 1 > i ? i * 7 % n + 1 : i + 1);
    topological_order(g);
    reverse_topological_order(g);
    for (int round = 0; round < 20; ++round) {
        const VertexId v = g.add_vertex("module.k" + std::to_string(round * 37 % 20), nullptr);
        g.connect(v, 1 + static_cast<VertexId>(round) * 97 % n);
        const Graph fresh(g);
        const std::vector<VertexId> down = topological_order(fresh), up = reverse_topological_order(fresh);
        std::vector<std::thread> threads;
        std::vector<int> good(4, 0);
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                good[t] = t % 2 ? reverse_topological_order(g) == up && topological_order(g) == down
                                : topological_order(g) == down && reverse_topological_order(g) == up;
            });
        for (auto &th : threads) th.join();
        EXPECT_EQ(good, std::vector<int>(4, 1)) << "round " << round;
    }
}

}  // namespace
}  // namespace dag
