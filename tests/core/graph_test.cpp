#include "graph/graph.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <string>

#include "graph/error.hpp"
#include "graph/growth.hpp"

namespace dag {
namespace {

Errc code_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const Error &e) {
        return e.code();
    }
    ADD_FAILURE() << "no dag::Error thrown";
    return Errc::state;
}

TEST(Graph, AddVerticesGetsSequentialStableIds) {
    Graph g;
    EXPECT_EQ(g.add_vertex("a", nullptr), 1u);
    EXPECT_EQ(g.add_vertex(std::nullopt, nullptr), 2u);
    g.remove_vertex(1);
    EXPECT_EQ(g.add_vertex("a", nullptr), 3u) << "ids are never reused";
    EXPECT_EQ(g.vertex_count(), 2u);
    EXPECT_FALSE(g.has_vertex(1));
    EXPECT_TRUE(g.has_vertex(3));
    EXPECT_EQ(g.find("a"), 3u);
}

TEST(Graph, StringMatchesTerraformLayout) {
    Graph g;
    auto v1 = g.add_vertex("1", nullptr);
    g.add_vertex("2", nullptr);
    auto v3 = g.add_vertex("3", nullptr);
    g.connect(v1, v3);
    EXPECT_EQ(g.to_string(), "1\n  3\n2\n3\n");
}

TEST(Graph, StringSortsByNameThenIdAndPrintsUnnamedAsId) {
    Graph g;
    auto b = g.add_vertex("b", nullptr);
    auto a = g.add_vertex("a", nullptr);
    auto u = g.add_vertex(std::nullopt, nullptr);
    g.connect(b, a);
    g.connect(b, u);
    EXPECT_EQ(g.to_string(), "3\na\nb\n  3\n  a\n");
    EXPECT_EQ(Graph().to_string(), "");
}

TEST(Graph, ConnectTwiceIsNoOpAndSelfEdgeIsStored) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr);
    g.connect(a, b);
    g.connect(a, b);
    EXPECT_EQ(g.edge_count(), 1u);
    g.connect(a, a);
    EXPECT_TRUE(g.has_edge(a, a));
    EXPECT_EQ(g.edge_count(), 2u);
    g.disconnect(a, b);
    g.disconnect(a, b);
    EXPECT_FALSE(g.has_edge(a, b));
    EXPECT_EQ(g.edge_count(), 1u);
}

TEST(Graph, DuplicateDetectionScansTheShorterSide) {
    Graph g;
    auto hub = g.add_vertex("hub", nullptr);
    std::vector<VertexId> leaves;
    for (int i = 0; i < 1000; ++i) leaves.push_back(g.add_vertex(std::nullopt, nullptr));
    for (auto l : leaves) g.connect(hub, l);
    for (auto l : leaves) g.connect(hub, l);
    for (auto l : leaves) g.connect(l, hub);
    for (auto l : leaves) g.connect(l, hub);
    EXPECT_EQ(g.edge_count(), 2000u);
}

TEST(Graph, DependenciesAndDependentsAreSorted) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
    g.connect(a, c);
    g.connect(a, b);
    g.connect(c, b);
    EXPECT_EQ(g.dependencies(a), (std::vector<VertexId>{b, c}));
    EXPECT_EQ(g.dependents(b), (std::vector<VertexId>{a, c}));
    EXPECT_TRUE(g.dependencies(b).empty());
    EXPECT_EQ(g.edges(), (std::vector<std::pair<VertexId, VertexId>>{{a, b}, {a, c}, {c, b}}));
    EXPECT_EQ(g.vertices(), (std::vector<VertexId>{a, b, c}));
}

TEST(Graph, RemoveVertexDropsItsEdgesAndFreesItsName) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
    g.connect(a, b);
    g.connect(b, c);
    g.remove_vertex(b);
    EXPECT_EQ(g.edge_count(), 0u);
    EXPECT_EQ(code_of([&] { g.find("b"); }), Errc::not_found);
    EXPECT_EQ(g.add_vertex("b", nullptr), 4u);
    EXPECT_EQ(code_of([&] { g.remove_vertex(b); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.connect(a, b); }), Errc::unknown_vertex);
    EXPECT_EQ(g.dependencies(a), std::vector<VertexId>{});
    (void)c;
}

// Both lists of every vertex, as the graph keeps them.
std::vector<std::vector<VertexId>> both_lists(const Graph &g) {
    std::vector<std::vector<VertexId>> out;
    for (VertexId v : g.vertices()) {
        out.push_back(g.dependencies(v));
        out.push_back(g.dependents(v));
    }
    return out;
}

// The batch calls against one call per edge or vertex, on random graphs with
// self edges, hubs, repeats and pairs that are not edges.
TEST(Graph, BatchRemovalsEqualOneAtATime) {
    std::mt19937 rng(21);
    for (int round = 0; round < 300; ++round) {
        Graph g;
        const int n = 1 + static_cast<int>(rng() % 30);
        for (int i = 0; i < n; ++i) g.add_vertex(i % 3 ? std::optional<std::string>("v" + std::to_string(i)) : std::nullopt, nullptr);
        for (int e = 0, m = static_cast<int>(rng() % 120); e < m; ++e) {
            const VertexId a = 1 + rng() % n, b = rng() % 4 ? 1 + rng() % n : 1;
            g.connect(a, b);
        }
        std::vector<std::pair<VertexId, VertexId>> pairs;
        for (int k = 0, m = static_cast<int>(rng() % 60); k < m; ++k)
            pairs.emplace_back(1 + rng() % n, rng() % 3 ? 1 + rng() % n : 1);
        Graph one(g), batch(g);
        for (const auto &[a, b] : pairs) one.disconnect(a, b);
        batch.disconnect_many(pairs);
        ASSERT_EQ(batch.edges(), one.edges()) << "round " << round;
        ASSERT_EQ(batch.edge_count(), one.edge_count()) << "round " << round;
        ASSERT_EQ(both_lists(batch), both_lists(one)) << "round " << round;

        std::vector<VertexId> gone;
        for (int k = 0, m = static_cast<int>(rng() % (n + 1)); k < m; ++k) gone.push_back(1 + rng() % n);
        Graph one_v(g), batch_v(g);
        std::set<VertexId> removed;
        for (VertexId v : gone)
            if (removed.insert(v).second) one_v.remove_vertex(v);
        batch_v.remove_vertices(gone);
        ASSERT_EQ(batch_v.vertices(), one_v.vertices()) << "round " << round;
        ASSERT_EQ(batch_v.edges(), one_v.edges()) << "round " << round;
        ASSERT_EQ(batch_v.edge_count(), one_v.edge_count()) << "round " << round;
        ASSERT_EQ(both_lists(batch_v), both_lists(one_v)) << "round " << round;
        for (VertexId v : removed)
            if (auto name = g.name(v)) EXPECT_FALSE(batch_v.has_name(*name)) << "the name is free again";
    }
}

TEST(Graph, BatchRemovalsWithAnUnknownVertexChangeNothing) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr);
    g.connect(a, b);
    EXPECT_EQ(code_of([&] { g.disconnect_many({{a, b}, {a, 9}}); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.remove_vertices({a, 9}); }), Errc::unknown_vertex);
    EXPECT_EQ(g.edge_count(), 1u);
    EXPECT_EQ(g.vertex_count(), 2u);
    EXPECT_TRUE(g.has_edge(a, b));
}

TEST(Graph, ReplaceTakesOverEveryEdge) {
    // Terraform's TestGraphReplace: a -> b -> c, replace b with 42.
    Graph g;
    auto a = g.add_vertex("1", nullptr), b = g.add_vertex("2", nullptr), c = g.add_vertex("3", nullptr);
    g.connect(a, b);
    g.connect(b, c);
    auto r = g.add_vertex("42", nullptr);
    g.replace_vertex(b, r);
    EXPECT_EQ(g.to_string(), "1\n  42\n3\n42\n  3\n");
    EXPECT_FALSE(g.has_vertex(b));
}

TEST(Graph, ReplaceKeepsSelfReference) {
    // Terraform's TestGraphReplaceSelf.
    Graph g;
    auto a = g.add_vertex("1", nullptr), b = g.add_vertex("2", nullptr), c = g.add_vertex("3", nullptr);
    g.connect(a, b);
    g.connect(b, c);
    g.connect(b, b);
    auto r = g.add_vertex("42", nullptr);
    g.replace_vertex(b, r);
    EXPECT_EQ(g.to_string(), "1\n  42\n3\n42\n  3\n  42\n");
    g.replace_vertex(r, r);
    EXPECT_TRUE(g.has_vertex(r));
}

TEST(Graph, NamesAreCheckedAndUnique) {
    Graph g;
    g.add_vertex("x", nullptr);
    EXPECT_EQ(code_of([&] { g.add_vertex("x", nullptr); }), Errc::duplicate_name);
    EXPECT_EQ(code_of([&] { g.add_vertex("", nullptr); }), Errc::invalid_argument);
    EXPECT_EQ(code_of([&] { g.add_vertex(std::string_view("\xff", 1), nullptr); }), Errc::bad_utf8);
    // Only an importer could pass one (a C string cannot); C callers would
    // see the name cut short.
    EXPECT_EQ(code_of([&] { g.add_vertex(std::string_view("a\0b", 3), nullptr); }), Errc::invalid_argument);
    // Its length is kept in 32 bits: 2^32 + 3 bytes were kept as 3, and the
    // graph then had two vertices printed "abc". Refused before a byte of it
    // is read (this view's bytes are not all there).
    const std::string_view too_long("abc", (std::size_t{1} << 32) + 3);
    EXPECT_EQ(code_of([&] { g.add_vertex(too_long, nullptr); }), Errc::invalid_argument);
    EXPECT_EQ(code_of([&] { g.set_name(1, too_long); }), Errc::invalid_argument);
    EXPECT_EQ(g.vertex_count(), 1u) << "failed adds leave nothing behind";
    auto y = g.add_vertex("y", nullptr);
    EXPECT_EQ(code_of([&] { g.set_name(y, "x"); }), Errc::duplicate_name);
    EXPECT_EQ(*g.name(y), "y");
    g.set_name(y, "z");
    EXPECT_EQ(g.find("z"), y);
    EXPECT_EQ(code_of([&] { g.find("y"); }), Errc::not_found);
    g.set_name(y, std::nullopt);
    EXPECT_FALSE(g.name(y));
    EXPECT_EQ(g.display_name(y), std::to_string(y));
}

TEST(Graph, CopyIsDeepAndKeepsIds) {
    Graph g;
    int tag = 0;
    auto a = g.add_vertex("a", &tag), b = g.add_vertex("b", nullptr);
    g.connect(a, b);
    g.remove_vertex(g.add_vertex("gone", nullptr));
    Graph c(g);
    EXPECT_EQ(c.to_string(), g.to_string());
    EXPECT_EQ(c.find("a"), a);
    EXPECT_EQ(c.user(a), &tag);
    c.set_name(a, "renamed");
    EXPECT_EQ(*g.name(a), "a") << "renaming the copy leaves the original alone";
    EXPECT_EQ(c.add_vertex("n", nullptr), 4u) << "the copy continues the id sequence";
    EXPECT_NE(c.name(a)->data(), g.name(a)->data());
}

TEST(Graph, SubsumeMergesByName) {
    Graph g, other;
    auto a = g.add_vertex("a", nullptr);
    int tag = 0;
    auto oa = other.add_vertex("a", &tag), ob = other.add_vertex("b", &tag), ou = other.add_vertex(std::nullopt, nullptr);
    other.connect(oa, ob);
    other.connect(ob, ou);
    g.subsume(other);
    EXPECT_EQ(g.vertex_count(), 3u);
    EXPECT_EQ(g.edge_count(), 2u);
    EXPECT_EQ(g.user(a), nullptr) << "the existing vertex keeps its own user data";
    EXPECT_EQ(g.user(g.find("b")), &tag);
    EXPECT_TRUE(g.has_edge(a, g.find("b")));
    EXPECT_EQ(code_of([&] { g.subsume(g); }), Errc::invalid_argument);
}

// User data is kept apart from the vertex's name and state (in the
// dependents list's record): it must follow its vertex through every way of
// adding one and survive its neighbours' removal.
TEST(Graph, UserDataFollowsItsVertex) {
    Graph g;
    int tags[5] = {};
    const VertexId a = g.add_vertex("a", &tags[0]);
    const char *names[] = {"b", nullptr, "d"};
    void *users[] = {&tags[1], &tags[2], nullptr};
    const VertexId b = g.add_vertices(names, users, 3);
    const VertexId e = g.add_vertex(std::nullopt, &tags[4]);
    g.connect(b, a);
    g.connect(e, b);
    g.remove_vertex(a);
    EXPECT_EQ(g.user(b), &tags[1]);
    EXPECT_EQ(g.user(b + 1), &tags[2]);
    EXPECT_EQ(g.user(b + 2), nullptr);
    EXPECT_EQ(g.user(e), &tags[4]);
    EXPECT_EQ(code_of([&] { g.user(a); }), Errc::unknown_vertex);
    g.set_user(b + 2, &tags[3]);
    const VertexId f = g.add_vertices(nullptr, nullptr, 1);
    EXPECT_EQ(g.user(f), nullptr);
    Graph copy(g);
    EXPECT_EQ(copy.user(b + 2), &tags[3]);
    Graph merged;
    merged.subsume(g);
    EXPECT_EQ(merged.user(merged.find("b")), &tags[1]);
    EXPECT_EQ(merged.user(merged.find("d")), &tags[3]);
}

TEST(Graph, MutationDuringWalkIsBusy) {
    Graph g;
    auto a = g.add_vertex("a", nullptr);
    g.begin_walk();
    EXPECT_EQ(code_of([&] { g.add_vertex("b", nullptr); }), Errc::busy);
    EXPECT_EQ(code_of([&] { g.connect(a, a); }), Errc::busy);
    EXPECT_EQ(code_of([&] { g.remove_vertex(a); }), Errc::busy);
    EXPECT_EQ(code_of([&] { g.set_name(a, "c"); }), Errc::busy);
    g.set_user(a, &g);
    g.end_walk();
    g.connect(a, a);
    EXPECT_EQ(g.edge_count(), 1u);
}

TEST(Graph, UnknownIdsAreRejected) {
    Graph g;
    EXPECT_EQ(code_of([&] { g.name(0); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.name(7); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.dependencies(1); }), Errc::unknown_vertex);
    EXPECT_FALSE(g.has_edge(1, 2));
    EXPECT_FALSE(g.has_vertex(0));
}

}  // namespace
}  // namespace dag

namespace dag {
namespace {

TEST(GraphConnectMany, AddsEveryPairOnceAndMatchesSingleConnects) {
    Graph bulk, single;
    std::vector<VertexId> pairs;
    for (int i = 0; i < 200; ++i) {
        bulk.add_vertex(std::nullopt, nullptr);
        single.add_vertex(std::nullopt, nullptr);
    }
    std::uint64_t x = 12345;
    for (int i = 0; i < 3000; ++i) {  // many repeats: 200^2 possible edges
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        pairs.push_back((x >> 33) % 200 + 1);
        pairs.push_back((x >> 13) % 200 + 1);
    }
    bulk.connect(1, 2);
    single.connect(1, 2);
    pairs.push_back(1);
    pairs.push_back(2);
    bulk.connect_many(pairs.data(), pairs.size() / 2);
    for (std::size_t i = 0; i < pairs.size(); i += 2) single.connect(pairs[i], pairs[i + 1]);
    EXPECT_EQ(bulk.edges(), single.edges());
    EXPECT_EQ(bulk.edge_count(), single.edge_count());
    for (VertexId v : bulk.vertices()) EXPECT_EQ(bulk.dependents(v), single.dependents(v));
}

// The raw lists, in the order their entries were added: what a large batch
// (grouped by target) must leave exactly as one connect at a time would.
std::vector<std::vector<Vertex>> raw_lists(const Graph &g) {
    std::vector<std::vector<Vertex>> lists;
    for (Vertex v = 0; v < g.index_bound(); ++v) {
        lists.emplace_back();
        for (auto [it, end] = boost::adjacent_vertices(v, g.adjacency()); it != end; ++it) lists.back().push_back(*it);
        lists.emplace_back();
        for (auto [it, end] = boost::adjacent_vertices(v, g.reverse_adjacency()); it != end; ++it) lists.back().push_back(*it);
    }
    return lists;
}

TEST(GraphConnectMany, LargeBatchKeepsEveryListInTheOrderSingleConnectsWould) {
    for (const bool with_tombstone : {false, true}) {
        Graph bulk, single;
        for (int i = 0; i < 300; ++i) {
            bulk.add_vertex(std::nullopt, nullptr);
            single.add_vertex(std::nullopt, nullptr);
        }
        if (with_tombstone) {
            bulk.remove_vertex(300);
            single.remove_vertex(300);
        }
        // Edges before the batch, some of them repeated in it; a hub with
        // many dependents before and in the batch; self-loops.
        std::vector<VertexId> pairs;
        for (VertexId v = 2; v < 120; ++v) {
            bulk.connect(v, 1);
            single.connect(v, 1);
            bulk.connect(v, v - 1);
            single.connect(v, v - 1);
        }
        std::uint64_t x = 99;
        for (int i = 0; i < 4000; ++i) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const VertexId from = (x >> 33) % 299 + 1;
            const VertexId to = i % 3 == 0 ? 1 : i % 7 == 0 ? from : (x >> 13) % 299 + 1;
            pairs.push_back(from);
            pairs.push_back(to);
        }
        bulk.connect_many(pairs.data(), pairs.size() / 2);
        for (std::size_t i = 0; i < pairs.size(); i += 2) single.connect(pairs[i], pairs[i + 1]);
        EXPECT_EQ(bulk.edge_count(), single.edge_count());
        EXPECT_EQ(raw_lists(bulk), raw_lists(single));
    }
}

TEST(GraphConnectMany, SmallBatchIntoALargeGraph) {
    Graph g;
    for (int i = 0; i < 100; ++i) g.add_vertex(std::nullopt, nullptr);
    const VertexId pairs[] = {5, 6, 6, 7, 5, 6, 7, 7};
    g.connect_many(pairs, 4);
    EXPECT_EQ(g.edges(), (std::vector<std::pair<VertexId, VertexId>>{{5, 6}, {6, 7}, {7, 7}}));
    g.connect_many(nullptr, 0);
    EXPECT_EQ(g.edge_count(), 3u);
}

TEST(GraphConnectMany, UnknownIdAnywhereChangesNothing) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), gone = g.add_vertex("c", nullptr);
    g.remove_vertex(gone);
    const VertexId pairs[] = {a, b, b, a, a, gone};
    try {
        g.connect_many(pairs, 3);
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), Errc::unknown_vertex);
        EXPECT_NE(std::string(e.what()).find("edge 2"), std::string::npos) << e.what();
    }
    EXPECT_EQ(g.edge_count(), 0u);
    g.begin_walk();
    EXPECT_THROW(g.connect_many(pairs, 2), Error);
    g.end_walk();
}

}  // namespace
}  // namespace dag

namespace dag {
namespace {

// How often a vector's storage moved while `step` ran `times` times: a
// store that grows only by what each call needs moves every time, copying
// all it holds (adding 10^6 vertices 100 at a time took 119 s, not 0.2 s).
template <class Capacity>
int moves(int times, const std::function<void()> &step, const Capacity &capacity) {
    int moved = 0;
    for (int i = 0; i < times; ++i) {
        const std::size_t before = capacity();
        step();
        moved += capacity() != before;
    }
    return moved;
}

TEST(GraphGrowth, ReservingALittleAtATimeMovesTheStorageRarely) {
    // As a walk's update reserves a vertex's added dependents, and a ranked
    // queue room for what it pushes.
    std::vector<int> v;
    const int moved = moves(
        10000,
        [&] {
            reserve_more(v, 1);
            const int *data = v.data();
            v.push_back(1);
            EXPECT_EQ(v.data(), data);  // the room reserved was there
        },
        [&] { return v.capacity(); });
    EXPECT_LE(moved, 15);
    std::vector<int> exact;
    reserve_more(exact, 7);
    EXPECT_EQ(exact.capacity(), 7u);  // a first reserve holds no slack
}

TEST(GraphGrowth, BatchesOfVerticesGrowTheStoreGeometrically) {
    Graph g;
    g.add_vertices(nullptr, nullptr, 1000);
    int moved_in = 0;
    const int moved = moves(
        1000,
        [&] {
            const std::size_t in = g.reverse_adjacency().m_vertices.capacity();
            g.add_vertices(nullptr, nullptr, 3);
            moved_in += g.reverse_adjacency().m_vertices.capacity() != in;
        },
        [&] { return g.adjacency().m_vertices.capacity(); });
    EXPECT_LE(moved, 3);
    EXPECT_LE(moved_in, 3);
    EXPECT_EQ(g.vertex_count(), 4000u);
}

TEST(GraphGrowth, LargeBatchesOfEdgesGrowAVertexsListsGeometrically) {
    // Batches of bound / 16 edges and more are grouped by target; each
    // gives vertex 1 another 125 dependencies and vertex 2 another 125
    // dependents.
    Graph g;
    g.add_vertices(nullptr, nullptr, 4000);
    VertexId next = 3;
    int moved_in = 0;
    const int moved = moves(
        30,
        [&] {
            std::vector<VertexId> pairs;
            for (int k = 0; k < 125; ++k, ++next) pairs.insert(pairs.end(), {1, next, next, 2});
            const std::size_t in = g.reverse_adjacency().out_edge_list(1).capacity();
            g.connect_many(pairs.data(), pairs.size() / 2);
            moved_in += g.reverse_adjacency().out_edge_list(1).capacity() != in;
        },
        [&] { return g.adjacency().out_edge_list(0).capacity(); });
    EXPECT_LE(moved, 6);
    EXPECT_LE(moved_in, 6);
    EXPECT_EQ(g.dependencies(1).size(), 3750u);
    EXPECT_EQ(g.dependents(2).size(), 3750u);
}

TEST(GraphGrowth, ALargeStoreHasItsVertexRecordsOnHugePages) {
    // 40 bytes a record: 2^17 vertices hold 5 MiB in each direction, an
    // array the huge-page allocator maps at a 2 MiB boundary; malloc's own
    // large blocks start 16 bytes past a 4 KiB page.
    Graph g;
    g.add_vertices(nullptr, nullptr, std::size_t{1} << 17);
    g.add_vertices(nullptr, nullptr, 1);
    const auto at_huge_boundary = [](const void *p) {
        return reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{2} << 20) == 0;
    };
    EXPECT_TRUE(at_huge_boundary(g.adjacency().m_vertices.data()));
    EXPECT_TRUE(at_huge_boundary(g.reverse_adjacency().m_vertices.data()));
    EXPECT_EQ(g.vertex_count(), (std::size_t{1} << 17) + 1);
}

TEST(GraphAssign, AssignmentCopiesAndSwapExchanges) {
    Graph a, b;
    auto x = a.add_vertex("x", nullptr), y = a.add_vertex("y", nullptr);
    a.connect(x, y);
    b.add_vertex("other", nullptr);
    b = a;
    EXPECT_EQ(b.to_string(), a.to_string());
    b.set_name(x, "renamed");
    EXPECT_EQ(*a.name(x), "x");
    EXPECT_EQ(b.find("renamed"), x);
    Graph c;
    c.swap(b);
    EXPECT_EQ(b.vertex_count(), 0u);
    EXPECT_EQ(c.find("renamed"), x);
    EXPECT_TRUE(c.has_edge(x, y));
    a.begin_walk();
    EXPECT_THROW(a = c, Error);
    a.end_walk();
}

// Swapping a graph with itself locked its name-order mutex twice and never
// returned.
TEST(GraphAssign, SwappingAGraphWithItselfLeavesItAsItWas) {
    Graph g;
    const auto x = g.add_vertex("x", nullptr), y = g.add_vertex("y", nullptr);
    g.connect(x, y);
    g.swap(g);
    EXPECT_EQ(g.vertex_count(), 2u);
    EXPECT_EQ(g.find("x"), x);
    EXPECT_TRUE(g.has_edge(x, y));
}

}  // namespace
}  // namespace dag
