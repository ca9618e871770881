// Calls into the library during a walk: from its observer and callbacks, on
// the threads the events arrive on, and from other threads. What the header
// allows works, what it forbids is refused with a status, and nothing
// deadlocks or races.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "walk_test_support.hpp"

namespace {

// What an observer did when its event came.
struct Nested {
    uint64_t on_vertex = 0;
    dag_walk_event on_event = DAG_WALK_EVENT_SKIPPED;
    std::function<dag_status(dag_walker *)> call;
    std::atomic<int> calls{0};
    std::atomic<dag_status> status{DAG_OK};
    std::thread::id thread;
};

void nested_observer(dag_walker *w, dag_walk_event event, uint64_t vertex, dag_vertex_status, size_t, size_t, size_t,
                     void *user) {
    auto *n = static_cast<Nested *>(user);
    if (event != n->on_event || vertex != n->on_vertex) return;
    n->thread = std::this_thread::get_id();
    n->status = n->call(w);
    ++n->calls;
}

// Removing a vertex reports it skipped to the observer on the thread that
// applies the update; the observer may apply an update of its own there (it
// used to wait for the first update's lock, held by its own thread).
TEST(WalkReentry, ObserverAppliesAnUpdateWhileHearingOfAnotherOnesRemoval) {
    GatedWalk gw;
    const uint64_t a = gw.vertex("a"), gone = gw.vertex("gone");
    Nested n;
    n.on_vertex = gone;
    uint64_t added = 0;
    n.call = [&](dag_walker *w) {
        dag_walk_update *u = nullptr;
        EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr batch(u);
        uint64_t p = 0;
        EXPECT_EQ(dag_walk_update_add_vertex(u, "added by the observer", nullptr, 0, &p, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u, p, a, nullptr), DAG_OK);
        dag_ids *ids = nullptr;
        dag_status st = dag_walk_apply(w, u, &ids, nullptr);
        if (st == DAG_OK) added = take_ids(ids).at(0);
        return st;
    };
    gw.start(nested_observer, &n);
    ASSERT_EQ(gw.apply({}, {}, {gone}), DAG_OK);
    EXPECT_EQ(n.calls, 1);
    EXPECT_EQ(n.thread, std::this_thread::get_id());
    EXPECT_EQ(n.status, DAG_OK);
    ReportPtr r = gw.finish();
    ASSERT_NE(added, 0u);
    EXPECT_EQ(status_of(r.get(), added), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r.get(), gone), DAG_VERTEX_NOT_RUN);
    EXPECT_LT(gw.position(a), gw.position(added));
}

// Removing a vertex reports it skipped to the observer on the thread that
// applies the update, outside the pool; waiting for the walk from there
// would wait for itself, so it is refused (it used to hang).
TEST(WalkReentry, WaitFromAnObserverOnTheUpdatingThreadIsRefused) {
    GatedWalk gw;
    const uint64_t a = gw.vertex("a"), gone = gw.vertex("gone");
    Nested n;
    n.on_vertex = gone;
    n.call = [](dag_walker *w) { return dag_walk_wait(w, nullptr, nullptr); };
    gw.start(nested_observer, &n);
    ASSERT_EQ(gw.apply({}, {}, {gone}), DAG_OK);
    EXPECT_EQ(n.calls, 1);
    EXPECT_EQ(n.thread, std::this_thread::get_id());
    EXPECT_EQ(n.status, DAG_E_STATE);
    ReportPtr r = gw.finish();
    EXPECT_EQ(status_of(r.get(), a), DAG_VERTEX_OK);
}

// The header: a callback's message is ignored when it returns DAG_WALK_OK.
TEST(WalkReentry, MessageOfASucceedingCallbackIsIgnored) {
    GraphPtr g = new_graph();
    const uint64_t ok = add(g.get(), "ok"), bad = add(g.get(), "bad");
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        *msg = v == ok ? "not an error" : "broken";
        return v == ok ? DAG_WALK_OK : DAG_WALK_FAILED;
    };
    ReportPtr r;
    EXPECT_EQ(run_walk(g.get(), rec, options(), r), DAG_E_WALK_FAILED);
    EXPECT_EQ(message_of(r.get(), ok), "");
    EXPECT_EQ(message_of(r.get(), bad), "broken");
}

// dag_set_vertex_user_data is allowed during a walk, while a callback's
// updates add vertices and so move the vertex records it writes to (a data
// race ThreadSanitizer reported before the call waited for updates).
TEST(WalkReentry, UserDataChangesWhileUpdatesAddVertices) {
    GraphPtr g = new_graph();
    const uint64_t grower = add(g.get(), "grower"), target = add(g.get(), "target");
    std::atomic<bool> growing{true};
    Latch walking;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != grower) return DAG_WALK_OK;
        walking.set();
        for (int i = 0; i < 200; ++i) {
            dag_walk_update *u = nullptr;
            EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
            UpdatePtr batch(u);
            for (int k = 0; k < 20; ++k) EXPECT_EQ(dag_walk_update_add_vertex(u, nullptr, nullptr, 0, nullptr, nullptr), DAG_OK);
            EXPECT_EQ(dag_walk_apply(w, u, nullptr, nullptr), DAG_OK);
        }
        growing = false;
        return DAG_WALK_OK;
    };
    int values[64];
    // Only during the walk: before it starts, a change is as much the
    // caller's to keep apart from dag_walk_start as any other.
    std::thread writer([&] {
        if (!walking.wait()) return;
        for (unsigned i = 0; growing; ++i) {
            void *want = &values[i % 64], *got = nullptr;
            ASSERT_EQ(dag_set_vertex_user_data(g.get(), target, want, nullptr), DAG_OK);
            ASSERT_EQ(dag_vertex_user_data(g.get(), target, &got, nullptr), DAG_OK);
            ASSERT_EQ(got, want);
        }
    });
    ReportPtr r;
    EXPECT_EQ(run_walk(g.get(), rec, options(), r), DAG_OK);
    writer.join();
    EXPECT_EQ(dag_vertex_count(g.get()), 2u + 200 * 20);
}

// Threads of this process now named `name`.
std::size_t threads_named(const std::string &name) {
    std::size_t n = 0;
    for (const auto &e : std::filesystem::directory_iterator("/proc/self/task")) {
        // A thread that ends between the listing and the read is not counted.
        std::ifstream comm(e.path() / "comm");
        std::string comm_name;
        if (std::getline(comm, comm_name) && comm_name == name) ++n;
    }
    return n;
}

// The walks' pool threads alive now: the walker names them "dag-walk".
std::size_t walk_threads() { return threads_named("dag-walk"); }

// Waits until walk_threads() is n. A walk freed from inside its own
// callback (here or in an earlier test) ends its threads after the free has
// returned: what counts threads waits for those first.
bool walk_threads_become(std::size_t n) {
    const auto limit = std::chrono::steady_clock::now() + gate_limit;
    while (walk_threads() != n) {
        if (std::chrono::steady_clock::now() >= limit) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// A walk's own callback may free it: the walk is cancelled (nothing after it
// starts), the call returns at once (it used to abort the process), and the
// walk, its pool and its graph are freed once it finishes, the graph's
// handle having been freed first.
TEST(WalkReentry, CallbackFreesItsOwnWalk) {
    GraphPtr g = new_graph();
    const uint64_t first = add(g.get(), "first"), freer = add(g.get(), "freer"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), freer, first, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), after, freer, nullptr), DAG_OK);
    ASSERT_TRUE(walk_threads_become(0));
    Latch freed;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == freer) {
            dag_walk_free(w);
            freed.set();
        }
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    dag_free(g.release());
    ASSERT_TRUE(freed.wait());
    // The walk's pool threads exit when it is freed: that is how the test
    // sees it happen (and the sanitizers see nothing leaked or reused).
    EXPECT_TRUE(walk_threads_become(0));
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{first, freer}));
}

// The walk of a blocking dag_walk() freed from its own callback or observer:
// dag_walk() frees it as it returns, so the free only cancels it (it was
// freed twice, and the process ended).
TEST(WalkReentry, AFreeFromInsideADagWalkCallOnlyCancelsIt) {
    for (bool from_observer : {false, true}) {
        SCOPED_TRACE(from_observer ? "observer" : "callback");
        GraphPtr g = new_graph();
        const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
        ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
        ASSERT_EQ(dag_connect(g.get(), c, b, nullptr), DAG_OK);
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t v, const char **) {
            if (!from_observer && v == a) dag_walk_free(w);
            return DAG_WALK_OK;
        };
        Nested n;
        n.on_vertex = a;
        n.on_event = DAG_WALK_EVENT_FINISHED;
        n.call = [](dag_walker *w) {
            dag_walk_free(w);
            return DAG_OK;
        };
        auto o = options(1, 1);
        if (from_observer) {
            o.observer = nested_observer;
            o.observer_data = &n;
        }
        dag_walk_report *raw = nullptr;
        EXPECT_EQ(dag_walk(g.get(), record_cb, &rec, &o, &raw, nullptr), DAG_E_CANCELLED);
        ReportPtr report(raw);
        EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a}));
        EXPECT_EQ(status_of(report.get(), a), DAG_VERTEX_OK);
        EXPECT_EQ(status_of(report.get(), c), DAG_VERTEX_CANCELLED);
    }
}

// A wait for a walk from inside a read of its graph (a traversal's visitor)
// is refused: an update from one of its callbacks waits for that read, and
// the wait waited for ever. A free there cancels and returns.
TEST(WalkReentry, AWaitFromInsideAReadOfTheWalkedGraphIsRefused) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a");
    Latch reading, applied;
    Recorder rec;
    std::atomic<dag_status> apply_status{DAG_OK};
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != a) return DAG_WALK_OK;  // the vertex the update adds
        EXPECT_TRUE(reading.wait());
        dag_walk_update *u = nullptr;
        EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr owned(u);
        EXPECT_EQ(dag_walk_update_add_vertex(u, "late", nullptr, 0, nullptr, nullptr), DAG_OK);
        apply_status = dag_walk_apply(w, u, nullptr, nullptr);
        applied.set();
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    struct Visit {
        dag_walker *w;
        Latch *reading;
        dag_status waited = DAG_OK, waited_for = DAG_OK;
    } visit{w, &reading};
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, 0,
                           [](uint64_t, size_t, void *data) -> int {
                               auto &v = *static_cast<Visit *>(data);
                               v.reading->set();
                               v.waited = dag_walk_wait(v.w, nullptr, nullptr);
                               v.waited_for = dag_walk_wait_for(v.w, -1, nullptr, nullptr);
                               return static_cast<int>(DAG_VISIT_STOP);
                           },
                           &visit, nullptr),
              DAG_OK);
    EXPECT_EQ(visit.waited, DAG_E_STATE);
    EXPECT_EQ(visit.waited_for, DAG_E_STATE);
    ASSERT_TRUE(applied.wait());
    EXPECT_EQ(apply_status.load(), DAG_OK);
    dag_walk_report *raw = nullptr;
    EXPECT_EQ(dag_walk_wait(w, &raw, nullptr), DAG_OK);
    ReportPtr report(raw);
    EXPECT_EQ(dag_walk_report_size(report.get()), 2u);
}

// The same from inside a read of a sub-walk's graph: the wait waited for
// ever (an update of the sub-walk waits for that read), and the free freed
// the graph being read (its handle is the walk's), a use after free.
TEST(WalkReentry, AWaitOrFreeFromInsideAReadOfASubWalksGraph) {
    GraphPtr g = new_graph(), sub = new_graph();
    const uint64_t a = add(g.get(), "a");
    const uint64_t s1 = add(sub.get(), "s1"), s2 = add(sub.get(), "s2");
    ASSERT_EQ(dag_connect(sub.get(), s2, s1, nullptr), DAG_OK);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_begin(g.get(), nullptr, &w, nullptr), DAG_OK);
    uint64_t ids[4];
    dag_walker *walks[4];
    size_t n = 0;
    ASSERT_EQ(dag_walk_next_ready(w, ids, walks, 4, 0, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    ASSERT_EQ(dag_walk_expand(w, a, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_next_ready(w, ids, walks, 4, 1000, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    ASSERT_EQ(ids[0], s1);
    struct Visit {
        dag_walker *w;
        dag_status waited = DAG_OK, waited_for = DAG_OK;
        int visits = 0;
    } visit{w};
    // From s2 to s1, reading on after the first visit.
    ASSERT_EQ(dag_traverse(dag_walk_graph(walks[0]), &s2, 1, 0,
                           [](uint64_t, size_t, void *data) -> int {
                               auto &v = *static_cast<Visit *>(data);
                               if (v.visits++ == 0) {
                                   v.waited = dag_walk_wait(v.w, nullptr, nullptr);
                                   v.waited_for = dag_walk_wait_for(v.w, 10, nullptr, nullptr);
                                   dag_walk_free(v.w);
                               }
                               return static_cast<int>(DAG_VISIT_CONTINUE);
                           },
                           &visit, nullptr),
              DAG_OK);
    EXPECT_EQ(visit.waited, DAG_E_STATE);
    EXPECT_EQ(visit.waited_for, DAG_E_STATE);
    EXPECT_EQ(visit.visits, 2);
}

// A walk started (and waited for) from a callback of another: its callbacks
// run on its own pool threads, where the first walk's frames are not, yet
// waiting for the first walk there waits for the callback waiting for this
// one. dag_walk_free of the first walk from there deadlocked; now it
// returns at once as from the first walk's own callback, and a wait for it
// is refused.
TEST(WalkReentry, AWalkStartedFromACallbackMayFreeTheWalkThatStartedIt) {
    GraphPtr outer_graph = new_graph(), inner_graph = new_graph();
    const uint64_t outer_vertex = add(outer_graph.get(), "outer"), after = add(outer_graph.get(), "after");
    ASSERT_EQ(dag_connect(outer_graph.get(), after, outer_vertex, nullptr), DAG_OK);
    const uint64_t inner_vertex = add(inner_graph.get(), "inner");
    Latch freed, outer_done, outer_known;
    std::atomic<dag_walker *> outer{nullptr};
    std::atomic<dag_status> waited{DAG_OK}, inner_walk{DAG_E_INTERNAL};
    std::thread::id outer_thread, inner_thread;
    Recorder inner_rec;
    inner_rec.body = [&](dag_walker *, uint64_t, const char **) {
        inner_thread = std::this_thread::get_id();
        waited = dag_walk_wait(outer.load(), nullptr, nullptr);
        dag_walk_free(outer.load());
        freed.set();
        return DAG_WALK_OK;
    };
    Recorder outer_rec;
    outer_rec.body = [&](dag_walker *, uint64_t, const char **) {
        outer_thread = std::this_thread::get_id();
        EXPECT_TRUE(outer_known.wait());
        auto o = options(1, 1);
        dag_walk_report *r = nullptr;
        inner_walk = dag_walk(inner_graph.get(), record_cb, &inner_rec, &o, &r, nullptr);
        dag_walk_report_free(r);
        outer_done.set();
        return DAG_WALK_OK;
    };
    // A deadlock would hang the test binary: it fails it instead.
    std::thread watchdog([&] {
        if (!outer_done.wait()) {
            std::fprintf(stderr, "deadlock: the walk freed from a nested walk's callback never returned\n");
            std::_Exit(1);
        }
    });
    auto o = options(1, 1);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(outer_graph.get(), record_cb, &outer_rec, &o, &w, nullptr), DAG_OK);
    outer = w;
    outer_known.set();
    watchdog.join();
    EXPECT_TRUE(freed.is_set());
    EXPECT_EQ(waited.load(), DAG_E_STATE);
    EXPECT_EQ(inner_walk.load(), DAG_OK);
    EXPECT_NE(outer_thread, inner_thread);
    EXPECT_EQ(inner_rec.ran(), (std::vector<uint64_t>{inner_vertex}));
    // Freed from inside, the walk was cancelled: `after` never ran.
    EXPECT_EQ(outer_rec.ran(), (std::vector<uint64_t>{outer_vertex}));
}

// No more pool threads than callbacks can be in flight: 16 threads at
// parallelism 2 start 2 (they used to start all 16, 14 of them idle for
// good).
TEST(WalkReentry, PoolStartsNoMoreThreadsThanCanBeBusy) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_TRUE(walk_threads_become(0));
    Latch both_running, release;
    std::atomic<int> running{0};
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        if (++running == 2) both_running.set();
        release.wait();
        return DAG_WALK_OK;
    };
    auto o = options(2, 16);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    ASSERT_TRUE(both_running.wait());
    EXPECT_EQ(walk_threads(), 2u);
    release.set();
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk_wait(w, &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, a), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r, b), DAG_VERTEX_OK);
}

// The walker's threads are named for what they are: callbacks run on
// "dag-walk" threads, a back-off waits on "dag-retry".
TEST(WalkReentry, TheWalkersThreadsAreNamed) {
    GraphPtr g = new_graph();
    const uint64_t flaky = add(g.get(), "flaky");
    std::atomic<int> calls{0};
    std::string first_thread, second_thread;
    std::size_t retry_threads = 0;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **msg) {
        std::ifstream comm("/proc/thread-self/comm");
        if (calls++ == 0) {
            std::getline(comm, first_thread);
            *msg = "once";
            return DAG_WALK_FAILED;
        }
        std::getline(comm, second_thread);
        retry_threads = threads_named("dag-retry");
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    o.retries = 1;
    o.retry_delay_ms = 1;
    ReportPtr r;
    ASSERT_EQ(run_walk(g.get(), rec, o, r), DAG_OK);
    EXPECT_EQ(status_of(r.get(), flaky), DAG_VERTEX_OK);
    ASSERT_EQ(calls.load(), 2);
    // A pull walk starts no pool: its host's threads run the vertices.
    EXPECT_EQ(first_thread == "dag-walk", !pull_mode());
    EXPECT_EQ(second_thread == "dag-walk", !pull_mode());
    EXPECT_EQ(retry_threads, 1u);
}

// A graph freed while a walk of it runs stays alive for the walk, which
// reads it through dag_walk_graph, and goes with the walk's handle.
TEST(WalkReentry, GraphFreedWhileItsWalkRuns) {
    GatedWalk gw;
    const uint64_t a = gw.vertex("a");
    std::atomic<size_t> seen{0};
    gw.rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == gw.gate) {
            gw.entered.set();
            gw.opened.wait();
        } else {
            seen = dag_vertex_count(dag_walk_graph(w));
        }
        return DAG_WALK_OK;
    };
    gw.start();
    dag_free(gw.g.release());
    ReportPtr r = gw.finish();
    EXPECT_EQ(status_of(r.get(), a), DAG_VERTEX_OK);
    EXPECT_EQ(seen, 2u);
}

}  // namespace
