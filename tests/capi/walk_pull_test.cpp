// The pull-mode walk (dag_walk_begin, dag_walk_next_ready) and
// dag_walk_wait_for: the host takes ready vertices and completes them from
// its own threads, under the rules of a callback walk.
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <sys/syscall.h>
#include <unistd.h>

#include "walk_test_support.hpp"

namespace {

struct Handed {
    dag_walker *walk;
    uint64_t vertex;
};

WalkPtr begin(dag_graph *g, const dag_walk_options &o) {
    dag_walker *w = nullptr;
    EXPECT_EQ(dag_walk_begin(g, &o, &w, nullptr), DAG_OK);
    return WalkPtr(w);
}

// One call of dag_walk_next_ready; `st` receives its status.
std::vector<Handed> next(dag_walker *w, size_t capacity, int timeout_ms, dag_status &st) {
    std::vector<uint64_t> ids(capacity);
    std::vector<dag_walker *> walks(capacity);
    size_t n = 99;
    st = dag_walk_next_ready(w, ids.data(), walks.data(), capacity, timeout_ms, &n, nullptr);
    std::vector<Handed> out;
    for (size_t i = 0; i < n; ++i) out.push_back({walks[i], ids[i]});
    return out;
}

// Hosts that take vertices until the walk ends, each handing its vertex to
// `work`, which completes it (or not, and returns false).
struct Hosts {
    std::function<bool(const Handed &)> work;
    std::vector<std::thread> threads;
    std::atomic<size_t> handed{0};

    void run(dag_walker *w, size_t count, size_t batch = 4) {
        for (size_t i = 0; i < count; ++i)
            threads.emplace_back([this, w, batch] {
                for (;;) {
                    dag_status st;
                    auto got = next(w, batch, -1, st);
                    EXPECT_EQ(st, DAG_OK);
                    if (st != DAG_OK || got.empty()) return;
                    handed += got.size();
                    for (const Handed &h : got) work(h);
                }
            });
    }
    void join() {
        for (auto &t : threads) t.join();
        threads.clear();
    }
    ~Hosts() { join(); }
};

// Pulls until `count` vertices are out (fewer if a pull fails or the walk ends).
std::vector<Handed> take(dag_walker *w, size_t count) {
    std::vector<Handed> got;
    while (got.size() < count) {
        dag_status st;
        auto more = next(w, 4, -1, st);
        EXPECT_EQ(st, DAG_OK);
        if (st != DAG_OK || more.empty()) break;
        got.insert(got.end(), more.begin(), more.end());
    }
    return got;
}

// Two vertices handed out, `first`'s first.
std::pair<Handed, Handed> take_two(dag_walker *w, uint64_t first) {
    const std::vector<Handed> got = take(w, 2);
    EXPECT_EQ(got.size(), 2u);
    if (got.size() != 2) return {};
    return got[0].vertex == first ? std::make_pair(got[0], got[1]) : std::make_pair(got[1], got[0]);
}

dag_status complete(const Handed &h, dag_walk_result r = DAG_WALK_OK, const char *msg = nullptr) {
    return dag_walk_complete(h.walk, h.vertex, r, msg, nullptr);
}

ReportPtr wait(dag_walker *w, dag_status expected) {
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(w, &r, nullptr), expected);
    return ReportPtr(r);
}

// n vertices, each depending on up to 3 earlier ones at random.
std::vector<std::pair<uint64_t, uint64_t>> random_graph(dag_graph *g, size_t n, unsigned seed,
                                                        std::vector<uint64_t> &ids) {
    std::mt19937 rng(seed);
    std::vector<std::pair<uint64_t, uint64_t>> edges;
    for (size_t i = 0; i < n; ++i) {
        ids.push_back(add(g, ("v" + std::to_string(i)).c_str()));
        for (int k = 0; k < 3 && i > 0; ++k) {
            uint64_t dep = ids[std::uniform_int_distribution<size_t>(0, i - 1)(rng)];
            if (dag_has_edge(g, ids[i], dep)) continue;
            EXPECT_EQ(dag_connect(g, ids[i], dep, nullptr), DAG_OK);
            edges.emplace_back(ids[i], dep);
        }
    }
    return edges;
}

TEST(WalkPull, HandsOutInDependencyOrderAndEndsLikeEndOfFile) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);  // a depends on b
    ASSERT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options(4));
    std::vector<uint64_t> order;
    for (;;) {
        dag_status st;
        auto got = next(w.get(), 8, 1000, st);
        ASSERT_EQ(st, DAG_OK);
        if (got.empty()) break;
        ASSERT_EQ(got.size(), 1u);  // a chain: one ready at a time
        EXPECT_EQ(got[0].walk, w.get());
        order.push_back(got[0].vertex);
        ASSERT_EQ(complete(got[0]), DAG_OK);
    }
    EXPECT_EQ(order, (std::vector<uint64_t>{c, b, a}));
    ReportPtr r = wait(w.get(), DAG_OK);
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 3u);
    EXPECT_TRUE(dag_walk_report_ran(r.get(), a));
    // The end is reported again to every later call.
    dag_status st;
    EXPECT_TRUE(next(w.get(), 1, 0, st).empty());
    EXPECT_EQ(st, DAG_OK);
}

// The header promises UTF-8 messages; a host's bytes were copied as given.
TEST(WalkPull, AMessageThatIsNotUtf8KeepsItsBytesAsText) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a");
    WalkPtr w = begin(g.get(), options(1));
    dag_status st;
    auto got = next(w.get(), 1, 1000, st);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(dag_walk_complete(got[0].walk, a, DAG_WALK_FAILED, "done \xe2\x82 caf\xc3\xa9", nullptr), DAG_OK);
    dag_walk_report *raw = nullptr;
    dag_error *err = nullptr;
    EXPECT_EQ(dag_walk_wait(w.get(), &raw, &err), DAG_E_WALK_FAILED);
    ReportPtr r(raw);
    EXPECT_EQ(std::string(dag_error_message(err)), "dag_walk_wait: vertex a failed: done \\xe2\\x82 caf\xc3\xa9");
    dag_error_free(err);
    EXPECT_EQ(message_of(r.get(), a), "done \\xe2\\x82 caf\xc3\xa9");
}

TEST(WalkPull, AnEmptyGraphEndsAtOnce) {
    GraphPtr g = new_graph();
    WalkPtr w = begin(g.get(), options());
    dag_status st;
    EXPECT_TRUE(next(w.get(), 1, -1, st).empty());
    EXPECT_EQ(st, DAG_OK);
    wait(w.get(), DAG_OK);
}

TEST(WalkPull, TimesOutWhileNothingIsReadyAndWaitForToo) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options());
    dag_status st;
    auto got = next(w.get(), 4, 0, st);
    ASSERT_EQ(st, DAG_OK);
    ASSERT_EQ(got.size(), 1u);
    // b is out and a waits for it.
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(next(w.get(), 4, 30, st).empty());
    EXPECT_EQ(st, DAG_E_TIMEOUT);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(30));
    size_t n = 7;
    uint64_t id;
    dag_walker *hw;
    expect_error(DAG_E_TIMEOUT, [&](dag_error **e) { return dag_walk_next_ready(w.get(), &id, &hw, 1, 0, &n, e); });
    EXPECT_EQ(n, 0u);
    dag_walk_report *r = reinterpret_cast<dag_walk_report *>(0x1);
    EXPECT_EQ(dag_walk_wait_for(w.get(), 0, &r, nullptr), DAG_E_TIMEOUT);
    EXPECT_EQ(r, nullptr);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    got = next(w.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].vertex, a);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    EXPECT_EQ(dag_walk_wait_for(w.get(), 10000, &r, nullptr), DAG_OK);
    ReportPtr owned(r);
    EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_OK), 2u);
}

TEST(WalkPull, WaitForOnACallbackWalk) {
    GraphPtr g = new_graph();
    add(g.get(), "slow");
    Latch go;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        go.wait();
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr owned(w);
    EXPECT_EQ(dag_walk_wait_for(w, 20, nullptr, nullptr), DAG_E_TIMEOUT);
    go.set();
    EXPECT_EQ(dag_walk_wait_for(w, -1, nullptr, nullptr), DAG_OK);
}

// Many hosts, random graphs: every vertex is handed out exactly once, after
// all its dependencies completed, and never more than `parallelism` are out.
TEST(WalkPull, RandomGraphsFromSeveralHostThreadsKeepOrderAndTheBound) {
    for (unsigned seed = 1; seed <= 6; ++seed) {
        GraphPtr g = new_graph();
        std::vector<uint64_t> ids;
        auto edges = random_graph(g.get(), 400, seed, ids);
        const size_t parallelism = 1 + seed % 4;
        WalkPtr w = begin(g.get(), options(parallelism));
        std::mutex mu;
        std::set<uint64_t> completed;
        std::map<uint64_t, int> handed;
        std::atomic<size_t> out{0}, most{0};
        Hosts hosts;
        hosts.work = [&](const Handed &h) {
            size_t now = ++out;
            size_t seen = most.load();
            while (now > seen && !most.compare_exchange_weak(seen, now)) {
            }
            {
                std::lock_guard<std::mutex> lk(mu);
                ++handed[h.vertex];
                for (auto [from, to] : edges)
                    if (from == h.vertex) {
                        EXPECT_TRUE(completed.count(to)) << from << " before " << to;
                    }
                completed.insert(h.vertex);
            }
            --out;
            EXPECT_EQ(complete(h), DAG_OK);
            return true;
        };
        hosts.run(w.get(), 4, 1 + seed % 3);
        hosts.join();
        wait(w.get(), DAG_OK);
        EXPECT_EQ(handed.size(), ids.size());
        for (auto [v, times] : handed) EXPECT_EQ(times, 1) << v;
        EXPECT_LE(most.load(), parallelism);
    }
}

// `parallelism` vertices are out and none completes: the next call waits.
TEST(WalkPull, HandedOutVerticesHoldTheirSlots) {
    GraphPtr g = new_graph();
    for (int i = 0; i < 5; ++i) add(g.get(), ("v" + std::to_string(i)).c_str());
    WalkPtr w = begin(g.get(), options(2));
    dag_status st;
    auto first = next(w.get(), 10, -1, st);
    EXPECT_EQ(first.size(), 2u);
    EXPECT_TRUE(next(w.get(), 10, 20, st).empty());
    EXPECT_EQ(st, DAG_E_TIMEOUT);
    ASSERT_EQ(complete(first[0]), DAG_OK);
    auto more = next(w.get(), 10, -1, st);
    EXPECT_EQ(more.size(), 1u);
    for (auto &h : more) ASSERT_EQ(complete(h), DAG_OK);
    ASSERT_EQ(complete(first[1]), DAG_OK);
    Hosts hosts;
    hosts.work = [](const Handed &h) { return complete(h) == DAG_OK; };
    hosts.run(w.get(), 1);
    hosts.join();
    EXPECT_EQ(hosts.handed.load(), 2u);
    wait(w.get(), DAG_OK);
}

TEST(WalkPull, FailureSkipsOnlyDependentsAndAlwaysRunStillRuns) {
    GraphPtr g = new_graph();
    uint64_t bad = add(g.get(), "bad"), dep = add(g.get(), "dep"), other = add(g.get(), "other"),
             cleanup = add(g.get(), "cleanup");
    ASSERT_EQ(dag_connect(g.get(), dep, bad, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), cleanup, bad, nullptr), DAG_OK);
    auto o = options(3);
    o.always_run = &cleanup;
    o.always_run_count = 1;
    WalkPtr w = begin(g.get(), o);
    std::set<uint64_t> seen;
    std::mutex mu;
    Hosts hosts;
    hosts.work = [&](const Handed &h) {
        {
            std::lock_guard<std::mutex> lk(mu);
            seen.insert(h.vertex);
        }
        std::string msg = "broke";
        dag_status st = complete(h, h.vertex == bad ? DAG_WALK_FAILED : DAG_WALK_OK, msg.c_str());
        msg.assign(msg.size(), 'x');  // copied at once
        return st == DAG_OK;
    };
    hosts.run(w.get(), 2);
    hosts.join();
    ReportPtr r = wait(w.get(), DAG_E_WALK_FAILED);
    EXPECT_EQ(seen, (std::set<uint64_t>{bad, other, cleanup}));
    EXPECT_EQ(status_of(r.get(), bad), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r.get(), bad), "broke");
    EXPECT_EQ(status_of(r.get(), dep), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r.get(), other), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r.get(), cleanup), DAG_VERTEX_OK);
    EXPECT_EQ(dag_walk_report_first_error(r.get(), nullptr), bad);
}

TEST(WalkPull, FailFastHandsOutNothingNewAndStillEnds) {
    GraphPtr g = new_graph();
    uint64_t first = add(g.get(), "first");
    std::vector<uint64_t> later;
    for (int i = 0; i < 20; ++i) {
        later.push_back(add(g.get(), ("later" + std::to_string(i)).c_str()));
        ASSERT_EQ(dag_connect(g.get(), later.back(), first, nullptr), DAG_OK);
    }
    uint64_t side = add(g.get(), "side");
    auto o = options(2);
    o.failure_policy = DAG_FAILURE_FAIL_FAST;
    WalkPtr w = begin(g.get(), o);
    dag_status st;
    auto got = next(w.get(), 2, -1, st);
    ASSERT_EQ(got.size(), 2u);  // first and side
    for (auto &h : got)
        if (h.vertex == first) {
            ASSERT_EQ(complete(h, DAG_WALK_FAILED, "no"), DAG_OK);
        }
    for (auto &h : got)
        if (h.vertex == side) {
            ASSERT_EQ(complete(h), DAG_OK);
        }
    EXPECT_TRUE(next(w.get(), 8, -1, st).empty());
    EXPECT_EQ(st, DAG_OK);
    ReportPtr r = wait(w.get(), DAG_E_WALK_FAILED);
    for (uint64_t v : later) EXPECT_EQ(status_of(r.get(), v), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r.get(), side), DAG_VERTEX_OK);
}

TEST(WalkPull, FailFastStopsIndependentWorkAndAWaiterNeedNotPull) {
    GraphPtr g = new_graph();
    std::vector<uint64_t> v;
    for (int i = 0; i < 10; ++i) v.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
    auto o = options(1);
    o.failure_policy = DAG_FAILURE_FAIL_FAST;
    WalkPtr w = begin(g.get(), o);
    dag_status st;
    auto got = next(w.get(), 1, -1, st);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(complete(got[0], DAG_WALK_FAILED, "no"), DAG_OK);
    // Nobody pulls again: the nine never handed out are settled anyway.
    ReportPtr r = wait(w.get(), DAG_E_WALK_FAILED);
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_NOT_RUN), 9u);
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_FAILED), 1u);
}

TEST(WalkPull, CancelHandsOutNothingMoreAndWhatIsOutFinishesAsARunningCallbackWould) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), c, a, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options(1));
    dag_status st;
    auto got = next(w.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    // The walk waits for the vertex that is out.
    EXPECT_EQ(dag_walk_wait_for(w.get(), 20, nullptr, nullptr), DAG_E_TIMEOUT);
    EXPECT_TRUE(next(w.get(), 4, 20, st).empty());
    EXPECT_EQ(st, DAG_E_TIMEOUT);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    EXPECT_TRUE(next(w.get(), 4, -1, st).empty());
    EXPECT_EQ(st, DAG_OK);
    ReportPtr r = wait(w.get(), DAG_E_CANCELLED);
    EXPECT_EQ(status_of(r.get(), got[0].vertex), DAG_VERTEX_OK);
    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_CANCELLED), 2u);
    (void)b;
    (void)c;
}

// A host that stopped a vertex's work because the walk was cancelled says
// so: the vertex ends cancelled, not failed, and so does what waits for it.
// Before the cancel that answer is refused and the vertex stays out.
TEST(WalkPull, AHostStoppedByTheCancelCompletesItsVertexAsCancelled) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), c, a, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options(2));
    dag_status st;
    const auto [ha, hb] = take_two(w.get(), a);
    ASSERT_EQ(ha.vertex, a);
    ASSERT_EQ(hb.vertex, b);
    EXPECT_EQ(complete(ha, DAG_WALK_CANCELLED, "early"), DAG_E_STATE);
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    ASSERT_EQ(complete(ha, DAG_WALK_CANCELLED, "stopped on the cluster"), DAG_OK);
    // Completed by the host, not cancelled while pending: a second
    // completion is one too many (it said the cancel had finished it).
    EXPECT_EQ(complete(ha), DAG_E_STATE);
    EXPECT_EQ(complete(ha, DAG_WALK_CANCELLED, "again"), DAG_E_STATE);
    ASSERT_EQ(complete(hb), DAG_OK);
    EXPECT_TRUE(next(w.get(), 4, -1, st).empty());
    EXPECT_EQ(st, DAG_OK);
    ReportPtr r = wait(w.get(), DAG_E_CANCELLED);
    EXPECT_EQ(status_of(r.get(), a), DAG_VERTEX_CANCELLED);
    EXPECT_EQ(message_of(r.get(), a), "stopped on the cluster");
    EXPECT_EQ(dag_walk_report_ran(r.get(), a), 1);
    EXPECT_EQ(status_of(r.get(), b), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r.get(), c), DAG_VERTEX_CANCELLED);
    EXPECT_EQ(dag_walk_report_ran(r.get(), c), 0);
}

// A walk that fail fast stopped can still be cancelled; from then on, and
// not before, a vertex still out may be completed as cancelled.
TEST(WalkPull, ACancelAfterFailFastLetsAHostCompleteAsCancelled) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), c, b, nullptr), DAG_OK);
    dag_walk_options o = options(2);
    o.failure_policy = DAG_FAILURE_FAIL_FAST;
    WalkPtr w = begin(g.get(), o);
    const auto [ha, hb] = take_two(w.get(), a);
    ASSERT_EQ(ha.vertex, a);
    ASSERT_EQ(hb.vertex, b);
    ASSERT_EQ(complete(ha, DAG_WALK_FAILED, "broke"), DAG_OK);
    EXPECT_EQ(complete(hb, DAG_WALK_CANCELLED, "early"), DAG_E_STATE);
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    ASSERT_EQ(complete(hb, DAG_WALK_CANCELLED, "stopped"), DAG_OK);
    dag_status st;
    EXPECT_TRUE(next(w.get(), 4, -1, st).empty());
    EXPECT_EQ(st, DAG_OK);
    ReportPtr r = wait(w.get(), DAG_E_CANCELLED);
    EXPECT_EQ(status_of(r.get(), a), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(r.get(), b), DAG_VERTEX_CANCELLED);
    EXPECT_EQ(message_of(r.get(), b), "stopped");
    // Stopped by the failure first: the vertex that never ran keeps that reason.
    EXPECT_EQ(status_of(r.get(), c), DAG_VERTEX_NOT_RUN);
}

// A callback cannot answer cancelled: the result is for hosts completing
// work; its vertex fails and says why.
TEST(WalkPull, ACallbackReturningCancelledFailsItsVertex) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a");
    dag_walk_options o = options(1);
    dag_walk_report *raw = nullptr;
    EXPECT_EQ(dag_walk(
                  g.get(), [](dag_walker *, uint64_t, const char **, void *) { return DAG_WALK_CANCELLED; }, nullptr,
                  &o, &raw, nullptr),
              DAG_E_WALK_FAILED);
    ReportPtr r(raw);
    EXPECT_EQ(status_of(r.get(), a), DAG_VERTEX_FAILED);
    EXPECT_NE(message_of(r.get(), a).find("DAG_WALK_CANCELLED"), std::string::npos);
}

// A vertex that never started is cancelled, unless a dependency failed: it
// would not have run either way, cancel or not, and the report says why.
TEST(WalkPull, AfterACancelAFailureStillSkipsItsDependentsAsUpstreamFailed) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d");
    ASSERT_EQ(dag_connect(g.get(), c, a, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), d, b, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options(2));
    dag_status st;
    const std::vector<Handed> got = take(w.get(), 2);
    ASSERT_EQ(got.size(), 2u);
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    for (const Handed &h : got)
        ASSERT_EQ(h.vertex == a ? complete(h, DAG_WALK_FAILED, "boom") : complete(h), DAG_OK);
    EXPECT_TRUE(next(w.get(), 4, -1, st).empty());
    EXPECT_EQ(st, DAG_OK);
    dag_walk_report *raw = nullptr;
    EXPECT_NE(dag_walk_wait(w.get(), &raw, nullptr), DAG_OK);
    ReportPtr r(raw);
    ASSERT_TRUE(r);
    EXPECT_EQ(status_of(r.get(), a), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(r.get(), b), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r.get(), c), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r.get(), d), DAG_VERTEX_CANCELLED);
}

TEST(WalkPull, FreeingAWalkWithVerticesOutCancelsIt) {
    GraphPtr g = new_graph();
    for (int i = 0; i < 50; ++i) add(g.get(), ("v" + std::to_string(i)).c_str());
    WalkPtr w = begin(g.get(), options(8));
    dag_status st;
    EXPECT_EQ(next(w.get(), 3, -1, st).size(), 3u);
    // Freed with three vertices out, whose host can no longer complete them:
    // they end cancelled, and nothing waits for them.
    w.reset();
    // The graph is free again.
    EXPECT_EQ(dag_add_vertex(g.get(), "after", nullptr, nullptr, nullptr), DAG_OK);
}

TEST(WalkPull, UpdatesAddWorkThatIsHandedOutInItsTurn) {
    GraphPtr g = new_graph();
    uint64_t base = add(g.get(), "base");
    WalkPtr w = begin(g.get(), options(4));
    dag_status st;
    auto got = next(w.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    dag_walk_update *u = nullptr;
    ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    UpdatePtr owned(u);
    uint64_t p = 0;
    ASSERT_EQ(dag_walk_update_add_vertex(u, "added", nullptr, 0, &p, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_update_connect(u, p, base, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_walk_apply(w.get(), u, &ids, nullptr), DAG_OK);
    uint64_t added = take_ids(ids).at(0);
    EXPECT_TRUE(next(w.get(), 4, 0, st).empty());  // waits for base
    EXPECT_EQ(st, DAG_E_TIMEOUT);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    got = next(w.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].vertex, added);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    EXPECT_TRUE(next(w.get(), 4, -1, st).empty());
    ReportPtr r = wait(w.get(), DAG_OK);
    EXPECT_EQ(dag_walk_report_size(r.get()), 2u);
}

// What a waiter is skipped for is what it waits on now: with its edge to
// the vertex that failed dropped, it runs (as Terraform's walker did).
TEST(WalkPull, DroppingTheEdgeToAFailedDependencyLetsItsWaiterRun) {
    for (bool reverse : {false, true}) {
        SCOPED_TRACE(reverse ? "reverse" : "forward");
        GraphPtr g = new_graph();
        uint64_t f = add(g.get(), "f"), s = add(g.get(), "s"), w = add(g.get(), "w"), v = add(g.get(), "v");
        // w waits on f and s; v on f only, and keeps that edge.
        auto edge = [&](uint64_t waiter, uint64_t dep) {
            return reverse ? dag_connect(g.get(), dep, waiter, nullptr) : dag_connect(g.get(), waiter, dep, nullptr);
        };
        ASSERT_EQ(edge(w, f), DAG_OK);
        ASSERT_EQ(edge(w, s), DAG_OK);
        ASSERT_EQ(edge(v, f), DAG_OK);
        dag_walk_options o = options(4);
        o.reverse = reverse;
        WalkPtr walk = begin(g.get(), o);
        auto [hf, hs] = take_two(walk.get(), f);
        ASSERT_EQ(complete(hf, DAG_WALK_FAILED, "broke"), DAG_OK);
        dag_walk_update *u = nullptr;
        ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr owned(u);
        ASSERT_EQ(reverse ? dag_walk_update_disconnect(u, f, w, nullptr) : dag_walk_update_disconnect(u, w, f, nullptr),
                  DAG_OK);
        ASSERT_EQ(dag_walk_apply(walk.get(), u, nullptr, nullptr), DAG_OK);
        ASSERT_EQ(complete(hs), DAG_OK);
        dag_status st;
        auto got = next(walk.get(), 4, -1, st);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].vertex, w);
        ASSERT_EQ(complete(got[0]), DAG_OK);
        EXPECT_TRUE(next(walk.get(), 4, -1, st).empty());
        ReportPtr r = wait(walk.get(), DAG_E_WALK_FAILED);  // f failed
        EXPECT_EQ(status_of(r.get(), w), DAG_VERTEX_OK);
        EXPECT_EQ(status_of(r.get(), v), DAG_VERTEX_UPSTREAM_FAILED);
        EXPECT_EQ(status_of(r.get(), f), DAG_VERTEX_FAILED);
    }
}

// Dropping one of two edges to failed vertices leaves the waiter skipped,
// as does a failure of a dependency it keeps that comes after the update.
TEST(WalkPull, AWaiterStillOnAFailedDependencyStaysSkipped) {
    for (bool later : {false, true}) {
        SCOPED_TRACE(later ? "the kept one fails after the update" : "both failed before it");
        GraphPtr g = new_graph();
        uint64_t f1 = add(g.get(), "f1"), f2 = add(g.get(), "f2"), s = add(g.get(), "s"), w = add(g.get(), "w");
        for (uint64_t dep : {f1, f2, s}) ASSERT_EQ(dag_connect(g.get(), w, dep, nullptr), DAG_OK);
        WalkPtr walk = begin(g.get(), options(4));
        std::vector<Handed> got = take(walk.get(), 3);
        ASSERT_EQ(got.size(), 3u);
        std::map<uint64_t, Handed> out;
        for (const Handed &h : got) out[h.vertex] = h;
        ASSERT_EQ(complete(out[f1], DAG_WALK_FAILED, "one"), DAG_OK);
        if (!later) ASSERT_EQ(complete(out[f2], DAG_WALK_FAILED, "two"), DAG_OK);
        dag_walk_update *u = nullptr;
        ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr owned(u);
        ASSERT_EQ(dag_walk_update_disconnect(u, w, f1, nullptr), DAG_OK);
        ASSERT_EQ(dag_walk_apply(walk.get(), u, nullptr, nullptr), DAG_OK);
        if (later) ASSERT_EQ(complete(out[f2], DAG_WALK_FAILED, "two"), DAG_OK);
        ASSERT_EQ(complete(out[s]), DAG_OK);
        dag_status st;
        EXPECT_TRUE(next(walk.get(), 4, -1, st).empty());
        ReportPtr r = wait(walk.get(), DAG_E_WALK_FAILED);
        EXPECT_EQ(status_of(r.get(), w), DAG_VERTEX_UPSTREAM_FAILED);
    }
}

// An edge whose dependent has started is refused even when its dependency
// has finished: the walk could not honour it (here x and p ran side by
// side), and the refusal says why.
TEST(WalkPull, AnEdgeFromAStartedVertexIsRefusedEvenToAFinishedOne) {
    GraphPtr g = new_graph();
    uint64_t x = add(g.get(), "x"), p = add(g.get(), "p");
    WalkPtr walk = begin(g.get(), options(4));
    auto [hx, hp] = take_two(walk.get(), x);
    ASSERT_EQ(complete(hx), DAG_OK);
    dag_walk_update *u = nullptr;
    ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    UpdatePtr owned(u);
    ASSERT_EQ(dag_walk_update_connect(u, p, x, nullptr), DAG_OK);
    std::string msg = expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_apply(walk.get(), u, nullptr, e); });
    EXPECT_NE(msg.find("vertex p has already started, so it cannot depend on x now"), std::string::npos) << msg;
    EXPECT_FALSE(dag_has_edge(g.get(), p, x));
    ASSERT_EQ(complete(hp), DAG_OK);
    wait(walk.get(), DAG_OK);
}

// A vertex skipped after a failure never started: an update that would
// remove it or make it wait is refused as for one that ran, and says it
// ended without running (it said "has already started").
TEST(WalkPull, AnUpdateOfASkippedVertexSaysItEndedWithoutRunning) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), c = add(g.get(), "c"), d = add(g.get(), "d");
    ASSERT_EQ(dag_connect(g.get(), d, a, nullptr), DAG_OK);
    WalkPtr walk = begin(g.get(), options(4));
    auto [ha, hc] = take_two(walk.get(), a);
    ASSERT_EQ(complete(ha, DAG_WALK_FAILED, "no"), DAG_OK);
    const std::vector<std::pair<bool, const char *>> updates = {
        {true, "vertex d has already ended without running, so it cannot be removed"},
        {false, "vertex d has already ended without running, so it cannot depend on c now"}};
    for (const auto &[remove, says] : updates) {
        dag_walk_update *u = nullptr;
        ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr owned(u);
        ASSERT_EQ(remove ? dag_walk_update_remove_vertex(u, d, nullptr) : dag_walk_update_connect(u, d, c, nullptr),
                  DAG_OK);
        const std::string msg =
            expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_apply(walk.get(), u, nullptr, e); });
        EXPECT_NE(msg.find(says), std::string::npos) << msg;
    }
    ASSERT_EQ(complete(hc), DAG_OK);
    ReportPtr r = wait(walk.get(), DAG_E_WALK_FAILED);
    EXPECT_EQ(status_of(r.get(), d), DAG_VERTEX_UPSTREAM_FAILED);
}

// Taking ready vertices from the observer of a completion is refused: the
// vertices the completion releases come after the observer, and a wait for
// them there waited for ever.
TEST(WalkPull, TakingVerticesFromTheObserverOfACompletionIsRefused) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    struct Seen {
        dag_walker *w = nullptr;
        uint64_t a = 0;
        dag_status took = DAG_OK;
        int calls = 0;
    } seen;
    seen.a = a;
    dag_walk_options o = options(4);
    o.observer = [](dag_walker *, dag_walk_event ev, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        auto &s = *static_cast<Seen *>(data);
        if (ev != DAG_WALK_EVENT_FINISHED || v != s.a) return;
        uint64_t id = 0;
        dag_walker *hw = nullptr;
        size_t n = 0;
        ++s.calls;
        s.took = dag_walk_next_ready(s.w, &id, &hw, 1, -1, &n, nullptr);
    };
    o.observer_data = &seen;
    WalkPtr walk = begin(g.get(), o);
    seen.w = walk.get();
    dag_status st;
    auto got = next(walk.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    EXPECT_EQ(seen.calls, 1);
    EXPECT_EQ(seen.took, DAG_E_STATE);
    got = next(walk.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].vertex, b);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    wait(walk.get(), DAG_OK);
}

TEST(WalkPull, AnExpandedVertexHandsOutItsSubWalk) {
    GraphPtr g = new_graph();
    uint64_t parent = add(g.get(), "parent"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), after, parent, nullptr), DAG_OK);
    GraphPtr sub = new_graph();
    uint64_t s1 = add(sub.get(), "s1"), s2 = add(sub.get(), "s2");
    ASSERT_EQ(dag_connect(sub.get(), s2, s1, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options(1));
    dag_status st;
    auto got = next(w.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) {
        return dag_walk_expand(w.get(), parent, sub.get(), record_cb, nullptr, e);
    });
    ASSERT_EQ(dag_walk_expand(w.get(), parent, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
    expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_complete(w.get(), parent, DAG_WALK_OK, nullptr, e); });
    std::vector<uint64_t> order;
    dag_walker *subwalk = nullptr;
    for (int i = 0; i < 2; ++i) {
        // Parallelism 1: the parent gave its slot back.
        got = next(w.get(), 4, -1, st);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_NE(got[0].walk, w.get());
        subwalk = got[0].walk;
        EXPECT_NE(dag_walk_graph(subwalk), g.get());
        expect_error(DAG_E_STATE, [&](dag_error **e) {
            uint64_t id;
            dag_walker *hw;
            size_t n;
            return dag_walk_next_ready(subwalk, &id, &hw, 1, 0, &n, e);
        });
        order.push_back(got[0].vertex);
        ASSERT_EQ(complete(got[0]), DAG_OK);
    }
    EXPECT_EQ(order, (std::vector<uint64_t>{s1, s2}));
    got = next(w.get(), 4, -1, st);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].vertex, after);
    ASSERT_EQ(complete(got[0]), DAG_OK);
    ReportPtr r = wait(w.get(), DAG_OK);
    EXPECT_EQ(status_of(r.get(), parent), DAG_VERTEX_OK);
}

TEST(WalkPull, ObserverSeesHandOutsAndCompletionsOnTheHostThreads) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    struct Seen {
        std::mutex mu;
        std::vector<std::pair<dag_walk_event, uint64_t>> events;
        dag_status nested = DAG_OK;
    } seen;
    auto o = options(2);
    o.observer = [](dag_walker *w, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        auto *s = static_cast<Seen *>(data);
        std::lock_guard<std::mutex> lk(s->mu);
        s->events.emplace_back(e, v);
        if (e == DAG_WALK_EVENT_STARTED) {
            uint64_t id;
            dag_walker *hw;
            size_t n;
            s->nested = dag_walk_next_ready(w, &id, &hw, 1, 0, &n, nullptr);
        }
    };
    o.observer_data = &seen;
    WalkPtr w = begin(g.get(), o);
    Hosts hosts;
    hosts.work = [](const Handed &h) { return complete(h) == DAG_OK; };
    hosts.run(w.get(), 1);
    hosts.join();
    wait(w.get(), DAG_OK);
    using P = std::pair<dag_walk_event, uint64_t>;
    EXPECT_EQ(seen.events, (std::vector<P>{{DAG_WALK_EVENT_STARTED, a}, {DAG_WALK_EVENT_FINISHED, a},
                                           {DAG_WALK_EVENT_STARTED, b}, {DAG_WALK_EVENT_FINISHED, b}}));
    EXPECT_EQ(seen.nested, DAG_E_STATE);
}

// The observer runs on the host's thread inside its dag_walk_next_ready; a
// poll from there is refused, and must leave the outer call's vertices
// alone: it once emptied the per-thread list they were gathered in, so the
// first vertex handed out was lost (running, never returned to the host, the
// walk unable to end).
TEST(WalkPull, APollFromTheObserverLeavesTheOuterCallsVerticesAlone) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    std::vector<dag_status> nested;
    auto o = options(2);
    o.observer = [](dag_walker *w, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        if (e != DAG_WALK_EVENT_STARTED) return;
        uint64_t id;
        dag_walker *hw;
        size_t n;
        static_cast<std::vector<dag_status> *>(data)->push_back(dag_walk_next_ready(w, &id, &hw, 1, 0, &n, nullptr));
    };
    o.observer_data = &nested;
    WalkPtr w = begin(g.get(), o);
    dag_status st;
    std::vector<Handed> got = next(w.get(), 2, 0, st);
    ASSERT_EQ(st, DAG_OK);
    EXPECT_EQ(nested, (std::vector<dag_status>{DAG_E_STATE, DAG_E_STATE}));
    std::vector<uint64_t> ids;
    for (const Handed &h : got) ids.push_back(h.vertex);
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids, (std::vector<uint64_t>{a, b}));
    for (const Handed &h : got) ASSERT_EQ(complete(h), DAG_OK);
    wait(w.get(), DAG_OK);
}

// The same, for a poll of another walk from the observer: it is allowed,
// and gathers its own vertices apart from the outer call's.
TEST(WalkPull, APollOfAnotherWalkFromTheObserverKeepsBothCallsVertices) {
    GraphPtr g = new_graph(), other = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), x = add(other.get(), "x");
    struct Nested {
        dag_walker *other = nullptr;
        std::vector<Handed> got;
    } nested;
    auto o = options(2);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        if (e != DAG_WALK_EVENT_STARTED) return;
        auto *n = static_cast<Nested *>(data);
        dag_status st;
        for (const Handed &h : next(n->other, 4, 0, st)) n->got.push_back(h);
    };
    o.observer_data = &nested;
    WalkPtr w2 = begin(other.get(), options(2));
    nested.other = w2.get();
    WalkPtr w = begin(g.get(), o);
    dag_status st;
    std::vector<Handed> got = next(w.get(), 2, 0, st);
    ASSERT_EQ(st, DAG_OK);
    std::vector<uint64_t> ids;
    for (const Handed &h : got) ids.push_back(h.vertex);
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids, (std::vector<uint64_t>{a, b}));
    ASSERT_EQ(nested.got.size(), 1u);
    EXPECT_EQ(nested.got[0].vertex, x);
    for (const Handed &h : got) ASSERT_EQ(complete(h), DAG_OK);
    ASSERT_EQ(complete(nested.got[0]), DAG_OK);
    wait(w.get(), DAG_OK);
    wait(w2.get(), DAG_OK);
}

// One thread inside two pulls: A's observer pulls from B, whose observer
// turns back to A. A is still handing out on this thread, so a pull of A is
// refused (it used to wait for itself: DAG_E_TIMEOUT, or for ever), and a
// cancel of A returns at once (it used to wait for A's pull to end, that is
// for itself).
TEST(WalkPull, AnObserverTwoWalksDeepStillKnowsItsThreadIsHandingOutTheFirst) {
    GraphPtr ga = new_graph(), gb = new_graph();
    add(ga.get(), "a0");
    add(ga.get(), "a1");
    add(gb.get(), "b0");
    struct Nest {
        dag_walker *a = nullptr, *b = nullptr;
        int in_a = 0, in_b = 0;
        dag_status b_pulled = DAG_E_INTERNAL, a_pulled = DAG_E_INTERNAL, a_cancelled = DAG_E_INTERNAL;
        std::vector<Handed> from_b;
    } nest;
    auto oa = options(2), ob = options(2);
    oa.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *n = static_cast<Nest *>(d);
        if (e != DAG_WALK_EVENT_STARTED || n->in_a++) return;
        n->from_b = next(n->b, 4, 0, n->b_pulled);
    };
    oa.observer_data = &nest;
    ob.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *n = static_cast<Nest *>(d);
        if (e != DAG_WALK_EVENT_STARTED || n->in_b++) return;
        next(n->a, 4, 300, n->a_pulled);
        n->a_cancelled = dag_walk_cancel(n->a, nullptr);
    };
    ob.observer_data = &nest;
    WalkPtr b = begin(gb.get(), ob);
    WalkPtr a = begin(ga.get(), oa);
    nest.a = a.get();
    nest.b = b.get();
    dag_status st;
    std::vector<Handed> from_a = next(a.get(), 4, 0, st);
    EXPECT_EQ(st, DAG_OK);
    EXPECT_EQ(nest.b_pulled, DAG_OK);
    EXPECT_EQ(nest.a_pulled, DAG_E_STATE);
    EXPECT_EQ(nest.a_cancelled, DAG_OK);
    ASSERT_EQ(nest.from_b.size(), 1u);
    for (const Handed &h : from_a) EXPECT_EQ(complete(h), DAG_OK);
    EXPECT_EQ(complete(nest.from_b[0]), DAG_OK);
    wait(b.get(), DAG_OK);
    ReportPtr r = wait(a.get(), DAG_E_CANCELLED);
    EXPECT_EQ(dag_walk_report_size(r.get()), 2u);
}

// A callback of walk A pulls from B, whose observer asks about A: the thread
// is inside A's callback, so waiting for A is refused (it used to time out,
// or wait for ever).
TEST(WalkPull, AnObserverInsideAnotherWalksCallbackCannotWaitForThatWalk) {
    GraphPtr ga = new_graph(), gb = new_graph();
    add(ga.get(), "a");
    add(gb.get(), "b");
    struct Nest {
        dag_walker *a = nullptr, *b = nullptr;
        std::atomic<dag_walker *> a_ready{nullptr};
        dag_status waited = DAG_E_INTERNAL, completed = DAG_E_INTERNAL;
    } nest;
    auto ob = options(2);
    ob.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *n = static_cast<Nest *>(d);
        if (e == DAG_WALK_EVENT_STARTED) n->waited = dag_walk_wait_for(n->a, 300, nullptr, nullptr);
    };
    ob.observer_data = &nest;
    WalkPtr b = begin(gb.get(), ob);
    nest.b = b.get();
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        while (!nest.a_ready.load()) std::this_thread::yield();
        dag_status st;
        for (const Handed &h : next(nest.b, 4, 5000, st)) nest.completed = complete(h);
        return DAG_WALK_OK;
    };
    auto oa = options(1, 1);
    dag_walker *raw = nullptr;
    ASSERT_EQ(dag_walk_start(ga.get(), record_cb, &rec, &oa, &raw, nullptr), DAG_OK);
    WalkPtr a(raw);
    nest.a = raw;
    nest.a_ready = raw;
    wait(a.get(), DAG_OK);
    wait(b.get(), DAG_OK);
    EXPECT_EQ(nest.waited, DAG_E_STATE);
    EXPECT_EQ(nest.completed, DAG_OK);
}

// dag_walk_free from the walk's own observer cancels it and frees it once it
// has finished; what was handed out can no longer be completed through it,
// so it ends cancelled, as when the walk is freed elsewhere (it used to stay
// out, and the walk, and the graph's busy state, for ever).
TEST(WalkPull, AWalkFreedFromItsOwnObserverFinishesWhatItHandedOut) {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    add(g.get(), "b");
    struct Freer {
        dag_walker *w = nullptr;
        int started = 0;
    } freer;
    auto o = options(2);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *f = static_cast<Freer *>(d);
        if (e == DAG_WALK_EVENT_STARTED && ++f->started == 2) dag_walk_free(f->w);
    };
    o.observer_data = &freer;
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_begin(g.get(), &o, &w, nullptr), DAG_OK);
    freer.w = w;
    dag_status st;
    // Freed inside this call: what it handed out has ended cancelled, and
    // nothing is handed to the caller (the handles would point into a walk
    // that is gone).
    EXPECT_TRUE(next(w, 4, 0, st).empty());
    EXPECT_EQ(st, DAG_OK);
    // The walk frees itself once finished, and the graph is the caller's again.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    dag_status added;
    while ((added = dag_add_vertex(g.get(), "c", nullptr, nullptr, nullptr)) == DAG_E_BUSY &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(added, DAG_OK) << "the freed walk never finished";
}

// dag_walk_free on one thread while another thread's pull is handing out a
// vertex (its observer runs): the cancel that the free makes may scan before
// that vertex is out, and the vertex must still end cancelled, not wait for
// a host the freed walk no longer has (the free used to wait for ever).
TEST(WalkPull, AFreeRacingWithAHandOutStillEnds) {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    struct Race {
        Latch in_observer, freeing;
    } race;
    auto o = options(2);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *r = static_cast<Race *>(d);
        if (e != DAG_WALK_EVENT_STARTED) return;
        r->in_observer.set();
        r->freeing.wait();
        // Long enough for the free's cancel to scan for pending vertices.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    o.observer_data = &race;
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_begin(g.get(), &o, &w, nullptr), DAG_OK);
    std::thread puller([&] {
        dag_status st;
        next(w, 4, 0, st);  // the walk is freed meanwhile: its result is not to be used
    });
    race.in_observer.wait();
    std::atomic<bool> freed{false};
    std::thread watchdog([&] {
        for (int i = 0; i < 2000 && !freed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!freed) {
            std::fprintf(stderr, "dag_walk_free never returned\n");
            std::abort();
        }
    });
    race.freeing.set();
    dag_walk_free(w);
    freed = true;
    puller.join();
    watchdog.join();
    EXPECT_EQ(dag_add_vertex(g.get(), "b", nullptr, nullptr, nullptr), DAG_OK) << "the graph is still busy";
}

// A walk freed on one thread while another thread's completion of its last
// vertex is still inside that call (its observer runs): the free waits for
// the call to return before the walk goes, whatever the walk's state
// (AddressSanitizer's use-after-free if it did not).
TEST(WalkPull, AFreeWaitsForACompletionStillInsideItsCall) {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    struct Slow {
        Latch in_observer;
        std::atomic<bool> observer_returned{false};
    } slow;
    auto o = options(1);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *s = static_cast<Slow *>(d);
        if (e != DAG_WALK_EVENT_FINISHED) return;
        s->in_observer.set();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        s->observer_returned = true;
    };
    o.observer_data = &slow;
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_begin(g.get(), &o, &w, nullptr), DAG_OK);
    dag_status st;
    const auto got = next(w, 1, -1, st);
    ASSERT_EQ(st, DAG_OK);
    ASSERT_EQ(got.size(), 1u);
    dag_status completed = DAG_E_STATE;
    std::thread host([&] { completed = dag_walk_complete(got[0].walk, got[0].vertex, DAG_WALK_OK, nullptr, nullptr); });
    slow.in_observer.wait();
    dag_walk_free(w);
    EXPECT_TRUE(slow.observer_returned) << "the walk was freed while a completion was still inside it";
    host.join();
    EXPECT_EQ(completed, DAG_OK);
    EXPECT_EQ(dag_add_vertex(g.get(), "b", nullptr, nullptr, nullptr), DAG_OK) << "the graph is still busy";
}

// Whether a thread is asleep (blocked in a wait), from /proc: a test then
// knows that thread is inside the call it made, not about to make it.
bool asleep(pid_t tid) {
    std::FILE *f = std::fopen(("/proc/self/task/" + std::to_string(tid) + "/stat").c_str(), "r");
    if (!f) return false;
    char line[512] = {};
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    const char *end = read ? std::strrchr(line, ')') : nullptr;
    return end && end[1] == ' ' && end[2] == 'S';
}

// A walk freed on one thread while another waits for it (a host's shutdown:
// cancel and free): the free waits for the wait to return, which reports
// the cancel. The waiter read the freed walk (a crash without sanitizers).
// dag_walk_wait and dag_walk_wait_for, each with and without a report.
TEST(WalkPull, AFreeWaitsForAWaitStillInsideItsCall) {
    for (int kind = 0; kind < 4; ++kind) {
        SCOPED_TRACE(kind);
        GraphPtr g = new_graph();
        add(g.get(), "a");
        dag_walker *w = nullptr;
        ASSERT_EQ(dag_walk_begin(g.get(), nullptr, &w, nullptr), DAG_OK);
        dag_status st;
        ASSERT_EQ(next(w, 1, -1, st).size(), 1u);
        std::atomic<pid_t> tid{0};
        dag_status waited = DAG_OK;
        dag_walk_report *r = nullptr;
        std::thread waiter([&] {
            tid = static_cast<pid_t>(syscall(SYS_gettid));
            dag_walk_report **want = kind % 2 ? &r : nullptr;
            waited = kind < 2 ? dag_walk_wait(w, want, nullptr) : dag_walk_wait_for(w, 60000, want, nullptr);
        });
        while (!tid) std::this_thread::yield();
        // Asleep throughout 100 ms: in the wait, not on a lock on its way
        // there (a lock nobody else holds for long).
        int asleep_for = 0;
        for (int i = 0; i < 10000 && asleep_for < 20; ++i) {
            asleep_for = asleep(tid) ? asleep_for + 1 : 0;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ASSERT_EQ(asleep_for, 20);
        dag_walk_free(w);
        waiter.join();
        EXPECT_EQ(waited, DAG_E_CANCELLED);
        if (kind % 2) {
            ASSERT_NE(r, nullptr);
            EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_CANCELLED), 1u);
        }
        dag_walk_report_free(r);
    }
}

// A cancel settled what was queued only after the hand-out in progress on
// another thread, whose observer calls it so waited for: an observer taking
// a lock the cancelling thread held (a binding's interpreter lock)
// deadlocked both. The header says a cancel returns without waiting.
TEST(WalkPull, ACancelDoesNotWaitForTheObserverOfAnotherThreadsHandOut) {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    add(g.get(), "b");
    struct Host {
        std::mutex lock;
        std::atomic<bool> entered{false};
    } host;
    auto o = options(1);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        auto *h = static_cast<Host *>(data);
        if (e != DAG_WALK_EVENT_STARTED) return;
        h->entered = true;
        std::lock_guard<std::mutex> lk(h->lock);
    };
    o.observer_data = &host;
    WalkPtr w = begin(g.get(), o);
    std::unique_lock<std::mutex> held(host.lock);
    std::vector<Handed> got;
    dag_status pulled = DAG_OK;
    std::thread puller([&] { got = next(w.get(), 2, -1, pulled); });
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!host.entered && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    ASSERT_TRUE(host.entered) << "the observer never ran";
    std::atomic<bool> cancelled{false};
    std::thread canceller([&] {
        EXPECT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
        cancelled = true;
    });
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!cancelled && std::chrono::steady_clock::now() < limit)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const bool returned = cancelled;
    held.unlock();  // lets everything end either way
    canceller.join();
    puller.join();
    EXPECT_TRUE(returned) << "dag_walk_cancel waited for another thread's observer";
    EXPECT_EQ(pulled, DAG_OK);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(complete(got[0], DAG_WALK_CANCELLED), DAG_OK);
    wait(w.get(), DAG_E_CANCELLED);
}

// A cancel that checked the walk had not finished, then asked for the
// cancel, while the last completion finished it in between: a waiter
// already in dag_walk_wait got DAG_OK, the cancel DAG_OK too, and every
// later wait DAG_E_CANCELLED. One answer now: the cancel's.
TEST(WalkPull, ACancelRacingTheLastCompletionGivesEveryWaitOneAnswer) {
    for (int round = 0; round < 3000; ++round) {
        GraphPtr g = new_graph();
        add(g.get(), "a");
        WalkPtr w = begin(g.get(), options(1));
        const std::vector<Handed> got = take(w.get(), 1);
        ASSERT_EQ(got.size(), 1u);
        dag_status waited = DAG_OK;
        std::thread waiter([&] {
            dag_walk_report *r = nullptr;
            waited = dag_walk_wait(w.get(), &r, nullptr);
            dag_walk_report_free(r);
        });
        std::thread completer([&] { EXPECT_EQ(complete(got[0]), DAG_OK); });
        const dag_status cancel = dag_walk_cancel(w.get(), nullptr);
        completer.join();
        waiter.join();
        ASSERT_TRUE(cancel == DAG_OK || cancel == DAG_E_STATE) << dag_status_string(cancel);
        const dag_status expected = cancel == DAG_OK ? DAG_E_CANCELLED : DAG_OK;
        EXPECT_EQ(waited, expected) << "round " << round;
        dag_walk_report *r = nullptr;
        EXPECT_EQ(dag_walk_wait(w.get(), &r, nullptr), expected) << "round " << round;
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(dag_walk_report_cancelled(r) != 0, cancel == DAG_OK) << "round " << round;
        dag_walk_report_free(r);
    }
}

TEST(WalkPull, Misuse) {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    uint64_t id;
    dag_walker *hw;
    size_t n;
    dag_walker *w = nullptr;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_begin(nullptr, nullptr, &w, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_begin(g.get(), nullptr, nullptr, e); });
    auto bad = options();
    bad.parallelism = 0;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_begin(g.get(), &bad, &w, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_next_ready(nullptr, &id, &hw, 1, 0, &n, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_wait_for(nullptr, 0, nullptr, e); });

    ASSERT_EQ(dag_walk_begin(g.get(), nullptr, &w, nullptr), DAG_OK);
    WalkPtr owned(w);
    // One walk per graph, whatever its kind.
    dag_walker *second = nullptr;
    expect_error(DAG_E_BUSY, [&](dag_error **e) { return dag_walk_begin(g.get(), nullptr, &second, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_next_ready(w, nullptr, &hw, 1, 0, &n, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_next_ready(w, &id, nullptr, 1, 0, &n, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_next_ready(w, &id, &hw, 1, 0, nullptr, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_next_ready(w, &id, &hw, 0, 0, &n, e); });

    GraphPtr g2 = new_graph();
    add(g2.get(), "x");
    Latch go;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        go.wait();
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    dag_walker *cw = nullptr;
    ASSERT_EQ(dag_walk_start(g2.get(), record_cb, &rec, &o, &cw, nullptr), DAG_OK);
    WalkPtr cowned(cw);
    expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_next_ready(cw, &id, &hw, 1, 0, &n, e); });
    go.set();
    EXPECT_EQ(dag_walk_wait(cw, nullptr, nullptr), DAG_OK);
}

// An unknown vertex is one whatever the outcome: completed as cancelled
// before any cancel, it was refused as "not allowed in this state".
TEST(WalkPull, CompletingAnUnknownVertexAsCancelledIsAnUnknownVertex) {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    WalkPtr w = begin(g.get(), options(1, 1));
    for (dag_walk_result r : {DAG_WALK_OK, DAG_WALK_FAILED, DAG_WALK_CANCELLED})
        expect_error(DAG_E_UNKNOWN_VERTEX,
                     [&](dag_error **e) { return dag_walk_complete(w.get(), 999, r, nullptr, e); });
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    expect_error(DAG_E_UNKNOWN_VERTEX,
                 [&](dag_error **e) { return dag_walk_complete(w.get(), 999, DAG_WALK_CANCELLED, nullptr, e); });
}

// A host expanding the vertex it holds as another thread cancels the walk
// (or a failure stops it under fail fast) cannot tell which came first:
// the expansion's sub-walk is settled and the walk ends, with nothing
// handed out and nobody pulling. It waited for a next dag_walk_next_ready.
TEST(WalkPull, ExpandingAfterTheWalkStoppedStillEndsIt) {
    for (bool fail_fast : {false, true}) {
        SCOPED_TRACE(fail_fast ? "fail fast" : "cancel");
        GraphPtr g = new_graph();
        const uint64_t a = add(g.get(), "a");
        const uint64_t f = fail_fast ? add(g.get(), "f") : 0;
        GraphPtr sub = new_graph();
        add(sub.get(), "s1");
        add(sub.get(), "s2");
        auto o = options(4);
        if (fail_fast) o.failure_policy = DAG_FAILURE_FAIL_FAST;
        WalkPtr w = begin(g.get(), o);
        std::set<uint64_t> out;
        dag_status st;
        while (out.size() < (fail_fast ? 2u : 1u)) {
            auto got = next(w.get(), 4, 10000, st);
            ASSERT_EQ(st, DAG_OK);
            ASSERT_FALSE(got.empty());
            for (const Handed &h : got) out.insert(h.vertex);
        }
        if (fail_fast)
            ASSERT_EQ(dag_walk_complete(w.get(), f, DAG_WALK_FAILED, "down", nullptr), DAG_OK);
        else
            ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
        ASSERT_EQ(dag_walk_expand(w.get(), a, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
        dag_walk_report *r = nullptr;
        EXPECT_EQ(dag_walk_wait_for(w.get(), 10000, &r, nullptr), fail_fast ? DAG_E_WALK_FAILED : DAG_E_CANCELLED);
        ReportPtr report(r);
    }
}

// dag_walk_wait_for(0) only looks, also once the walk has finished while
// an observer call of another thread still runs: it waited for that call.
TEST(WalkPull, AWaitForThatOnlyLooksDoesNotWaitForAnObserverStillRunning) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    struct Slow {
        uint64_t a;
        Latch in_observer, release;
    } slow{a, {}, {}};
    auto o = options(2);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t, void *d) {
        auto *s = static_cast<Slow *>(d);
        if (e != DAG_WALK_EVENT_FINISHED || v != s->a) return;
        s->in_observer.set();
        s->release.wait(std::chrono::seconds(10));
    };
    o.observer_data = &slow;
    WalkPtr w = begin(g.get(), o);
    std::set<uint64_t> out;
    dag_status st;
    while (out.size() < 2) {
        auto got = next(w.get(), 4, 10000, st);
        ASSERT_EQ(st, DAG_OK);
        for (const Handed &h : got) out.insert(h.vertex);
    }
    std::thread host([&] { EXPECT_EQ(dag_walk_complete(w.get(), a, DAG_WALK_OK, nullptr, nullptr), DAG_OK); });
    ASSERT_TRUE(slow.in_observer.wait());
    ASSERT_EQ(dag_walk_complete(w.get(), b, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    size_t done = 0, total = 0;
    for (int i = 0; i < 10000 && done < 2; ++i) {
        ASSERT_EQ(dag_walk_progress(w.get(), &done, &total, nullptr), DAG_OK);
        if (done < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(done, 2u);
    const auto t0 = std::chrono::steady_clock::now();
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait_for(w.get(), 0, &r, nullptr), DAG_E_TIMEOUT);
    EXPECT_EQ(r, nullptr);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    slow.release.set();
    host.join();
    EXPECT_EQ(dag_walk_wait_for(w.get(), 10000, &r, nullptr), DAG_OK);
    dag_walk_report_free(r);
}

// Completing a vertex not handed out says so in pull terms (it spoke of a
// callback returning pending, which a pull walk has none of).
TEST(WalkPull, CompletingAVertexNotHandedOutSaysSo) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    WalkPtr w = begin(g.get(), options(1, 1));
    dag_error *err = nullptr;
    EXPECT_EQ(dag_walk_complete(w.get(), b, DAG_WALK_OK, nullptr, &err), DAG_E_STATE);
    EXPECT_EQ(std::string(dag_error_message(err)),
              "dag_walk_complete: vertex " + std::to_string(b) +
                  " has not been handed out; only a vertex dag_walk_next_ready() handed out can be completed");
    dag_error_free(err);
    err = nullptr;
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    EXPECT_EQ(dag_walk_complete(w.get(), a, DAG_WALK_OK, nullptr, &err), DAG_E_STATE);
    EXPECT_EQ(std::string(dag_error_message(err)),
              "dag_walk_complete: vertex " + std::to_string(a) +
                  " was never handed out; only a vertex dag_walk_next_ready() handed out can be completed");
    dag_error_free(err);
    EXPECT_EQ(dag_walk_wait(w.get(), nullptr, nullptr), DAG_E_CANCELLED);
}

// Hosts pull and complete while another thread cancels at a random moment:
// every vertex ends up finished once, and nothing hangs (run under TSan).
TEST(WalkPull, CancelRacingWithHostsAndUpdates) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        GraphPtr g = new_graph();
        std::vector<uint64_t> ids;
        random_graph(g.get(), 200, seed, ids);
        WalkPtr w = begin(g.get(), options(3));
        std::atomic<size_t> completions{0};
        Hosts hosts;
        hosts.work = [&](const Handed &h) {
            dag_status st = complete(h, seed % 3 == 0 && h.vertex % 7 == 0 ? DAG_WALK_FAILED : DAG_WALK_OK);
            EXPECT_TRUE(st == DAG_OK || st == DAG_E_CANCELLED) << dag_status_string(st);
            ++completions;
            return true;
        };
        hosts.run(w.get(), 3, 2);
        std::thread canceller([&] {
            while (completions.load() < seed * 5 && dag_walk_wait_for(w.get(), 0, nullptr, nullptr) == DAG_E_TIMEOUT)
                std::this_thread::yield();
            dag_status st = dag_walk_cancel(w.get(), nullptr);
            EXPECT_TRUE(st == DAG_OK || st == DAG_E_STATE);
        });
        canceller.join();
        hosts.join();
        dag_walk_report *r = nullptr;
        dag_status st = dag_walk_wait(w.get(), &r, nullptr);
        ReportPtr owned(r);
        EXPECT_TRUE(st == DAG_OK || st == DAG_E_CANCELLED || st == DAG_E_WALK_FAILED) << dag_status_string(st);
        size_t total = 0;
        for (auto s : {DAG_VERTEX_NOT_RUN, DAG_VERTEX_OK, DAG_VERTEX_FAILED, DAG_VERTEX_UPSTREAM_FAILED,
                       DAG_VERTEX_CANCELLED})
            total += dag_walk_report_count(r, s);
        EXPECT_EQ(total, ids.size());
    }
}

// Everything a pull walk allows at once, for ThreadSanitizer (issue 19): on
// random graphs with random parallelism, 1 to 3 host threads take vertices
// and finish some at once (ok or failed), handing the rest to a completer
// thread that completes or expands them; meanwhile one thread applies
// batches that must be accepted (a new vertex depending on an old one) and
// another batches that must be refused (a started vertex made to wait, or
// removed), and for some seeds a third cancels. Seeds run for about two
// seconds (at least four): whatever the interleaving, every vertex is handed
// out at most once, the walk ends, and its report accounts for every vertex,
// the accepted ones included.
struct StressRun {
    explicit StressRun(unsigned seed) : seed(seed), rng(seed) {}

    unsigned seed;
    std::mt19937 rng;
    GraphPtr g = new_graph();
    std::vector<uint64_t> ids;
    WalkPtr w;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Handed> queue;  // vertices left to the completer
    bool hosts_done = false;
    std::vector<uint64_t> started;
    std::set<std::pair<dag_walker *, uint64_t>> handed;
    bool handed_twice = false;
    Latch first_handed;
    std::atomic<size_t> accepted{0}, finished{0};

    // What happens to a vertex, the same for a seed whatever the thread: most
    // are completed at once by their host, some are left to the completer
    // (which expands the walk's own ones), and for odd seeds one in 32 fails.
    enum Fate { ok, fail, deferred, expanded };
    Fate fate(uint64_t v) const {
        uint64_t x = (uint64_t{seed} << 32) + v + 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        x ^= x >> 31;
        const unsigned f = static_cast<unsigned>(x % 32);
        if (f == 0) return seed % 2 ? fail : ok;
        return f < 18 ? ok : f < 25 ? expanded : deferred;
    }
    bool ended() { return dag_walk_wait_for(w.get(), 0, nullptr, nullptr) != DAG_E_TIMEOUT; }

    void finish(const Handed &h, dag_walk_result r) {
        const dag_status st = complete(h, r, r == DAG_WALK_FAILED ? "stress" : nullptr);
        EXPECT_TRUE(st == DAG_OK || st == DAG_E_CANCELLED) << dag_status_string(st);
        ++finished;
    }

    bool host(const Handed &h) {
        {
            std::lock_guard<std::mutex> lk(mu);
            handed_twice |= !handed.insert({h.walk, h.vertex}).second;
            if (h.walk == w.get()) started.push_back(h.vertex);
        }
        first_handed.set();
        const Fate f = fate(h.vertex);
        if (f == ok) {
            finish(h, DAG_WALK_OK);
        } else if (f == fail) {
            finish(h, DAG_WALK_FAILED);
        } else {
            std::lock_guard<std::mutex> lk(mu);
            queue.push_back(h);
            cv.notify_one();
        }
        return true;
    }

    void completer() {
        for (;;) {
            Handed h;
            {
                std::unique_lock<std::mutex> lk(mu);
                cv.wait(lk, [&] { return !queue.empty() || hosts_done; });
                if (queue.empty()) return;
                h = queue.front();
                queue.pop_front();
            }
            if (h.walk == w.get() && fate(h.vertex) == expanded) {
                GraphPtr sub = new_graph();
                const uint64_t a = add(sub.get(), "a"), b = add(sub.get(), "b"), c = add(sub.get(), "c");
                EXPECT_EQ(dag_connect(sub.get(), a, b, nullptr), DAG_OK);
                EXPECT_EQ(dag_connect(sub.get(), b, c, nullptr), DAG_OK);
                if (dag_walk_expand(h.walk, h.vertex, sub.get(), nullptr, nullptr, nullptr) == DAG_OK) continue;
            }
            finish(h, DAG_WALK_OK);
        }
    }

    // A refusal means the walk is finishing, which lasts: every later batch
    // is refused too.
    void accepting_applier(std::mt19937 local) {
        bool refused = false;
        for (int i = 0; i < 50 && !ended(); ++i) {
            dag_walk_update *raw = nullptr;
            ASSERT_EQ(dag_walk_update_new(&raw, nullptr), DAG_OK);
            UpdatePtr u(raw);
            uint64_t n = 0;
            ASSERT_EQ(dag_walk_update_add_vertex(raw, nullptr, nullptr, 0, &n, nullptr), DAG_OK);
            ASSERT_EQ(dag_walk_update_connect(raw, n, ids[local() % ids.size()], nullptr), DAG_OK);
            const dag_status st = dag_walk_apply(w.get(), raw, nullptr, nullptr);
            if (st == DAG_OK) {
                EXPECT_FALSE(refused) << "a batch was accepted after the walk refused one as finished";
                ++accepted;
            } else {
                EXPECT_EQ(st, DAG_E_STATE) << dag_status_string(st);
                if (refused) return;
                refused = true;
            }
        }
    }

    void refusing_applier(std::mt19937 local) {
        ASSERT_TRUE(first_handed.wait());
        for (int i = 0; i < 50 && !ended(); ++i) {
            uint64_t s = 0;
            {
                std::lock_guard<std::mutex> lk(mu);
                if (started.empty()) return;  // cancelled before anything was handed out
                s = started[local() % started.size()];
            }
            dag_walk_update *raw = nullptr;
            ASSERT_EQ(dag_walk_update_new(&raw, nullptr), DAG_OK);
            UpdatePtr u(raw);
            if (i % 2 == 0) {
                uint64_t n = 0;
                ASSERT_EQ(dag_walk_update_add_vertex(raw, nullptr, nullptr, 0, &n, nullptr), DAG_OK);
                ASSERT_EQ(dag_walk_update_connect(raw, s, n, nullptr), DAG_OK);
            } else {
                ASSERT_EQ(dag_walk_update_remove_vertex(raw, s, nullptr), DAG_OK);
            }
            const dag_status st = dag_walk_apply(w.get(), raw, nullptr, nullptr);
            EXPECT_EQ(st, DAG_E_STATE) << "vertex " << s << ": " << dag_status_string(st);
        }
    }

    void run() {
        random_graph(g.get(), 20 + rng() % 40, seed, ids);
        dag_walk_options o = options(1 + rng() % 4);
        if (seed % 5 == 0) o.failure_policy = DAG_FAILURE_FAIL_FAST;
        w = begin(g.get(), o);
        ASSERT_TRUE(w);
        const size_t cancel_after = seed % 3 == 0 ? rng() % ids.size() : SIZE_MAX;
        Hosts hosts;
        hosts.work = [this](const Handed &h) { return host(h); };
        hosts.run(w.get(), 1 + rng() % 3, 1 + rng() % 4);
        std::mt19937 accepting_rng(rng()), refusing_rng(rng());
        std::thread completing([this] { completer(); });
        std::thread accepting([this, &accepting_rng] { accepting_applier(accepting_rng); });
        std::thread refusing([this, &refusing_rng] { refusing_applier(refusing_rng); });
        std::thread cancelling;
        if (cancel_after != SIZE_MAX)
            cancelling = std::thread([this, cancel_after] {
                while (finished.load() < cancel_after && !ended()) std::this_thread::yield();
                const dag_status st = dag_walk_cancel(w.get(), nullptr);
                EXPECT_TRUE(st == DAG_OK || st == DAG_E_STATE) << dag_status_string(st);
            });
        hosts.join();
        first_handed.set();
        {
            std::lock_guard<std::mutex> lk(mu);
            hosts_done = true;
            cv.notify_one();
        }
        completing.join();
        accepting.join();
        refusing.join();
        if (cancelling.joinable()) cancelling.join();

        dag_walk_report *r = nullptr;
        const dag_status st = dag_walk_wait(w.get(), &r, nullptr);
        ReportPtr report(r);
        EXPECT_TRUE(st == DAG_OK || st == DAG_E_WALK_FAILED || st == DAG_E_CANCELLED) << dag_status_string(st);
        EXPECT_FALSE(handed_twice);
        const size_t vertices = ids.size() + accepted.load();
        EXPECT_EQ(dag_vertex_count(g.get()), vertices);
        EXPECT_EQ(dag_walk_report_size(r), vertices);
        size_t total = 0;
        for (auto s : {DAG_VERTEX_NOT_RUN, DAG_VERTEX_OK, DAG_VERTEX_FAILED, DAG_VERTEX_UPSTREAM_FAILED,
                       DAG_VERTEX_CANCELLED})
            total += dag_walk_report_count(r, s);
        EXPECT_EQ(total, vertices);
    }
};

TEST(WalkPull, StressOfConcurrentUpdatesCancelsCompletionsAndExpansions) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (unsigned seed = 1; seed <= 200 && (seed <= 4 || std::chrono::steady_clock::now() < until); ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        StressRun(seed).run();
        if (HasFailure()) return;
    }
}

}  // namespace
