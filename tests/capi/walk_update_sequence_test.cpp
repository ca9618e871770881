// Sequences of updates to one walk: each batch is checked and made against
// the graph as the batches before it left it, refused ones included.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "walk_test_support.hpp"

namespace {

// An edge of the walk's frozen graph, disconnected by one update and
// connected again by the next, holds its waiter again (it used to be
// dropped for good, and the walk never finished).
TEST(WalkUpdateSequence, EdgeDisconnectedThenConnectedAgainHoldsItsWaiter) {
    GatedWalk gw;
    uint64_t a = gw.vertex("a"), b = gw.vertex("b");
    ASSERT_EQ(dag_connect(gw.g.get(), b, a, nullptr), DAG_OK);
    gw.start();
    ASSERT_EQ(gw.apply({}, {{b, a}}), DAG_OK);
    ASSERT_EQ(gw.apply({{b, a}}), DAG_OK);
    ReportPtr r = gw.finish();
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 3u);
    EXPECT_LT(gw.position(a), gw.position(b));
    EXPECT_TRUE(dag_has_edge(gw.g.get(), b, a));
}

// The other way round: an edge added by one update and disconnected by the
// next no longer holds its waiter.
TEST(WalkUpdateSequence, EdgeConnectedThenDisconnectedAgainReleasesItsWaiter) {
    GatedWalk gw;
    uint64_t a = gw.vertex("a"), b = gw.vertex("b"), c = gw.vertex("c");
    gw.start();
    ASSERT_EQ(gw.apply({{b, a}, {c, a}}), DAG_OK);
    ASSERT_EQ(gw.apply({}, {{b, a}}), DAG_OK);
    ASSERT_EQ(gw.apply({{a, b}}), DAG_OK);  // would be a cycle had b -> a stayed
    ReportPtr r = gw.finish();
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 4u);
    EXPECT_LT(gw.position(b), gw.position(a));
    EXPECT_LT(gw.position(a), gw.position(c));
}

// A batch refused after its cycle check had passed (here: it would also make
// the running gate wait) changes nothing, so the next batch is checked
// against the edges that really are there.
TEST(WalkUpdateSequence, RefusedBatchLeavesTheCycleCheckAsItWas) {
    GatedWalk gw;
    uint64_t a = gw.vertex("a"), b = gw.vertex("b");
    ASSERT_EQ(dag_connect(gw.g.get(), a, b, nullptr), DAG_OK);
    gw.start();
    // Drop a -> b and add b -> a (fine on its own), but making the gate wait
    // for a new vertex is refused.
    std::string msg = expect_error(DAG_E_STATE, [&](dag_error **e) {
        dag_walk_update *u = nullptr;
        dag_walk_update_new(&u, nullptr);
        UpdatePtr owned(u);
        dag_walk_update_disconnect(u, a, b, nullptr);
        dag_walk_update_connect(u, b, a, nullptr);
        uint64_t p = 0;
        dag_walk_update_add_vertex(u, "p", nullptr, 0, &p, nullptr);
        dag_walk_update_connect(u, gw.gate, p, nullptr);
        return dag_walk_apply(gw.walk.get(), u, nullptr, e);
    });
    EXPECT_NE(msg.find("already started"), std::string::npos) << msg;
    EXPECT_TRUE(dag_has_edge(gw.g.get(), a, b));
    EXPECT_FALSE(dag_has_edge(gw.g.get(), b, a));
    EXPECT_EQ(dag_vertex_count(gw.g.get()), 3u);
    // a -> b is still there, so b -> a closes a cycle.
    msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) { return gw.apply({{b, a}}, {}, {}, e); });
    EXPECT_NE(msg.find("Cycle:"), std::string::npos) << msg;
    ReportPtr r = gw.finish();
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 3u);
    EXPECT_LT(gw.position(b), gw.position(a));
}

// A cycle through a vertex the batch adds between two others, made of two
// edges of the batch and one of the graph, is caught; the same vertex the
// other way round is not a cycle.
TEST(WalkUpdateSequence, CyclesThroughNewVerticesAreRefused) {
    GatedWalk gw;
    uint64_t a = gw.vertex("a"), b = gw.vertex("b");
    ASSERT_EQ(dag_connect(gw.g.get(), b, a, nullptr), DAG_OK);
    gw.start();
    dag_walk_update *u = nullptr;
    ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    UpdatePtr owned(u);
    uint64_t n = 0;
    ASSERT_EQ(dag_walk_update_add_vertex(u, "n", nullptr, 0, &n, nullptr), DAG_OK);
    dag_walk_update_connect(u, a, n, nullptr);  // a -> n -> b -> a
    dag_walk_update_connect(u, n, b, nullptr);
    std::string msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_walk_apply(gw.walk.get(), u, nullptr, e); });
    EXPECT_NE(msg.find("Cycle:\n  a\n  n\n  b"), std::string::npos) << msg;
    EXPECT_EQ(dag_vertex_count(gw.g.get()), 3u);
    // The same vertex between them the right way round is fine.
    owned.reset();
    ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    owned.reset(u);
    ASSERT_EQ(dag_walk_update_add_vertex(u, "n", nullptr, 0, &n, nullptr), DAG_OK);
    dag_walk_update_connect(u, b, n, nullptr);
    dag_walk_update_connect(u, n, a, nullptr);
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_walk_apply(gw.walk.get(), u, &ids, nullptr), DAG_OK);
    std::vector<uint64_t> added = take_ids(ids);
    ASSERT_EQ(added.size(), 1u);
    ReportPtr r = gw.finish();
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 4u);
    EXPECT_LT(gw.position(a), gw.position(added[0]));
    EXPECT_LT(gw.position(added[0]), gw.position(b));
}

// A name read from the walked graph stays readable after an update removed
// its vertex, until the graph is freed: after the walk too, whatever is
// added since (AddressSanitizer checks the reads). Short and long names are
// stored apart.
TEST(WalkUpdateSequence, NameOfARemovedVertexStaysReadable) {
    GatedWalk gw;
    const std::string long_name(300, 'd');
    uint64_t doomed = gw.vertex("doomed");
    uint64_t doomed_long = gw.vertex(long_name.c_str());
    gw.start();
    const char *name = nullptr;
    const char *name_long = nullptr;
    ASSERT_EQ(dag_vertex_name(dag_walk_graph(gw.walk.get()), doomed, &name, nullptr), DAG_OK);
    ASSERT_EQ(dag_vertex_name(dag_walk_graph(gw.walk.get()), doomed_long, &name_long, nullptr), DAG_OK);
    ASSERT_EQ(gw.apply({}, {}, {doomed, doomed_long}), DAG_OK);
    EXPECT_STREQ(name, "doomed");
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) {
        const char *gone = nullptr;
        return dag_vertex_name(gw.g.get(), doomed, &gone, e);
    });
    ReportPtr r = gw.finish();
    EXPECT_EQ(status_of(r.get(), doomed), DAG_VERTEX_NOT_RUN);
    EXPECT_STREQ(name, "doomed");
    gw.walk.reset();
    for (int i = 0; i < 100; ++i) {
        const std::string same_size = "n" + std::to_string(10000 + i);
        const std::string same_long = std::string(295, 'n') + std::to_string(10000 + i);
        ASSERT_EQ(dag_add_vertex(gw.g.get(), same_size.c_str(), nullptr, nullptr, nullptr), DAG_OK);
        ASSERT_EQ(dag_add_vertex(gw.g.get(), same_long.c_str(), nullptr, nullptr, nullptr), DAG_OK);
    }
    EXPECT_STREQ(name, "doomed");
    EXPECT_EQ(name_long, long_name);
}

// Many small updates to one walk, each adding a vertex between two others:
// all land, and every one runs in its place.
TEST(WalkUpdateSequence, ManySmallUpdatesAllLand) {
    GatedWalk gw;
    std::vector<uint64_t> chain;
    for (int i = 0; i < 50; ++i) {
        chain.push_back(gw.vertex(("c" + std::to_string(i)).c_str()));
        if (i) { ASSERT_EQ(dag_connect(gw.g.get(), chain[i], chain[i - 1], nullptr), DAG_OK); }
    }
    gw.start();
    std::vector<std::pair<uint64_t, size_t>> inserted;  // new vertex, chain index it precedes
    for (size_t k = 0; k < 500; ++k) {
        const size_t at = 1 + (k * 7) % (chain.size() - 1);
        dag_walk_update *u = nullptr;
        ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr owned(u);
        uint64_t n = 0;
        ASSERT_EQ(dag_walk_update_add_vertex(u, nullptr, nullptr, 0, &n, nullptr), DAG_OK);
        dag_walk_update_connect(u, n, chain[at - 1], nullptr);
        dag_walk_update_connect(u, chain[at], n, nullptr);
        dag_ids *ids = nullptr;
        ASSERT_EQ(dag_walk_apply(gw.walk.get(), u, &ids, nullptr), DAG_OK) << k;
        inserted.emplace_back(take_ids(ids).at(0), at);
    }
    ReportPtr r = gw.finish();
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 1u + chain.size() + inserted.size());
    for (auto [n, at] : inserted) {
        EXPECT_LT(gw.position(chain[at - 1]), gw.position(n));
        EXPECT_LT(gw.position(n), gw.position(chain[at]));
    }
}

}  // namespace
