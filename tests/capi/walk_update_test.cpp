// Updates during a walk and dynamic expansion, through the C API.
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "walk_test_support.hpp"

namespace {

size_t position(const std::vector<uint64_t> &order, uint64_t v) {
    return static_cast<size_t>(std::find(order.begin(), order.end(), v) - order.begin());
}

TEST(WalkUpdate, AddsVerticesAndEdgesAllAtOnce) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);  // b depends on a
    std::vector<uint64_t> added;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != a) return DAG_WALK_OK;
        auto u = new_update();
        uint64_t n1 = 0, n2 = 0;
        EXPECT_EQ(dag_walk_update_add_vertex(u.get(), "n1", nullptr, 0, &n1, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_add_vertex(u.get(), "n2", nullptr, 0, &n2, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u.get(), b, n1, nullptr), DAG_OK);   // b now also waits for n1
        EXPECT_EQ(dag_walk_update_connect(u.get(), n2, b, nullptr), DAG_OK);   // n2 runs after b
        EXPECT_EQ(dag_walk_update_connect(u.get(), n1, a, nullptr), DAG_OK);   // a is running: fine for n1
        dag_ids *ids = nullptr;
        EXPECT_EQ(dag_walk_apply(w, u.get(), &ids, nullptr), DAG_OK);
        added = take_ids(ids);
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    ASSERT_EQ(added.size(), 2u);
    auto order = rec.ran();
    EXPECT_EQ(order, (std::vector<uint64_t>{a, added[0], b, added[1]}));
    EXPECT_EQ(dag_walk_report_size(report.get()), 4u);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 4u);
    // The user's graph has the changes.
    EXPECT_EQ(dag_vertex_count(g.get()), 4u);
    EXPECT_TRUE(dag_has_edge(g.get(), b, added[0]));
    EXPECT_TRUE(dag_has_edge(g.get(), added[1], b));
    uint64_t found = 0;
    EXPECT_EQ(dag_find_vertex(g.get(), "n2", &found, nullptr), DAG_OK);
    EXPECT_EQ(found, added[1]);
}

TEST(WalkUpdate, EdgeThatWouldMakeAStartedVertexWaitIsRefused) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), c, b, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == b) {
            auto u = new_update();
            uint64_t d = 0;
            dag_walk_update_add_vertex(u.get(), "d", nullptr, 0, &d, nullptr);
            dag_walk_update_connect(u.get(), b, d, nullptr);  // b is running; d has not run
            dag_walk_update_connect(u.get(), c, a, nullptr);  // c has not started: fine alone
            std::string msg = expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
            EXPECT_NE(msg.find("vertex b has already started"), std::string::npos) << msg;
            // All or nothing: c -> a was not applied either, nor d added.
            EXPECT_FALSE(dag_has_edge(dag_walk_graph(w), c, a));
            EXPECT_EQ(dag_vertex_count(dag_walk_graph(w)), 3u);
        }
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(dag_edge_count(g.get()), 1u);
}

TEST(WalkUpdate, EdgeThatWouldMakeAFinishedVertexWaitIsRefused) {
    // One at a time: a finishes, then b runs and tries to make a wait for a
    // new vertex.
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != b) return DAG_WALK_OK;
        auto u = new_update();
        uint64_t fresh = 0;
        EXPECT_EQ(dag_walk_update_add_vertex(u.get(), "fresh", nullptr, 0, &fresh, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u.get(), a, fresh, nullptr), DAG_OK);
        std::string msg = expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
        EXPECT_NE(msg.find("vertex a has already"), std::string::npos) << msg;
        // All or nothing: the new vertex was not added either.
        EXPECT_EQ(dag_vertex_count(dag_walk_graph(w)), 2u);
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(1, 1), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, b}));
    EXPECT_EQ(dag_walk_report_size(report.get()), 2u);
}

TEST(WalkUpdate, CycleIsRefusedAndNothingChanges) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), c, b, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == a) {
            auto u = new_update();
            uint64_t n = 0;
            dag_walk_update_add_vertex(u.get(), "n", nullptr, 0, &n, nullptr);
            dag_walk_update_connect(u.get(), b, c, nullptr);
            std::string msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
            EXPECT_NE(msg.find("Cycle:"), std::string::npos) << msg;
        }
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(dag_vertex_count(g.get()), 3u);
    EXPECT_EQ(dag_walk_report_size(report.get()), 3u);
}

TEST(WalkUpdate, RemovedVertexNeverRunsAndReleasesItsDependents) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), b, a, nullptr);
    dag_connect(g.get(), c, b, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == a) {
            auto u = new_update();
            dag_walk_update_remove_vertex(u.get(), b, nullptr);
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
            auto u2 = new_update();
            dag_walk_update_remove_vertex(u2.get(), a, nullptr);  // running
            expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_apply(w, u2.get(), nullptr, e); });
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, c}));
    EXPECT_EQ(status_of(report.get(), b), DAG_VERTEX_NOT_RUN);
    EXPECT_FALSE(dag_has_vertex(g.get(), b));
}

TEST(WalkUpdate, RemovedEdgeNoLongerHoldsItsWaiter) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), c, a, nullptr);
    dag_connect(g.get(), c, b, nullptr);
    dag_connect(g.get(), b, a, nullptr);
    // b's callback holds until c has finished (the observer says so), where a
    // 50 ms sleep could be outrun by a slow machine; were c still waiting for
    // b, b would wait in vain and fail.
    struct Ctx {
        uint64_t c;
        Latch c_finished;
    } ctx{c, {}};
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
        if (v == a) {
            auto u = new_update();
            dag_walk_update_disconnect(u.get(), c, b, nullptr);
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
        }
        if (v == b && !ctx.c_finished.wait()) {
            *msg = "timeout: c still waits for b";
            return DAG_WALK_FAILED;
        }
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    o.observer = [](dag_walker *, dag_walk_event ev, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                    void *user) {
        auto *x = static_cast<Ctx *>(user);
        if (ev == DAG_WALK_EVENT_FINISHED && v == x->c) x->c_finished.set();
    };
    o.observer_data = &ctx;
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK) << message_of(report.get(), b);
    // c no longer waits for the slow b.
    int64_t c_end = 0, b_end = 0;
    dag_walk_report_vertex(report.get(), c, nullptr, nullptr, nullptr, &c_end, nullptr);
    dag_walk_report_vertex(report.get(), b, nullptr, nullptr, nullptr, &b_end, nullptr);
    EXPECT_LT(c_end, b_end);
    EXPECT_FALSE(dag_has_edge(g.get(), c, b));
}

TEST(WalkUpdate, BadBatches) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != a) return DAG_WALK_OK;
        auto u = new_update();
        dag_walk_update_connect(u.get(), b, 999, nullptr);
        expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
        u = new_update();
        dag_walk_update_add_vertex(u.get(), "a", nullptr, 0, nullptr, nullptr);
        expect_error(DAG_E_DUPLICATE_NAME, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
        // Twice in one batch: the first of the two has no id yet to name.
        u = new_update();
        dag_walk_update_add_vertex(u.get(), "n", nullptr, 0, nullptr, nullptr);
        dag_walk_update_add_vertex(u.get(), "m", nullptr, 0, nullptr, nullptr);
        dag_walk_update_add_vertex(u.get(), "n", nullptr, 0, nullptr, nullptr);
        dag_error *twice = nullptr;
        EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, &twice), DAG_E_DUPLICATE_NAME);
        EXPECT_STREQ(dag_error_message(twice),
                     "dag_walk_apply: vertex 2 of the update: vertex name \"n\" is already used by vertex 0 of the "
                     "update");
        dag_error_free(twice);
        u = new_update();
        dag_walk_update_remove_vertex(u.get(), b, nullptr);
        dag_walk_update_connect(u.get(), b, a, nullptr);
        expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
        u = new_update();
        uint64_t n = 0;
        dag_walk_update_add_vertex(u.get(), nullptr, nullptr, 0, &n, nullptr);
        dag_walk_update_remove_vertex(u.get(), n, nullptr);
        expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
        expect_error(DAG_E_INVALID_ARGUMENT,
                     [&](dag_error **e) { return dag_walk_update_add_vertex(u.get(), "", nullptr, 0, nullptr, e); });
        expect_error(DAG_E_BAD_UTF8,
                     [&](dag_error **e) { return dag_walk_update_add_vertex(u.get(), "\xff", nullptr, 0, nullptr, e); });
        expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_apply(w, nullptr, nullptr, e); });
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(dag_vertex_count(g.get()), 2u);
    EXPECT_EQ(dag_edge_count(g.get()), 0u);
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_update_new(nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_update_connect(nullptr, 1, 2, e); });
    dag_walk_update_free(nullptr);
}

TEST(WalkUpdate, ApplyOnAFinishedWalkIsRefused) {
    auto g = new_graph();
    add(g.get(), "a");
    Recorder rec;
    auto o = options();
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    ASSERT_EQ(dag_walk_wait(w, nullptr, nullptr), DAG_OK);
    auto u = new_update();
    dag_walk_update_add_vertex(u.get(), "late", nullptr, 0, nullptr, nullptr);
    expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
    EXPECT_EQ(dag_vertex_count(g.get()), 1u);
    // Nor can a finished walk expand a vertex.
    auto sub = new_graph();
    add(sub.get(), "s");
    expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_expand(w, 1, sub.get(), nullptr, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT,
                 [&](dag_error **e) { return dag_walk_expand(nullptr, 1, sub.get(), nullptr, nullptr, e); });
}

TEST(WalkUpdate, UpdatesFromAnotherThreadWhileTheWalkRuns) {
    auto g = new_graph();
    uint64_t gate = add(g.get(), "gate");
    std::atomic<bool> release{false};
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        if (v == gate)
            while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
        return DAG_WALK_OK;
    };
    auto o = options(4, 4);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    std::vector<uint64_t> all;
    for (int batch = 0; batch < 20; ++batch) {
        auto u = new_update();
        uint64_t prev = 0;
        for (int i = 0; i < 10; ++i) {
            uint64_t n = 0;
            dag_walk_update_add_vertex(u.get(), nullptr, nullptr, 0, &n, nullptr);
            dag_walk_update_connect(u.get(), n, gate, nullptr);
            if (prev) dag_walk_update_connect(u.get(), n, prev, nullptr);
            prev = n;
        }
        dag_ids *ids = nullptr;
        ASSERT_EQ(dag_walk_apply(w, u.get(), &ids, nullptr), DAG_OK);
        auto got = take_ids(ids);
        all.insert(all.end(), got.begin(), got.end());
    }
    release = true;
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk_wait(w, &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_OK), 201u);
    auto order = rec.ran();
    ASSERT_EQ(order.size(), 201u);
    EXPECT_EQ(order.front(), gate);
    for (size_t i = 0; i < all.size(); ++i)
        if (i % 10) {
            EXPECT_LT(position(order, all[i - 1]), position(order, all[i]));
        }
}

// Two threads apply at once, one batch refused (it would make the running
// gate wait) while the other's are accepted: the refused batch must put the
// walk's order back before the next batch checks against it (a data race
// under ThreadSanitizer when the rollback ran after the apply lock was let go).
TEST(WalkUpdate, RefusedAndAcceptedBatchesFromTwoThreads) {
    GatedWalk gw;
    gw.start();
    constexpr int rounds = 2000;
    std::atomic<int> refused{0}, accepted{0};
    Latch go;
    std::thread refusing([&] {
        go.wait();
        for (int i = 0; i < rounds; ++i) {
            auto u = new_update();
            uint64_t n = 0;
            dag_walk_update_add_vertex(u.get(), nullptr, nullptr, 0, &n, nullptr);
            dag_walk_update_connect(u.get(), gw.gate, n, nullptr);  // the gate has started
            if (dag_walk_apply(gw.walk.get(), u.get(), nullptr, nullptr) == DAG_E_STATE) ++refused;
        }
    });
    std::thread accepting([&] {
        go.wait();
        for (int i = 0; i < rounds; ++i) {
            auto u = new_update();
            uint64_t n = 0;
            dag_walk_update_add_vertex(u.get(), nullptr, nullptr, 0, &n, nullptr);
            dag_walk_update_connect(u.get(), n, gw.gate, nullptr);
            if (dag_walk_apply(gw.walk.get(), u.get(), nullptr, nullptr) == DAG_OK) ++accepted;
        }
    });
    go.set();
    refusing.join();
    accepting.join();
    EXPECT_EQ(refused.load(), rounds);
    EXPECT_EQ(accepted.load(), rounds);
    ReportPtr report = gw.finish();
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), size_t{rounds} + 1);
    EXPECT_EQ(dag_vertex_count(gw.g.get()), size_t{rounds} + 1);
    EXPECT_EQ(dag_edge_count(gw.g.get()), size_t{rounds});
}

// A walk started from a visitor could change the graph under the traversal
// through its updates (the traversal read lists it had not sized for): while
// a traversal, search or predicate of a graph runs, starting a walk of that
// graph is refused like any other change.
struct WalkFromVisitor {
    dag_graph *g;
    uint64_t visited;  // the vertex whose walk callback adds dependents
    std::vector<dag_status> statuses;
    size_t visits = 0;
};

// Adds 64 vertices depending on the visited vertex, once.
dag_walk_result add_64_dependents(dag_walker *w, uint64_t v, const char **, void *user) {
    if (v != static_cast<WalkFromVisitor *>(user)->visited) return DAG_WALK_OK;
    auto u = new_update();
    for (int i = 0; i < 64; ++i) {
        uint64_t n = 0;
        dag_walk_update_add_vertex(u.get(), nullptr, nullptr, 0, &n, nullptr);
        dag_walk_update_connect(u.get(), n, v, nullptr);
    }
    EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
    return DAG_WALK_OK;
}

// Tries both ways of starting a walk, from the first call only: before the
// fix the walks went through, and every visit of what they added would have
// walked again.
void walk_from_inside(WalkFromVisitor &x) {
    if (x.visits++) return;
    auto o = options(1, 1);
    x.statuses.push_back(dag_walk(x.g, add_64_dependents, &x, &o, nullptr, nullptr));
    dag_walker *w = nullptr;
    x.statuses.push_back(dag_walk_start(x.g, add_64_dependents, &x, &o, &w, nullptr));
    if (w) dag_walk_wait(w, nullptr, nullptr);
    dag_walk_free(w);
}

int walking_visitor(uint64_t, size_t, void *user) {
    walk_from_inside(*static_cast<WalkFromVisitor *>(user));
    return DAG_VISIT_CONTINUE;
}

int walking_predicate(uint64_t, void *user) {
    auto &x = *static_cast<WalkFromVisitor *>(user);
    x.visits = 0;
    walk_from_inside(x);
    return 0;
}

TEST(WalkApiBusy, WalkOfAGraphFromInsideItsTraversalIsRefused) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    WalkFromVisitor x{g.get(), a, {}};
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, DAG_TRAVERSE_REVERSE, walking_visitor, &x, nullptr), DAG_OK);
    EXPECT_EQ(x.visits, 2u);  // nothing was added under the traversal
    int found = -1;
    ASSERT_EQ(dag_match_descendant(g.get(), &a, 1, walking_predicate, &x, &found, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_first_descendants_with(g.get(), &a, 1, walking_predicate, &x, &ids, nullptr), DAG_OK);
    dag_ids_free(ids);
    ASSERT_EQ(x.statuses.size(), 6u);
    for (dag_status st : x.statuses) EXPECT_EQ(st, DAG_E_BUSY);
    EXPECT_EQ(dag_vertex_count(g.get()), 2u);
    // Once the traversal has returned, the graph is walked again.
    auto o = options(1, 1);
    EXPECT_EQ(dag_walk(g.get(), add_64_dependents, &x, &o, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(dag_vertex_count(g.get()), 66u);
}

// Updates replace the graph's contents; callbacks reading it at the same
// time must never see it half replaced (ThreadSanitizer checks the rest).
TEST(WalkUpdate, CallbacksReadTheGraphWhileUpdatesReplaceIt) {
    auto g = new_graph();
    uint64_t prev = 0, first = 0;  // first: the chain's end, which waits on nothing
    for (int i = 0; i < 300; ++i) {
        uint64_t v = add(g.get(), ("v" + std::to_string(i)).c_str());
        if (prev) dag_connect(g.get(), v, prev, nullptr);
        else first = v;
        prev = v;
    }
    std::atomic<int> bad{0};
    std::atomic<int> applied{0};
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        // Without this gate a fast machine can finish all 300 vertices before
        // the first update lands, and the race under test never happens.
        if (v == first) {
            const auto limit = std::chrono::steady_clock::now() + gate_limit;
            while (applied.load() < 20 && std::chrono::steady_clock::now() < limit)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        const dag_graph *wg = dag_walk_graph(w);
        for (int k = 0; k < 20; ++k) {
            const char *name = nullptr;
            const bool named = dag_vertex_name(wg, v, &name, nullptr) == DAG_OK && name;
            if (!named || (name[0] != 'v' && name[0] != 'n')) ++bad;  // chain vertices, added ones
            dag_ids *deps = nullptr;
            if (dag_dependencies(wg, v, &deps, nullptr) != DAG_OK) ++bad;
            dag_ids_free(deps);
            if (dag_vertex_count(wg) < 300) ++bad;
        }
        return DAG_WALK_OK;
    };
    auto o = options(4, 2);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    for (int k = 0; k < 200; ++k) {
        auto u = new_update();
        dag_walk_update_add_vertex(u.get(), ("n" + std::to_string(k)).c_str(), nullptr, 0, nullptr, nullptr);
        dag_status st = dag_walk_apply(w, u.get(), nullptr, nullptr);
        if (st == DAG_E_STATE) break;  // the walk finished
        ASSERT_EQ(st, DAG_OK);
        ++applied;
    }
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk_wait(w, &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(bad.load(), 0);
    EXPECT_GE(applied.load(), 20);
    EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_OK), 300u + static_cast<size_t>(applied.load()));
}

struct ApplyFromVisitor {
    dag_walker *walk;
    dag_status status = DAG_OK;
};

int apply_from_visitor(uint64_t, size_t, void *user) {
    auto *a = static_cast<ApplyFromVisitor *>(user);
    dag_walk_update *u = nullptr;
    dag_walk_update_new(&u, nullptr);
    dag_walk_update_add_vertex(u, nullptr, nullptr, 0, nullptr, nullptr);
    a->status = dag_walk_apply(a->walk, u, nullptr, nullptr);
    dag_walk_update_free(u);
    return DAG_VISIT_STOP;
}

// A visitor runs inside a read of the graph; an update from there would wait
// for that read to end, so it is refused instead.
TEST(WalkUpdate, ApplyFromInsideAReadOfTheGraphIsRefused) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    ApplyFromVisitor from{};
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        from.walk = w;
        EXPECT_EQ(dag_traverse(dag_walk_graph(w), &v, 1, 0, apply_from_visitor, &from, nullptr), DAG_OK);
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk(g.get(), record_cb, &rec, &o, &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(from.status, DAG_E_STATE);
    EXPECT_EQ(dag_vertex_count(g.get()), 1u);
    EXPECT_EQ(rec.ran(), std::vector<uint64_t>{a});
}

// The same through a sub-walk, whose graph is its own copy: it too counts as
// walked while the sub-walk runs, so its updates keep its readers out.
TEST(WalkUpdate, SubWalkApplyFromInsideAReadOfItsGraphIsRefused) {
    auto g = new_graph();
    uint64_t top = add(g.get(), "top");
    auto sub = new_graph();
    uint64_t inner = add(sub.get(), "inner");
    ApplyFromVisitor from{};
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (dag_walk_graph(w) == g.get()) {
            EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
            return DAG_WALK_OK;
        }
        if (v != inner) return DAG_WALK_OK;  // "late", added below
        from.walk = w;
        const dag_graph *mine = dag_walk_graph(w);
        EXPECT_EQ(dag_traverse(mine, &v, 1, 0, apply_from_visitor, &from, nullptr), DAG_OK);
        EXPECT_EQ(dag_vertex_count(mine), 1u);
        // Outside the read the same update lands.
        auto u = new_update();
        EXPECT_EQ(dag_walk_update_add_vertex(u.get(), "late", nullptr, 0, nullptr, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
        EXPECT_EQ(dag_vertex_count(mine), 2u);
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(1, 1), report), DAG_OK);
    EXPECT_EQ(from.status, DAG_E_STATE);
    EXPECT_EQ(status_of(report.get(), top), DAG_VERTEX_OK);
    EXPECT_EQ(rec.ran().size(), 3u);  // top, inner, late
}

// ---- expansion --------------------------------------------------------------

struct Expander {
    std::mutex mu;
    std::vector<std::string> ran;  // "depth:name"
    int depth_limit = 3;
    bool fail_leaf = false;
};

dag_walk_result expanding_cb(dag_walker *w, uint64_t v, const char **msg, void *user) {
    auto *x = static_cast<Expander *>(user);
    const dag_graph *g = dag_walk_graph(w);
    const char *name = nullptr;
    dag_vertex_name(g, v, &name, nullptr);
    std::string n = name ? name : "?";
    {
        std::lock_guard<std::mutex> lk(x->mu);
        x->ran.push_back(n);
    }
    if (n.rfind("expand", 0) == 0 && static_cast<int>(n.size()) - 6 < x->depth_limit) {
        // A sub-graph: "expand" + one more x, and a leaf it depends on.
        dag_graph *sub = nullptr;
        dag_new(&sub, nullptr);
        uint64_t e = 0, leaf = 0;
        dag_add_vertex(sub, (n + "x").c_str(), nullptr, &e, nullptr);
        dag_add_vertex(sub, ("leaf" + std::to_string(n.size())).c_str(), nullptr, &leaf, nullptr);
        dag_connect(sub, e, leaf, nullptr);
        dag_status st = dag_walk_expand(w, v, sub, nullptr, nullptr, nullptr);
        dag_free(sub);
        EXPECT_EQ(st, DAG_OK);
        return DAG_WALK_OK;
    }
    if (x->fail_leaf && n.rfind("leaf", 0) == 0) {
        *msg = "leaf broke";
        return DAG_WALK_FAILED;
    }
    return DAG_WALK_OK;
}

TEST(WalkExpand, NestedThreeDeepAtParallelismOne) {
    auto g = new_graph();
    uint64_t root = add(g.get(), "expand"), after = add(g.get(), "after");
    dag_connect(g.get(), after, root, nullptr);
    Expander x;
    auto o = options(1, 1);
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk(g.get(), expanding_cb, &x, &o, &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(x.ran, (std::vector<std::string>{"expand", "leaf6", "expandx", "leaf7", "expandxx", "leaf8",
                                               "expandxxx", "after"}));
    EXPECT_EQ(status_of(r, root), DAG_VERTEX_OK);
    EXPECT_EQ(dag_walk_report_size(r), 2u);
    int64_t root_end = 0, after_start = 0;
    dag_walk_report_vertex(r, root, nullptr, nullptr, nullptr, &root_end, nullptr);
    dag_walk_report_vertex(r, after, nullptr, nullptr, &after_start, nullptr, nullptr);
    EXPECT_LE(root_end, after_start);
}

// At parallelism 1 the worker's batch may hold the sub-walk's last vertex and
// then a vertex that goes pending: the worker loses its slot to it, and
// counting what it finished ends the sub-walk, which settles its parent and
// queues the parent's dependent. That queueing took the executor's lock the
// worker still held: the walk hung for good.
TEST(WalkExpand, ASubWalkEndingAsItsWorkerLosesItsSlotQueuesItsParentsDependents) {
    auto g = new_graph();
    const uint64_t root = add(g.get(), "root"), gate = add(g.get(), "gate"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), after, root, nullptr), DAG_OK);
    std::vector<uint64_t> held;
    for (int i = 0; i < 4; ++i) {
        held.push_back(add(g.get(), ("held" + std::to_string(i)).c_str()));
        ASSERT_EQ(dag_connect(g.get(), held.back(), gate, nullptr), DAG_OK);
    }
    auto sub = new_graph();
    add(sub.get(), "x");
    struct Script {
        uint64_t root;
        const dag_graph *graph, *sub;
        std::vector<uint64_t> held;
        std::vector<std::thread> completers;
    } script{root, g.get(), sub.get(), held, {}};
    const auto cb = [](dag_walker *w, uint64_t v, const char **, void *ud) -> dag_walk_result {
        auto &s = *static_cast<Script *>(ud);
        // The sub-walk's vertex may have the root's id: told apart by graph.
        if (dag_walk_graph(w) != s.graph) return DAG_WALK_OK;
        if (v == s.root) {
            EXPECT_EQ(dag_walk_expand(w, v, s.sub, nullptr, nullptr, nullptr), DAG_OK);
            return DAG_WALK_OK;
        }
        if (std::find(s.held.begin(), s.held.end(), v) != s.held.end()) {
            s.completers.emplace_back([w, v] {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                EXPECT_EQ(dag_walk_complete(w, v, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
            });
            return DAG_WALK_PENDING;
        }
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    ReportPtr report;
    const dag_status st = walk_or_abort(g.get(), cb, &script, o, report);
    for (auto &t : script.completers) t.join();
    ASSERT_EQ(st, DAG_OK);
    EXPECT_EQ(status_of(report.get(), root), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(report.get(), after), DAG_VERTEX_OK);
    for (uint64_t v : held) EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_OK);
}

TEST(WalkExpand, SubWalkFailureBecomesTheVertexFailure) {
    auto g = new_graph();
    uint64_t root = add(g.get(), "expand"), after = add(g.get(), "after"), other = add(g.get(), "other");
    dag_connect(g.get(), after, root, nullptr);
    Expander x;
    x.depth_limit = 1;
    x.fail_leaf = true;
    auto o = options(2, 2);
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk(g.get(), expanding_cb, &x, &o, &r, nullptr), DAG_E_WALK_FAILED);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, root), DAG_VERTEX_FAILED);
    EXPECT_NE(message_of(r, root).find("leaf broke"), std::string::npos) << message_of(r, root);
    EXPECT_EQ(status_of(r, after), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r, other), DAG_VERTEX_OK);
}

TEST(WalkExpand, VertexRemovedFromTheSubWalkDoesNotCount) {
    auto g = new_graph();
    uint64_t top = add(g.get(), "top");
    auto sub = new_graph();
    uint64_t first = add(sub.get(), "first"), second = add(sub.get(), "second");
    dag_connect(sub.get(), second, first, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (dag_walk_graph(w) == g.get()) {
            EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
        } else if (v == first) {
            auto u = new_update();
            EXPECT_EQ(dag_walk_update_remove_vertex(u.get(), second, nullptr), DAG_OK);
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(status_of(report.get(), top), DAG_VERTEX_OK);
    EXPECT_EQ(message_of(report.get(), top), "");
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{top, first}));
}

// A cancel ends an expanded vertex with its sub-walk: completing it is a
// state error like any expanded vertex's, not a completion too late.
TEST(WalkExpand, CompletingAnExpandedVertexAfterACancelIsAStateError) {
    auto g = new_graph();
    uint64_t top = add(g.get(), "top"), blocker = add(g.get(), "blocker");
    auto sub = new_graph();
    add(sub.get(), "inner");
    EventLatch top_finished(DAG_WALK_EVENT_FINISHED, top, g.get());
    Latch release;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (dag_walk_graph(w) != g.get()) return DAG_WALK_PENDING;  // inner
        if (v == top) { EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK); }
        if (v == blocker) { EXPECT_TRUE(release.wait()); }  // keeps the walk from finishing
        return DAG_WALK_OK;
    };
    auto o = options(3, 3);
    top_finished.attach(o);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    // Once inner is pending (it and blocker have both run), cancel.
    const auto limit = std::chrono::steady_clock::now() + gate_limit;
    while (rec.ran().size() < 3 && std::chrono::steady_clock::now() < limit)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(rec.ran().size(), 3u);
    ASSERT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
    ASSERT_TRUE(top_finished.wait());
    std::string msg =
        expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_complete(w, top, DAG_WALK_OK, nullptr, e); });
    EXPECT_NE(msg.find("expanded"), std::string::npos) << msg;
    release.set();
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(w, &r, nullptr), DAG_E_CANCELLED);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, top), DAG_VERTEX_CANCELLED);
    EXPECT_EQ(dag_walk_report_ran(r, top), 1);
}

TEST(WalkExpand, RefusedExpansions) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    auto cyclic = new_graph();
    uint64_t p = add(cyclic.get(), "p"), q = add(cyclic.get(), "q");
    dag_connect(cyclic.get(), p, q, nullptr);
    dag_connect(cyclic.get(), q, p, nullptr);
    auto fine = new_graph();
    add(fine.get(), "f");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != a || dag_walk_graph(w) != g.get()) return DAG_WALK_OK;  // the sub-walk reuses this callback
        std::string msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) {
            return dag_walk_expand(w, a, cyclic.get(), nullptr, nullptr, e);
        });
        EXPECT_NE(msg.find("Cycle:"), std::string::npos);
        expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_expand(w, b, fine.get(), nullptr, nullptr, e); });
        expect_error(DAG_E_UNKNOWN_VERTEX,
                     [&](dag_error **e) { return dag_walk_expand(w, 12345, fine.get(), nullptr, nullptr, e); });
        expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_expand(w, a, nullptr, nullptr, nullptr, e); });
        EXPECT_EQ(dag_walk_expand(w, a, fine.get(), nullptr, nullptr, nullptr), DAG_OK);
        expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_expand(w, a, fine.get(), nullptr, nullptr, e); });
        return DAG_WALK_FAILED;  // ignored: the sub-walk decides
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    // a, then f (sub-walk, same callback), then b.
    EXPECT_EQ(rec.ran().size(), 3u);
    EXPECT_EQ(rec.ran().back(), b);
}

TEST(WalkExpand, SubWalkHandle) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    auto sub = new_graph();
    uint64_t s = add(sub.get(), "s");
    struct Ctx {
        dag_graph *sub;
        uint64_t a;
        std::atomic<int> sub_calls{0};
    } ctx{sub.get(), a};
    auto cb = [](dag_walker *w, uint64_t v, const char **, void *user) {
        auto *c = static_cast<Ctx *>(user);
        if (v == c->a && dag_walk_graph(w) != nullptr && dag_vertex_count(dag_walk_graph(w)) == 1 &&
            dag_walk_expand(w, v, c->sub, [](dag_walker *sw, uint64_t, const char **, void *u) {
                auto *cc = static_cast<Ctx *>(u);
                ++cc->sub_calls;
                EXPECT_NE(dag_walk_graph(sw), cc->sub);  // a private copy
                EXPECT_EQ(dag_walk_wait(sw, nullptr, nullptr), DAG_E_STATE);
                dag_walk_free(sw);                       // owned by the walk: no effect
                return DAG_WALK_OK;
            }, user, nullptr) == DAG_OK)
            return DAG_WALK_OK;
        return DAG_WALK_OK;
    };
    auto o = options();
    ASSERT_EQ(dag_walk(g.get(), cb, &ctx, &o, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(ctx.sub_calls.load(), 1);
    (void)s;
}

}  // namespace
