// Validation wording, bad input, deep graphs and the visitor's controls.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <queue>
#include <random>
#include <thread>

#include "algo_test_support.hpp"
#include "algorithms/rank_queue.hpp"
#include "algorithms/reachability.hpp"
#include "algorithms/tarjan.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/transitive_reduction.hpp"
#include "algorithms/traversal.hpp"
#include "algorithms/validate.hpp"
#include "graph/name_order.hpp"

namespace dag {
namespace {

using test::error_of;
using test::NumberedGraph;

Graph named(std::initializer_list<const char *> names) {
    Graph g;
    for (const char *n : names) g.add_vertex(n, nullptr);
    return Graph(g);  // Graph cannot be moved (it holds locks); copy out
}

TEST(Validate, CycleRotatesToShortestNameAndReadsAlongDependencies) {
    Graph g = named({"ccc", "bb", "a"});
    VertexId c = g.find("ccc"), b = g.find("bb"), a = g.find("a");
    g.connect(c, b);
    g.connect(b, a);
    g.connect(a, c);
    EXPECT_EQ(cycle_report(g), "Cycle:\n  a\n  ccc\n  bb");
    g.disconnect(a, c);
    g.connect(a, b);
    EXPECT_EQ(cycle_report(g), "Cycle:\n  a\n  bb");
}

TEST(Validate, TiesOnLengthAreBrokenBytewise) {
    Graph g = named({"b", "a", "c"});
    g.connect(g.find("a"), g.find("b"));
    g.connect(g.find("b"), g.find("c"));
    g.connect(g.find("c"), g.find("a"));
    EXPECT_EQ(cycle_report(g), "Cycle:\n  a\n  b\n  c");
}

TEST(Validate, ReportsEveryProblemAtOnce) {
    Graph g = named({"x", "y", "p", "q", "s"});
    g.connect(g.find("x"), g.find("y"));
    g.connect(g.find("y"), g.find("x"));
    g.connect(g.find("q"), g.find("p"));
    g.connect(g.find("p"), g.find("q"));
    g.connect(g.find("s"), g.find("s"));
    Validation v = validate(g, true);
    EXPECT_EQ(v.text(), "no roots found\nCycle:\n  p\n  q\nCycle:\n  x\n  y\nSelf reference: s");
    // A cycle is reported as one, whatever else is wrong.
    EXPECT_EQ(static_cast<int>(v.errc()), static_cast<int>(Errc::cycle));
    EXPECT_EQ(v.messages.size(), 4u);

    Validation relaxed = validate(g, false);
    EXPECT_EQ(relaxed.text(), "Cycle:\n  p\n  q\nCycle:\n  x\n  y\nSelf reference: s");
    EXPECT_EQ(static_cast<int>(relaxed.errc()), static_cast<int>(Errc::cycle));
}

TEST(Validate, SingleRootRuleCanBeSwitchedOff) {
    Graph g = named({"a", "b"});
    Validation strict = validate(g, true);
    EXPECT_EQ(strict.text(), "multiple roots: a, b");
    EXPECT_EQ(static_cast<int>(strict.errc()), static_cast<int>(Errc::multiple_roots));
    EXPECT_TRUE(validate(g, false).ok());
}

TEST(Validate, EmptyGraph) {
    Graph g;
    EXPECT_EQ(validate(g, true).text(), "no roots found");
    EXPECT_TRUE(validate(g, false).ok());
    EXPECT_EQ(error_of(Errc::no_root, [&] { root(g); }), "no roots found");
    EXPECT_EQ(cycle_report(g), "");
}

TEST(Validate, UnnamedVerticesPrintTheirIdsAndSortFirst) {
    Graph g;
    VertexId a = g.add_vertex(std::nullopt, nullptr);
    g.add_vertex("b", nullptr);
    VertexId c = g.add_vertex(std::nullopt, nullptr);
    g.connect(c, a);
    g.connect(a, c);
    EXPECT_EQ(validate(g, true).text(), "Cycle:\n  1\n  3") << "b is the only root";
    EXPECT_EQ(cycle_report(g), "Cycle:\n  1\n  3");
    Graph h;
    h.add_vertex("z", nullptr);
    h.add_vertex(std::nullopt, nullptr);
    EXPECT_EQ(error_of(Errc::multiple_roots, [&] { root(h); }), "multiple roots: 2, z");
}

TEST(Validate, RootsAndSelfReferencesAreSortedAsPrinted) {
    // Unnamed vertices print as their ids: "10" sorts before "9", and a
    // name "0" before both, whatever the ids.
    Graph g;
    std::vector<VertexId> ids;
    for (int i = 0; i < 10; ++i) ids.push_back(g.add_vertex(std::nullopt, nullptr));
    const VertexId zero = g.add_vertex("0", nullptr);
    for (int i = 1; i < 8; ++i) g.connect(ids[i], ids[i + 1]);  // 2 -> 3 -> ... -> 9
    ASSERT_EQ(ids[9], 10u);
    EXPECT_EQ(error_of(Errc::multiple_roots, [&] { root(g); }), "multiple roots: 0, 1, 10, 2");
    g.connect(ids[8], ids[8]);
    g.connect(ids[9], ids[9]);
    g.connect(zero, zero);
    const Validation v = validate(g, false);
    EXPECT_EQ(v.text(), "Self reference: 0\nSelf reference: 10\nSelf reference: 9");
    EXPECT_EQ(v.self_references, (std::vector<VertexId>{zero, ids[9], ids[8]}));
}

TEST(Validate, RemovedVerticesAreIgnored) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 2);
    t.connect(2, 1);
    t.connect(3, 1);
    EXPECT_NE(cycle_report(t.g), "");
    t.g.remove_vertex(t.id(2));
    EXPECT_EQ(cycle_report(t.g), "");
    EXPECT_EQ(root(t.g), t.id(3));
}

TEST(TopologicalOrder, ThreeVertexExample) {
    // a depends on b, b depends on c: c runs first.
    Graph g = named({"a", "b", "c"});
    g.connect(1, 2);
    g.connect(2, 3);
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 2, 3}));
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{3, 2, 1}));
}

TEST(TopologicalOrder, TiesByNameThenIdWithUnnamedFirst) {
    Graph g;
    g.add_vertex("b", nullptr);                  // 1
    g.add_vertex("a", nullptr);                  // 2
    g.add_vertex(std::nullopt, nullptr);         // 3
    g.add_vertex(std::nullopt, nullptr);         // 4
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{3, 4, 2, 1}));
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{3, 4, 2, 1}));
}

// The first order of a named graph freezes a fresh snapshot and ranks its
// names; both must stay with the graph, so that the next order neither
// ranks nor renumbers again (it did both, a second cold order in all).
TEST(TopologicalOrder, TheFirstOrderKeepsItsNameRanksForTheNext) {
    for (const bool reverse : {false, true}) {
        Graph g = named({"c", "a", "b"});
        g.connect(1, 2);
        ASSERT_EQ(g.cached_snapshot(), nullptr);
        const std::vector<VertexId> first = reverse ? reverse_topological_order(g) : topological_order(g);
        const std::shared_ptr<const Snapshot> s = g.cached_snapshot();
        ASSERT_NE(s, nullptr);
        const std::shared_ptr<const NameRanks> kept = g.cached_ranks(s.get());
        ASSERT_NE(kept, nullptr) << (reverse ? "reverse" : "topological");
        EXPECT_EQ(std::vector<Snapshot::Index>(kept->rank.begin(), kept->rank.end()), (std::vector<Snapshot::Index>{2, 0, 1}));
        EXPECT_EQ(reverse ? reverse_topological_order(g) : topological_order(g), first);
        EXPECT_EQ(g.cached_ranks(s.get()), kept);
    }
}

// What the graph keeps for an order, asked for with a computation that
// must not run.
std::vector<VertexId> kept_ids(const Graph &g, bool dependencies_first) {
    const std::shared_ptr<const HugeVector<VertexId>> ids =
        g.kept_orders().get(dependencies_first, g.index_bound(), [](const KeptOrders::Since &) {
            ADD_FAILURE() << "the order was not kept";
            return KeptOrders::Order{};
        });
    return ids ? std::vector<VertexId>(ids->begin(), ids->end()) : std::vector<VertexId>{};
}

// An order of an unchanged graph is kept and copied; each change that can
// alter it (an edge, a rename, the last name gone) gives a fresh one.
TEST(TopologicalOrder, AnOrderIsKeptUntilTheGraphOrANameChanges) {
    Graph g = named({"c", "a", "b"});
    g.connect(1, 2);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{2, 3, 1}));
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{3, 1, 2}));
    EXPECT_EQ(kept_ids(g, true), (std::vector<VertexId>{2, 3, 1}));
    EXPECT_EQ(kept_ids(g, false), (std::vector<VertexId>{3, 1, 2}));
    const auto kept = kept_order(g, TopoDirection::dependencies_first);
    EXPECT_EQ(kept_order(g, TopoDirection::dependencies_first), kept);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{2, 3, 1}));

    g.set_name(3, "0");  // now the smallest name
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{3, 2, 1}));
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{3, 1, 2}));

    g.connect(2, 3);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{3, 2, 1}));
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{1, 2, 3}));

    for (VertexId v : {1, 2, 3}) g.set_name(v, std::nullopt);
    g.disconnect(2, 3);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{2, 1, 3}));
    EXPECT_EQ(kept_ids(g, true), (std::vector<VertexId>{2, 1, 3}));
    g.set_name(1, "z");  // unnamed vertices first, by id
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{2, 3, 1}));
}

// After vertices and edges are only added, the kept order is extended
// (order_extension.hpp): the graph's snapshot, which a computation from
// scratch freezes and caches, stays unmade. Where the extension cannot tell
// the order, it is computed again.
TEST(TopologicalOrder, AnOrderAfterAddsIsTheKeptOneExtended) {
    Graph g = named({"b", "d", "f"});
    g.connect(3, 1);  // f depends on b
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{1, 2, 3}));
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{2, 3, 1}));

    const VertexId c = g.add_vertex(std::string_view("c"), nullptr);
    g.connect(c, 1);  // free once b is out: before d, the first larger name after b
    ASSERT_EQ(g.cached_snapshot(), nullptr);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{1, c, 2, 3}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";
    // Dependents first, c is free at once and goes before d, before b.
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{c, 2, 3, 1}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";

    const VertexId a = g.add_vertex(std::string_view("a"), nullptr);
    const VertexId e = g.add_vertex(std::nullopt, nullptr);  // unnamed: the smallest key
    g.connect(a, 3);
    g.connect(2, 1);  // d on b: the orders agree already
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{e, 1, c, 2, 3, a}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{e, a, c, 2, 3, 1}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";

    const VertexId z = g.add_vertex(std::string_view("z"), nullptr);
    g.connect(z, 2);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{e, 1, c, 2, 3, a, z}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";
    // Dependents first, z (the largest name) would go last, after d, which
    // depends on it now: computed again.
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{e, a, c, 3, z, 2, 1}));
    EXPECT_NE(g.cached_snapshot(), nullptr) << "computed";

    // b on d, against the order and closing a cycle with d on b: computed
    // again, and refused.
    g.connect(1, 2);
    EXPECT_EQ(error_of(Errc::cycle, [&] { reverse_topological_order(g); }), "Cycle:\n  b\n  d");
    EXPECT_EQ(error_of(Errc::cycle, [&] { topological_order(g); }), "Cycle:\n  b\n  d");
}

// New vertices depending on each other are extended too: one goes out once
// its new dependencies and its old ones are, and frees the new ones
// waiting for it.
TEST(TopologicalOrder, NewVerticesDependingOnEachOtherAreExtended) {
    Graph g = named({"b", "d", "f"});
    g.connect(3, 1);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{1, 2, 3}));
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{2, 3, 1}));
    const VertexId a0 = g.add_vertex(std::string_view("a0"), nullptr);
    const VertexId a1 = g.add_vertex(std::string_view("a1"), nullptr);
    const VertexId c = g.add_vertex(std::string_view("c"), nullptr);
    g.connect(a1, a0);
    g.connect(a1, 3);  // a1 waits for f as well as for a0
    g.connect(c, a1);
    EXPECT_EQ(reverse_topological_order(g), (std::vector<VertexId>{a0, 1, 2, 3, a1, c}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";
    EXPECT_EQ(topological_order(g), (std::vector<VertexId>{c, a1, a0, 2, 3, 1}));
    EXPECT_EQ(g.cached_snapshot(), nullptr) << "extended, not computed";

    // A cycle among new vertices: computed again, and refused.
    const VertexId x = g.add_vertex(std::string_view("x"), nullptr);
    const VertexId y = g.add_vertex(std::string_view("y"), nullptr);
    g.connect(x, y);
    g.connect(y, x);
    EXPECT_EQ(error_of(Errc::cycle, [&] { reverse_topological_order(g); }), "Cycle:\n  x\n  y");
    EXPECT_EQ(error_of(Errc::cycle, [&] { topological_order(g); }), "Cycle:\n  x\n  y");
}

// A computation that threw (a cycle, no memory) keeps nothing and is tried
// again; under ThreadSanitizer, std::call_once hung on the second try.
TEST(TopologicalOrder, AKeptOrderWhoseComputationThrewIsComputedAgain) {
    KeptOrders kept;
    for (int attempt = 0; attempt < 2; ++attempt)
        EXPECT_THROW(kept.get(true, 0, [](const KeptOrders::Since &) -> KeptOrders::Order { throw Error(Errc::cycle, "Cycle"); }),
                     Error);
    EXPECT_FALSE(kept.kept());
    const auto made = [](const KeptOrders::Since &since) {
        EXPECT_EQ(since.order.ids, nullptr);
        KeptOrders::Order o;
        o.ids = std::make_shared<const HugeVector<VertexId>>(HugeVector<VertexId>{4, 2});
        return o;
    };
    const auto ids = kept.get(true, 0, made);
    EXPECT_EQ(std::vector<VertexId>(ids->begin(), ids->end()), (std::vector<VertexId>{4, 2}));
    EXPECT_EQ(kept.get(true, 0, made), ids);
    EXPECT_TRUE(kept.kept());
}

// Threads asking at once share one computation.
TEST(TopologicalOrder, AKeptOrderIsComputedOnceForThreadsAskingAtOnce) {
    KeptOrders kept;
    std::atomic<int> computed{0};
    std::vector<std::thread> threads;
    std::vector<std::vector<VertexId>> seen(8);
    for (std::size_t t = 0; t < seen.size(); ++t)
        threads.emplace_back([&, t] {
            const auto ids = kept.get(true, 3, [&](const KeptOrders::Since &) {
                ++computed;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                KeptOrders::Order o;
                o.ids = std::make_shared<const HugeVector<VertexId>>(HugeVector<VertexId>{3, 1, 2});
                return o;
            });
            seen[t].assign(ids->begin(), ids->end());
        });
    for (std::thread &t : threads) t.join();
    EXPECT_EQ(computed.load(), 1);
    for (const auto &ids : seen) EXPECT_EQ(ids, (std::vector<VertexId>{3, 1, 2}));
}

// Logged edges are handed to the next computation, and past the log's cap
// the orders are dropped.
TEST(TopologicalOrder, KeptOrdersLogAddedEdgesUpToACap) {
    KeptOrders kept;
    const auto edge = [](KeptOrders::Edge e) { return [e](std::size_t) { return e; }; };
    kept.connected(1, edge({1, 0}));  // nothing kept: not logged
    const auto make = [](const KeptOrders::Since &) {
        KeptOrders::Order o;
        o.ids = std::make_shared<const HugeVector<VertexId>>(HugeVector<VertexId>{1, 2});
        return o;
    };
    kept.get(true, 2, make);
    const KeptOrders::Edge second{0, 1};
    kept.connected(1, edge(second));
    kept.get(true, 2, [&](const KeptOrders::Since &since) {
        EXPECT_EQ(since.edges, (std::vector<KeptOrders::Edge>{second}));
        EXPECT_NE(since.order.ids, nullptr);
        return make(since);
    });
    kept.connected(1025, edge(second));
    EXPECT_FALSE(kept.kept());
    kept.get(true, 2, [&](const KeptOrders::Since &since) {
        EXPECT_EQ(since.order.ids, nullptr);
        EXPECT_TRUE(since.edges.empty());
        return make(since);
    });
}

TEST(TopologicalOrder, EmptyGraphGivesEmptyOrder) {
    Graph g;
    EXPECT_TRUE(topological_order(g).empty());
    EXPECT_TRUE(reverse_topological_order(g).empty());
}

TEST(TopologicalOrder, CycleIsAnErrorNamingIt) {
    Graph g = named({"a", "b", "c"});
    g.connect(1, 2);
    g.connect(2, 1);
    EXPECT_EQ(error_of(Errc::cycle, [&] { topological_order(g); }), "Cycle:\n  a\n  b");
    g.disconnect(2, 1);
    g.connect(3, 3);
    EXPECT_EQ(error_of(Errc::cycle, [&] { reverse_topological_order(g); }), "Self reference: c");
}

TEST(TransitiveReduction, RefusesCyclesAndWalksAndLeavesGraphUnchanged) {
    Graph g = named({"a", "b", "c"});
    g.connect(1, 2);
    g.connect(2, 3);
    g.connect(1, 3);
    g.connect(3, 1);
    EXPECT_EQ(error_of(Errc::cycle, [&] { transitive_reduction(g); }), "Cycle:\n  a\n  b\n  c");
    EXPECT_EQ(g.edge_count(), 4u);
    g.disconnect(3, 1);
    g.begin_walk();
    error_of(Errc::busy, [&] { transitive_reduction(g); });
    g.end_walk();
    EXPECT_EQ(g.edge_count(), 3u);
    EXPECT_EQ(transitive_reduction(g), 1u);
    EXPECT_FALSE(g.has_edge(1, 3));
}

TEST(TransitiveReduction, EmptyAndEdgelessGraphs) {
    Graph g;
    EXPECT_EQ(transitive_reduction(g), 0u);
    g.add_vertex("a", nullptr);
    EXPECT_EQ(transitive_reduction(g), 0u);
}

TEST(Reachability, ThreeVertexExample) {
    // a depends on b, b on c.
    Graph g = named({"a", "b", "c"});
    g.connect(1, 2);
    g.connect(2, 3);
    EXPECT_EQ(ancestors(g, {1}), (std::vector<VertexId>{2, 3}));
    EXPECT_EQ(descendants(g, {3}), (std::vector<VertexId>{1, 2}));
    EXPECT_TRUE(ancestors(g, {3}).empty());
    EXPECT_EQ(ancestors(g, {1, 2}), (std::vector<VertexId>{2, 3})) << "b is reached from a";
}

TEST(Reachability, DuplicatesInTheStartSetCountOnce) {
    Graph g = named({"a", "b", "c"});
    g.connect(1, 2);
    g.connect(2, 3);
    EXPECT_EQ(ancestors(g, {1, 1, 1}), ancestors(g, {1}));
    EXPECT_EQ(descendants(g, {3, 3}), descendants(g, {3}));
}

TEST(Reachability, VertexOnACycleIsItsOwnAncestor) {
    Graph g = named({"a", "b"});
    g.connect(1, 2);
    g.connect(2, 1);
    EXPECT_EQ(ancestors(g, {1}), (std::vector<VertexId>{1, 2}));
}

TEST(BadInput, UnknownAndRemovedIdsAreRefused) {
    Graph g = named({"a", "b"});
    g.remove_vertex(2);
    for (VertexId bad : {VertexId{0}, VertexId{2}, VertexId{99}}) {
        error_of(Errc::unknown_vertex, [&] { ancestors(g, {1, bad}); });
        error_of(Errc::unknown_vertex, [&] { descendants(g, {bad}); });
        error_of(Errc::unknown_vertex, [&] { first_ancestors_with(g, {bad}, [](VertexId) { return true; }); });
        error_of(Errc::unknown_vertex, [&] { match_descendant(g, {bad}, [](VertexId) { return true; }); });
        bool visited = false;
        error_of(Errc::unknown_vertex, [&] {
            traverse(g, {1, bad}, {}, [&](VertexId, std::size_t) {
                visited = true;
                return Visit::proceed;
            });
        });
        EXPECT_FALSE(visited) << "ids are checked before anything is visited";
    }
}

TEST(BadInput, EmptyStartSetsAndEmptyGraphs) {
    Graph g;
    EXPECT_TRUE(ancestors(g, {}).empty());
    EXPECT_TRUE(descendants(g, {}).empty());
    EXPECT_FALSE(match_ancestor(g, {}, [](VertexId) { return true; }));
    EXPECT_EQ(strongly_connected_components(g).count(), 0u);
    EXPECT_TRUE(traverse(g, {}, {}, [](VertexId, std::size_t) { return Visit::stop; }));
}

TEST(Traversal, SkipEndsABranchAndStopEndsTheWalk) {
    // a -> b -> c, a -> d
    Graph g = named({"a", "b", "c", "d"});
    g.connect(1, 2);
    g.connect(2, 3);
    g.connect(1, 4);
    std::vector<VertexId> seen;
    TraversalOptions bfs;
    bfs.breadth_first = true;
    EXPECT_TRUE(traverse(g, {1}, bfs, [&](VertexId v, std::size_t) {
        seen.push_back(v);
        return v == 2 ? Visit::skip : Visit::proceed;
    }));
    EXPECT_EQ(seen, (std::vector<VertexId>{1, 2, 4}));
    seen.clear();
    EXPECT_FALSE(traverse(g, {1}, bfs, [&](VertexId v, std::size_t) {
        seen.push_back(v);
        return v == 2 ? Visit::stop : Visit::proceed;
    }));
    EXPECT_EQ(seen, (std::vector<VertexId>{1, 2}));
}

TEST(Traversal, PlainVariantUsesStartOrderAndAscendingIds) {
    Graph g = named({"z", "y", "x"});
    g.connect(1, 3);
    g.connect(1, 2);
    std::vector<VertexId> seen;
    TraversalOptions bfs;
    bfs.breadth_first = true;
    traverse(g, {1}, bfs, [&](VertexId v, std::size_t) {
        seen.push_back(v);
        return Visit::proceed;
    });
    EXPECT_EQ(seen, (std::vector<VertexId>{1, 2, 3}));
    seen.clear();
    bfs.sorted = true;
    traverse(g, {1}, bfs, [&](VertexId v, std::size_t) {
        seen.push_back(v);
        return Visit::proceed;
    });
    EXPECT_EQ(seen, (std::vector<VertexId>{1, 3, 2})) << "x before y";
}

TEST(RankQueue, PopsTheSmallestKeyLikeABinaryHeap) {
    std::mt19937 rng(7);
    for (std::size_t n : {1u, 63u, 64u, 65u, 4097u, 20000u}) {
        RankQueue q(n);
        std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ref;
        std::vector<char> queued(n, 0);
        for (std::size_t step = 0; step < 4 * n; ++step) {
            const auto key = static_cast<std::uint32_t>(rng() % n);
            if (rng() % 3 != 0 && !queued[key]) {
                q.push(key);
                ref.push(key);
                queued[key] = 1;
            } else if (!ref.empty()) {
                ASSERT_EQ(q.pop_min(), ref.top());
                queued[ref.top()] = 0;
                ref.pop();
            }
            ASSERT_EQ(q.empty(), ref.empty());
        }
    }
}

// Mostly rising keys (the sorted run) with smaller ones in between (the
// words), popped while pushing, as a tree's or grid's order does.
TEST(RankQueue, RisingKeysAndStragglersMix) {
    std::mt19937 rng(11);
    const std::uint32_t n = 5000;
    RankQueue q(n);
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ref;
    std::vector<char> queued(n, 0);
    std::uint32_t next = 0;
    for (int step = 0; step < 20000; ++step) {
        std::uint32_t key = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % n) : next++ % n;
        if (rng() % 5 < 3 && !queued[key]) {
            q.push(key);
            ref.push(key);
            queued[key] = 1;
        } else if (!ref.empty()) {
            ASSERT_EQ(q.pop_min(), ref.top());
            queued[ref.top()] = 0;
            ref.pop();
        }
        ASSERT_EQ(q.empty(), ref.empty());
    }
    while (!ref.empty()) {
        ASSERT_EQ(q.pop_min(), ref.top());
        ref.pop();
    }
    EXPECT_TRUE(q.empty());
}

// A million-vertex chain and ring: nothing may recurse per vertex.
class Deep : public ::testing::Test {
protected:
    static constexpr VertexId n = 1000000;
    static void SetUpTestSuite() {
        chain = new Graph;
        for (VertexId i = 0; i < n; ++i) chain->add_vertex(std::nullopt, nullptr);
        for (VertexId i = 1; i < n; ++i) chain->connect(i, i + 1);
    }
    static void TearDownTestSuite() {
        delete chain;
        chain = nullptr;
    }
    static Graph *chain;
};
Graph *Deep::chain = nullptr;

// One call per algorithm that a naive version would write recursively.
TEST_F(Deep, ChainOrdersSearchesAndComponents) {
    std::vector<VertexId> order = topological_order(*chain);
    ASSERT_EQ(order.size(), n);
    EXPECT_EQ(order.front(), 1u);
    EXPECT_EQ(order.back(), n);
    EXPECT_EQ(strongly_connected_components(*chain).count(), n);
    std::size_t deepest = 0;
    traverse(*chain, {1}, {}, [&](VertexId, std::size_t d) {
        deepest = d;
        return Visit::proceed;
    });
    EXPECT_EQ(deepest, n - 1);
}

TEST_F(Deep, RingIsOneCycle) {
    chain->connect(n, 1);
    const Validation v = validate(*chain, false);
    chain->disconnect(n, 1);
    ASSERT_EQ(v.cycles.size(), 1u);
    ASSERT_EQ(v.cycles[0].size(), n);
    EXPECT_EQ(v.cycles[0][0], 1u);
    EXPECT_EQ(v.cycles[0][1], 2u);
    EXPECT_EQ(v.cycles[0].back(), n);
}

}  // namespace
}  // namespace dag
