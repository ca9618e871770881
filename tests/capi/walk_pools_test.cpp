// Named limits (pools) of a walk: the bound of each pool over random graphs
// and random needs, in callback and pull mode; ready vertices that need no
// full pool run past those waiting for one; the refusals before a walk.
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

#include "walk_test_support.hpp"

namespace {

// The options' pool arrays, kept alive with their strings.
struct PoolSetup {
    std::vector<std::string> names;
    std::vector<size_t> capacities;
    std::vector<uint64_t> need_vertices;
    std::vector<std::string> need_names;
    std::vector<const char *> name_ptrs, need_ptrs;

    void apply(dag_walk_options &o) {
        name_ptrs.clear();
        need_ptrs.clear();
        for (auto &n : names) name_ptrs.push_back(n.c_str());
        for (auto &n : need_names) need_ptrs.push_back(n.c_str());
        o.pool_names = name_ptrs.data();
        o.pool_capacities = capacities.data();
        o.pool_count = names.size();
        o.pool_need_vertices = need_vertices.data();
        o.pool_need_names = need_ptrs.data();
        o.pool_need_count = need_vertices.size();
    }
    void need(uint64_t v, const std::string &pool) {
        need_vertices.push_back(v);
        need_names.push_back(pool);
    }
    // One pool, "one", of capacity 1, that `vertices` need.
    static PoolSetup one_slot_for(std::initializer_list<uint64_t> vertices) {
        PoolSetup p;
        p.names = {"one"};
        p.capacities = {1};
        for (uint64_t v : vertices) p.need(v, "one");
        return p;
    }
};

dag_status walk_in(bool pull, dag_graph *g, Recorder &rec, const dag_walk_options &o, ReportPtr &report) {
    dag_walk_report *r = nullptr;
    const dag_status st = pull ? pull_walk(g, record_cb, &rec, o, &r) : dag_walk(g, record_cb, &rec, &o, &r, nullptr);
    report.reset(r);
    return st;
}

// A callback walk, whatever DAG_TEST_WALK_MODE says: for the tests whose
// script depends on which worker runs what.
dag_status callback_walk(dag_graph *g, dag_walk_fn cb, void *data, const dag_walk_options &o, ReportPtr &report) {
    dag_walk_report *r = nullptr;
    const dag_status st = dag_walk(g, cb, data, &o, &r, nullptr);
    report.reset(r);
    return st;
}

// Over random graphs, random pools and random needs (a vertex may need
// several pools), no pool ever has more vertices in their callbacks than its
// capacity, and every vertex runs: no deadlock.
void bounds_hold(bool pull) {
#if defined(DAG_TEST_SANITIZED)
    const int graphs = 30;
#else
    const int graphs = 300;
#endif
    std::mt19937_64 rng(pull ? 17 : 71);
    size_t reached_above_one = 0;
    // Until a pool has run two vertices at once, a vertex in a pool with
    // room for more waits a little for company: on a loaded machine, 20 us
    // spins alone sometimes never overlapped in a whole run.
    std::atomic<bool> overlapped{false};
    for (int round = 0; round < graphs; ++round) {
        auto g = new_graph();
        const size_t n = 5 + rng() % 60;
        std::vector<uint64_t> ids;
        for (size_t i = 0; i < n; ++i) ids.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
        for (size_t i = 1; i < n; ++i)
            for (int k = rng() % 3; k-- > 0;) ASSERT_EQ(dag_connect(g.get(), ids[i], ids[rng() % i], nullptr), DAG_OK);
        PoolSetup pools;
        const size_t pool_count = 1 + rng() % 3;
        for (size_t p = 0; p < pool_count; ++p) {
            pools.names.push_back("p" + std::to_string(p));
            pools.capacities.push_back(1 + rng() % 3);
        }
        std::map<uint64_t, std::vector<size_t>> needs;
        for (uint64_t v : ids)
            for (size_t p = 0; p < pool_count; ++p)
                if (rng() % 2) {
                    pools.need(v, pools.names[p]);
                    needs[v].push_back(p);
                }
        std::vector<std::atomic<size_t>> now(pool_count), peak(pool_count);
        Recorder rec;
        rec.body = [&](dag_walker *, uint64_t v, const char **) {
            auto it = needs.find(v);
            if (it == needs.end()) return DAG_WALK_OK;
            for (size_t p : it->second) {
                const size_t in = ++now[p];
                size_t seen = peak[p].load();
                while (in > seen && !peak[p].compare_exchange_weak(seen, in)) {
                }
                if (in > 1) overlapped.store(true);
            }
            const auto company_by = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
            while (!overlapped.load() && std::chrono::steady_clock::now() < company_by &&
                   std::any_of(it->second.begin(), it->second.end(),
                               [&](size_t p) { return pools.capacities[p] > 1; }))
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            // Long enough for other workers to try the same pools (a spin:
            // a yield on a loaded machine can give the core away for
            // milliseconds).
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
            while (std::chrono::steady_clock::now() < until) {
            }
            for (size_t p : it->second) --now[p];
            return DAG_WALK_OK;
        };
        dag_walk_options o = options(4, 4);
        pools.apply(o);
        ReportPtr report;
        ASSERT_EQ(walk_in(pull, g.get(), rec, o, report), DAG_OK) << "round " << round;
        for (uint64_t v : ids) ASSERT_EQ(status_of(report.get(), v), DAG_VERTEX_OK);
        for (size_t p = 0; p < pool_count; ++p) {
            ASSERT_LE(peak[p].load(), pools.capacities[p]) << "round " << round << " pool " << p;
            if (peak[p].load() > 1) ++reached_above_one;
        }
    }
    // The bound was put to the test: pools did run several vertices at once.
    EXPECT_GT(reached_above_one, 0u);
}

TEST(WalkPools, BoundsHoldOverRandomGraphsAndNeeds) { bounds_hold(false); }

TEST(WalkPools, BoundsHoldOverRandomGraphsAndNeedsInPullMode) { bounds_hold(true); }

// Many empty vertices, all ready at once, on narrow pools and eight
// threads: vertices needing one pool take and free their slots without the
// walk's lock while others park and are handed slots under it. Every vertex
// runs, no pool is ever over its capacity, and no walk waits for a release
// that never comes (a lost wake-up would leave it stuck: it must end within
// seconds).
TEST(WalkPools, ShortVerticesOnNarrowPoolsAllRunWithinTheBound) {
#if defined(DAG_TEST_SANITIZED)
    const int rounds = 8;
#else
    const int rounds = 40;
#endif
    std::mt19937_64 rng(29);
    for (int round = 0; round < rounds; ++round) {
        auto g = new_graph();
        const size_t n = 2000;
        std::vector<uint64_t> ids;
        for (size_t i = 0; i < n; ++i) ids.push_back(add(g.get(), nullptr));
        // A few short chains among the independent vertices: releases of
        // dependents come from the finishing worker itself.
        for (size_t i = 1; i < n; i += 7) ASSERT_EQ(dag_connect(g.get(), ids[i], ids[i - 1], nullptr), DAG_OK);
        PoolSetup pools;
        pools.names = {"narrow", "pair"};
        pools.capacities = {1, 2};
        std::vector<std::vector<size_t>> needs(n);
        for (size_t i = 0; i < n; ++i) {
            const unsigned kind = rng() % 8;
            // Mostly one pool, some both (under the lock), some none.
            if (kind < 3 || kind == 6) needs[i].push_back(0);
            if ((kind >= 3 && kind < 6) || kind == 6) needs[i].push_back(1);
            for (size_t p : needs[i]) pools.need(ids[i], pools.names[p]);
        }
        std::vector<std::atomic<size_t>> now(2), peak(2);
        std::atomic<size_t> ran{0};
        std::unordered_map<uint64_t, size_t> index;
        for (size_t i = 0; i < n; ++i) index[ids[i]] = i;
        Recorder rec;
        rec.body = [&](dag_walker *, uint64_t v, const char **) {
            const auto &need = needs[index.at(v)];
            for (size_t p : need) {
                const size_t in = ++now[p];
                size_t seen = peak[p].load();
                while (in > seen && !peak[p].compare_exchange_weak(seen, in)) {
                }
            }
            for (size_t p : need) --now[p];
            ++ran;
            return DAG_WALK_OK;
        };
        dag_walk_options o = options(8, 8);
        o.timestamps = 0;
        pools.apply(o);
        ReportPtr report;
        const dag_status st = walk_or_abort(g.get(), record_cb, &rec, o, report, [&] {
            return "round " + std::to_string(round) + ", " + std::to_string(ran.load()) + " of " + std::to_string(n) +
                   " vertices run";
        });
        ASSERT_EQ(st, DAG_OK) << "round " << round << ": " << ran.load() << " of " << n << " ran";
        EXPECT_EQ(ran.load(), n);
        EXPECT_LE(peak[0].load(), 1u) << "round " << round;
        EXPECT_LE(peak[1].load(), 2u) << "round " << round;
    }
}

// A vertex needing a pool of capacity 1 is expanded; the sub-walk's last
// vertex ends the sub-walk as its worker leaves the queue's work, which
// frees the parent's slot there. Another vertex needing the pool, ready only
// later, still runs: the slot is not lost with the worker.
TEST(WalkPools, ASlotFreedAsASubWalkEndsIsNotLost) {
    auto g = new_graph();
    const uint64_t parent = add(g.get(), "parent"), slow = add(g.get(), "slow"), later = add(g.get(), "later");
    ASSERT_EQ(dag_connect(g.get(), later, slow, nullptr), DAG_OK);
    auto sub = new_graph();
    add(sub.get(), "x");
    PoolSetup pools = PoolSetup::one_slot_for({parent, later});
    struct Script {
        const dag_graph *graph, *sub;
        uint64_t parent, slow;
    } script{g.get(), sub.get(), parent, slow};
    const auto cb = [](dag_walker *w, uint64_t v, const char **, void *ud) -> dag_walk_result {
        auto &s = *static_cast<Script *>(ud);
        if (dag_walk_graph(w) != s.graph) return DAG_WALK_OK;
        if (v == s.parent) EXPECT_EQ(dag_walk_expand(w, v, s.sub, nullptr, nullptr, nullptr), DAG_OK);
        if (v == s.slow) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(4, 4);
    pools.apply(o);
    ReportPtr report;
    ASSERT_EQ(walk_or_abort(g.get(), cb, &script, o, report), DAG_OK);
    EXPECT_EQ(status_of(report.get(), parent), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(report.get(), later), DAG_VERTEX_OK);
}

// An observer may take long, or wait for other vertices: a worker keeps no
// pool slot while it runs one. The observer of the first vertex's finish
// waits for the second vertex, which needs the same pool of capacity 1 and
// becomes ready meanwhile, to start.
TEST(WalkPools, AnObserverRunsWithoutHoldingTheSlotOfTheVertexItReports) {
    auto g = new_graph();
    const uint64_t first = add(g.get(), "first"), gate = add(g.get(), "gate"), second = add(g.get(), "second");
    ASSERT_EQ(dag_connect(g.get(), second, gate, nullptr), DAG_OK);
    PoolSetup pools = PoolSetup::one_slot_for({first, second});
    struct Script {
        uint64_t first, gate, second;
        Latch first_finished, second_started;
        std::atomic<bool> second_seen_in_time{false};
    } script{first, gate, second, {}, {}, {}};
    const auto cb = [](dag_walker *, uint64_t v, const char **, void *ud) -> dag_walk_result {
        auto &s = *static_cast<Script *>(ud);
        if (v == s.gate) s.first_finished.wait();
        if (v == s.second) s.second_started.set();
        return DAG_WALK_OK;
    };
    const auto observe = [](dag_walker *, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                            void *ud) {
        auto &s = *static_cast<Script *>(ud);
        if (e != DAG_WALK_EVENT_FINISHED || v != s.first) return;
        s.first_finished.set();
        s.second_seen_in_time = s.second_started.wait(std::chrono::milliseconds(5000));
    };
    dag_walk_options o = options(3, 3);
    o.observer = observe;
    o.observer_data = &script;
    pools.apply(o);
    ReportPtr report;
    ASSERT_EQ(callback_walk(g.get(), cb, &script, o, report), DAG_OK);
    const dag_walk_report *r = report.get();
    EXPECT_TRUE(script.second_seen_in_time.load());
    EXPECT_EQ(status_of(r, second), DAG_VERTEX_OK);
}

// A slot that a finishing vertex hands to a parked one is queued at once,
// not after the vertex its worker runs next. Two workers; `root` releases
// `holder` (run next on its worker), then `parked`, `blocker` and four
// fillers, queued in that order: the other worker tries `parked` (it parks:
// `holder` has the pool) and blocks in `blocker`. When `holder` finishes, its
// slot goes to `parked` while four fillers are queued, enough for the worker
// to keep what it released and run `next` first; `next` lets `blocker` end
// and waits for `parked` to start on the other worker. Before the fix,
// `parked` waited in the first worker's list until `next` returned.
TEST(WalkPools, AVertexHandedASlotIsQueuedBeforeItsWorkersNextCallback) {
    auto g = new_graph();
    const uint64_t root = add(g.get(), "root"), holder = add(g.get(), "holder"), parked = add(g.get(), "parked"),
                   blocker = add(g.get(), "blocker"), next = add(g.get(), "next");
    for (uint64_t v : {holder, parked, blocker}) ASSERT_EQ(dag_connect(g.get(), v, root, nullptr), DAG_OK);
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(dag_connect(g.get(), add(g.get(), ("filler" + std::to_string(i)).c_str()), root, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), next, holder, nullptr), DAG_OK);
    PoolSetup pools = PoolSetup::one_slot_for({holder, parked});
    struct Script {
        uint64_t holder, parked, blocker, next;
        Latch blocker_started, next_started, parked_started;
        std::atomic<bool> parked_seen_in_time{false};
    } script{holder, parked, blocker, next, {}, {}, {}, {}};
    const auto cb = [](dag_walker *, uint64_t v, const char **, void *ud) -> dag_walk_result {
        auto &s = *static_cast<Script *>(ud);
        if (v == s.holder) s.blocker_started.wait();
        if (v == s.blocker) {
            s.blocker_started.set();
            s.next_started.wait();
        }
        if (v == s.next) {
            s.next_started.set();
            s.parked_seen_in_time = s.parked_started.wait(std::chrono::milliseconds(5000));
        }
        if (v == s.parked) s.parked_started.set();
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(2, 2);
    pools.apply(o);
    ReportPtr report;
    ASSERT_EQ(callback_walk(g.get(), cb, &script, o, report), DAG_OK);
    const dag_walk_report *r = report.get();
    EXPECT_TRUE(script.parked_seen_in_time.load());
    EXPECT_EQ(status_of(r, parked), DAG_VERTEX_OK);
}

// The same through a failed attempt that is tried again: the slot it frees
// goes to `parked`, queued at once. Ten roots, two workers: a worker takes
// the queue's first two (`holder`, then `next`, a batch of ten over twice two
// workers), the other `gate` and `blocker`; `gate` lets `parked` (its
// dependent) try the pool while `holder` holds it. `holder` fails once with
// a retry left while six fillers are queued, and its worker goes on to
// `next`, which waits for `parked` to start on the other worker.
TEST(WalkPools, AVertexHandedASlotByAFailedAttemptIsQueuedAtOnce) {
    auto g = new_graph();
    const uint64_t holder = add(g.get(), "holder"), next = add(g.get(), "next"), gate = add(g.get(), "gate"),
                   blocker = add(g.get(), "blocker");
    for (int i = 0; i < 6; ++i) add(g.get(), ("filler" + std::to_string(i)).c_str());
    const uint64_t parked = add(g.get(), "parked");
    ASSERT_EQ(dag_connect(g.get(), parked, gate, nullptr), DAG_OK);
    PoolSetup pools = PoolSetup::one_slot_for({holder, parked});
    struct Script {
        uint64_t holder, next, gate, blocker, parked;
        Latch holder_started, blocker_started, next_started, parked_started;
        std::atomic<int> holder_calls{0};
        std::atomic<bool> parked_seen_in_time{false};
    } script{holder, next, gate, blocker, parked, {}, {}, {}, {}, {}, {}};
    const auto cb = [](dag_walker *, uint64_t v, const char **, void *ud) -> dag_walk_result {
        auto &s = *static_cast<Script *>(ud);
        if (v == s.holder && s.holder_calls++ == 0) {
            s.holder_started.set();
            s.blocker_started.wait();
            return DAG_WALK_FAILED;
        }
        if (v == s.gate) s.holder_started.wait();
        if (v == s.blocker) {
            s.blocker_started.set();
            s.next_started.wait();
        }
        if (v == s.next) {
            s.next_started.set();
            s.parked_seen_in_time = s.parked_started.wait(std::chrono::milliseconds(5000));
        }
        if (v == s.parked) s.parked_started.set();
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(2, 2);
    pools.apply(o);
    const uint64_t retried[] = {holder};
    const size_t counts[] = {1};
    o.retry_vertices = retried;
    o.retry_counts = counts;
    o.retry_vertex_count = 1;
    ReportPtr report;
    ASSERT_EQ(callback_walk(g.get(), cb, &script, o, report), DAG_OK);
    const dag_walk_report *r = report.get();
    EXPECT_TRUE(script.parked_seen_in_time.load());
    EXPECT_EQ(script.holder_calls.load(), 2);
    EXPECT_EQ(status_of(r, holder), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r, parked), DAG_VERTEX_OK);
}

// Six vertices need pool "slow" (capacity 1) and stay pending until the test
// completes them; six others need nothing. With parallelism 2, the first
// slow vertex holds the pool and one slot; the others wait off the queue,
// and the six free vertices all run in the other slot before any slow
// vertex is completed.
void free_vertices_pass(bool pull) {
    auto g = new_graph();
    std::vector<uint64_t> slow, free;
    for (int i = 0; i < 6; ++i) slow.push_back(add(g.get(), ("slow" + std::to_string(i)).c_str()));
    for (int i = 0; i < 6; ++i) free.push_back(add(g.get(), ("free" + std::to_string(i)).c_str()));
    PoolSetup pools;
    pools.names = {"slow"};
    pools.capacities = {1};
    for (uint64_t v : slow) pools.need(v, "slow");
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::pair<dag_walker *, uint64_t>> pending;
    size_t slow_in = 0, slow_peak = 0, free_done = 0;
    Latch all_free;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        std::lock_guard<std::mutex> lk(mu);
        if (std::find(slow.begin(), slow.end(), v) == slow.end()) {
            if (++free_done == free.size()) all_free.set();
            return DAG_WALK_OK;
        }
        slow_peak = std::max(slow_peak, ++slow_in);
        pending.emplace_back(w, v);
        cv.notify_all();
        return DAG_WALK_PENDING;
    };
    dag_walk_options o = options(2, 2);
    pools.apply(o);
    std::thread completer([&] {
        EXPECT_TRUE(all_free.wait()) << "free vertices were held up behind the full pool";
        for (size_t done = 0; done < slow.size(); ++done) {
            std::pair<dag_walker *, uint64_t> p;
            {
                std::unique_lock<std::mutex> lk(mu);
                if (!cv.wait_for(lk, gate_limit, [&] { return !pending.empty(); })) {
                    ADD_FAILURE() << "slow vertex " << done << " never started";
                    return;
                }
                p = pending.front();
                pending.erase(pending.begin());
                // Completing it frees the pool: counted out first.
                --slow_in;
            }
            EXPECT_EQ(dag_walk_complete(p.first, p.second, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
        }
    });
    ReportPtr report;
    EXPECT_EQ(walk_in(pull, g.get(), rec, o, report), DAG_OK);
    completer.join();
    EXPECT_EQ(slow_peak, 1u);
    for (uint64_t v : slow) EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_OK);
}

TEST(WalkPools, ReadyVerticesOutsideAFullPoolRun) { free_vertices_pass(false); }

TEST(WalkPools, ReadyVerticesOutsideAFullPoolRunInPullMode) { free_vertices_pass(true); }

// Vertices that need two pools each, in both orders, beside vertices that
// need one of them: with capacity 1 each, every one of them runs alone in
// what it needs, and the walk ends.
TEST(WalkPools, VerticesNeedingSeveralPoolsDoNotDeadlock) {
    auto g = new_graph();
    PoolSetup pools;
    pools.names = {"a", "b"};
    pools.capacities = {1, 1};
    std::map<uint64_t, std::set<std::string>> needs;
    for (int i = 0; i < 30; ++i) {
        const uint64_t v = add(g.get(), ("v" + std::to_string(i)).c_str());
        const std::vector<std::string> which = i % 3 == 0   ? std::vector<std::string>{"a", "b"}
                                               : i % 3 == 1 ? std::vector<std::string>{"b", "a"}
                                                            : std::vector<std::string>{i % 2 ? "a" : "b"};
        for (const auto &p : which) {
            pools.need(v, p);
            needs[v].insert(p);
        }
    }
    std::mutex mu;
    std::map<std::string, int> in;
    bool overlapped = false;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        {
            std::lock_guard<std::mutex> lk(mu);
            for (const auto &p : needs[v])
                if (++in[p] > 1) overlapped = true;
        }
        std::this_thread::yield();
        std::lock_guard<std::mutex> lk(mu);
        for (const auto &p : needs[v]) --in[p];
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(8, 8);
    pools.apply(o);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_FALSE(overlapped);
    EXPECT_EQ(rec.ran().size(), 30u);
}

// zz needs pools p and q (capacity 1 each) and is ready from the start,
// beside a chain of vertices needing p and a chain needing q. Each time one
// pool frees the other is still held, and the chain's next vertex, ready
// just then, took the freed slot: zz was overtaken for ever and started
// after both chains (41st of 41). The oldest parked vertex has its pools
// kept for it: zz starts as soon as the two vertices holding them end.
void several_pools_not_overtaken(bool pull) {
    auto g = new_graph();
    PoolSetup pools;
    pools.names = {"p", "q"};
    pools.capacities = {1, 1};
    const uint64_t zz = add(g.get(), "zz");
    pools.need(zz, "p");
    pools.need(zz, "q");
    uint64_t last_p = 0, last_q = 0, first_p = 0, first_q = 0;
    for (int i = 0; i < 10; ++i) {
        const uint64_t vp = add(g.get(), ("p" + std::to_string(i)).c_str());
        const uint64_t vq = add(g.get(), ("q" + std::to_string(i)).c_str());
        pools.need(vp, "p");
        pools.need(vq, "q");
        if (last_p) {
            ASSERT_EQ(dag_connect(g.get(), vp, last_p, nullptr), DAG_OK);
            ASSERT_EQ(dag_connect(g.get(), vq, last_q, nullptr), DAG_OK);
        }
        if (!last_p) {
            first_p = vp;
            first_q = vq;
        }
        last_p = vp;
        last_q = vq;
    }
    auto body = [&](dag_walker *, uint64_t v, const char **) {
        // The chains' first vertices long enough for zz, ready with them,
        // to park before either ends, also on a busy machine.
        if (v == first_p || v == first_q)
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        else if (v != zz)
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        return DAG_WALK_OK;
    };
    for (const dag_walk_priority priority : {DAG_PRIORITY_NONE, DAG_PRIORITY_CRITICAL_PATH, DAG_PRIORITY_NAME}) {
        SCOPED_TRACE(priority);
        Recorder rec;
        rec.body = body;
        dag_walk_options o = options(8, 8);
        o.priority = priority;
        pools.apply(o);
        ReportPtr report;
        ASSERT_EQ(walk_in(pull, g.get(), rec, o, report), DAG_OK);
        const std::vector<uint64_t> order = rec.ran();
        ASSERT_EQ(order.size(), 21u);
        const size_t at = std::find(order.begin(), order.end(), zz) - order.begin();
        // Third at the latest, after p0 and q0; fifth leaves room for a slow start.
        EXPECT_LE(at, 4u);
    }
}

TEST(WalkPools, AVertexNeedingSeveralPoolsIsNotOvertakenForEver) { several_pools_not_overtaken(false); }

TEST(WalkPools, AVertexNeedingSeveralPoolsIsNotOvertakenForEverInPullMode) { several_pools_not_overtaken(true); }

// A pull walk with `pools`, one thread, by name: the host says who waits
// for what, in a known order.
WalkPtr begin_by_name(dag_graph *g, PoolSetup &pools) {
    dag_walk_options o = options(8, 1);
    o.priority = DAG_PRIORITY_NAME;
    pools.apply(o);
    dag_walker *raw = nullptr;
    EXPECT_EQ(dag_walk_begin(g, &o, &raw, nullptr), DAG_OK);
    return WalkPtr(raw);
}

// The pools kept for the longest-waiting vertex go to the next when it
// goes without starting. In pull mode, so that the host says who waits for
// what: holder takes pool b; head, needing a and b, parks on b; later, needing
// only a, finds a's only slot free but kept for head and parks too. An
// update removes head: later starts at once, while holder still runs (it
// waited for holder to finish, with a idle).
TEST(WalkPools, PoolsKeptForAVertexRemovedByAnUpdateGoToTheNext) {
    auto g = new_graph();
    const uint64_t holder = add(g.get(), "a_holder"), head = add(g.get(), "b_head"), later = add(g.get(), "c_later");
    PoolSetup pools;
    pools.names = {"a", "b"};
    pools.capacities = {1, 1};
    pools.need(holder, "b");
    pools.need(head, "a");
    pools.need(head, "b");
    pools.need(later, "a");
    WalkPtr walk = begin_by_name(g.get(), pools);
    ASSERT_NE(walk, nullptr);
    uint64_t got[8];
    dag_walker *walks[8];
    size_t n = 0;
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    ASSERT_EQ(got[0], holder);
    EXPECT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 0, &n, nullptr), DAG_E_TIMEOUT);
    UpdatePtr update = new_update();
    ASSERT_EQ(dag_walk_update_remove_vertex(update.get(), head, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_apply(walk.get(), update.get(), nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(got[0], later);
    EXPECT_EQ(dag_walk_complete(walk.get(), later, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(dag_walk_complete(walk.get(), holder, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    EXPECT_EQ(n, 0u);
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk_wait(walk.get(), &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(status_of(report.get(), later), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(report.get(), head), DAG_VERTEX_NOT_RUN);
}

// Only one slot of each pool is kept for the longest-waiting vertex: with
// aws=3 and rds=1, a vertex needing both waits for rds while vertices
// needing aws alone take two of aws's slots, leaving the third for it (the
// whole of aws stayed idle until rds freed). In pull mode, so that the host
// says who waits for what.
TEST(WalkPools, AVertexWaitingForOnePoolKeepsOneSlotOfItsOthersNotAll) {
    auto g = new_graph();
    const uint64_t holder = add(g.get(), "a_holder"), head = add(g.get(), "b_head");
    const uint64_t web1 = add(g.get(), "c_web1"), web2 = add(g.get(), "c_web2"), web3 = add(g.get(), "c_web3");
    PoolSetup pools;
    pools.names = {"aws", "rds"};
    pools.capacities = {3, 1};
    pools.need(holder, "rds");
    pools.need(head, "aws");
    pools.need(head, "rds");
    for (const uint64_t web : {web1, web2, web3}) pools.need(web, "aws");
    WalkPtr walk = begin_by_name(g.get(), pools);
    ASSERT_NE(walk, nullptr);
    uint64_t got[8];
    dag_walker *walks[8];
    size_t n = 0;
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    std::set<uint64_t> out(got, got + n);
    // holder, and two of the web vertices while head waits for rds.
    for (int tries = 0; out.size() < 3 && tries < 100; ++tries) {
        if (dag_walk_next_ready(walk.get(), got, walks, 8, 100, &n, nullptr) == DAG_OK) out.insert(got, got + n);
    }
    ASSERT_EQ(out.size(), 3u) << "vertices needing aws alone waited while head waited for rds";
    EXPECT_EQ(out.count(holder), 1u);
    EXPECT_EQ(out.count(head), 0u);
    // The third slot of aws is head's: the last web vertex waits.
    EXPECT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 0, &n, nullptr), DAG_E_TIMEOUT);
    EXPECT_EQ(dag_walk_complete(walk.get(), holder, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(got[0], head);
    std::vector<uint64_t> rest;
    for (const uint64_t web : {web1, web2, web3})
        if (!out.count(web)) rest.push_back(web);
    for (const uint64_t v : out)
        if (v != holder) EXPECT_EQ(dag_walk_complete(walk.get(), v, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(dag_walk_complete(walk.get(), head, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(rest.size(), 1u);
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(got[0], rest[0]);
    EXPECT_EQ(dag_walk_complete(walk.get(), rest[0], DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_next_ready(walk.get(), got, walks, 8, 10000, &n, nullptr), DAG_OK);
    EXPECT_EQ(n, 0u);
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk_wait(walk.get(), &r, nullptr), DAG_OK);
    ReportPtr report(r);
}

// Each vertex runs alone in every pool it needs (all of capacity 1) and the
// walk ends; `needs` lists a vertex's pools as the options name them.
void runs_alone_in_its_pools(PoolSetup &pools, const std::map<uint64_t, std::vector<std::string>> &needs,
                             dag_graph *g) {
    for (const auto &[v, names] : needs)
        for (const auto &p : names) pools.need(v, p);
    std::mutex mu;
    std::map<std::string, int> in;
    bool overlapped = false;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        const std::set<std::string> mine(needs.at(v).begin(), needs.at(v).end());
        {
            std::lock_guard<std::mutex> lk(mu);
            for (const auto &p : mine)
                if (++in[p] > 1) overlapped = true;
        }
        // Long enough for the other workers to start theirs.
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::lock_guard<std::mutex> lk(mu);
        for (const auto &p : mine) --in[p];
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(4, 4);
    pools.apply(o);
    ReportPtr report;
    ASSERT_EQ(run_walk(g, rec, o, report), DAG_OK);
    EXPECT_FALSE(overlapped);
    EXPECT_EQ(rec.ran().size(), needs.size());
}

// A pool named twice in one vertex's needs takes one slot: with capacity 1,
// a vertex that counted it twice could never start.
TEST(WalkPools, APoolNeededTwiceByOneVertexTakesOneSlot) {
    auto g = new_graph();
    PoolSetup pools;
    pools.names = {"a", "b"};
    pools.capacities = {1, 1};
    const std::vector<std::vector<std::string>> shapes = {{"a", "a"}, {"a", "b", "a"}, {"b", "a", "b", "a"}, {"b"}};
    std::map<uint64_t, std::vector<std::string>> needs;
    for (int i = 0; i < 12; ++i) needs[add(g.get(), ("v" + std::to_string(i)).c_str())] = shapes[i % shapes.size()];
    runs_alone_in_its_pools(pools, needs, g.get());
}

// The slot's word holds a pool's index only up to 65,533 (walk_state.hpp):
// the pools past it are found in the pools' table, alone or with others,
// and bound their vertices just the same.
TEST(WalkPools, PoolsPastTheWordsRangeBoundTheirVerticesToo) {
    auto g = new_graph();
    PoolSetup pools;
    for (int p = 0; p < 70000; ++p) {
        pools.names.push_back("p" + std::to_string(p));
        pools.capacities.push_back(1);
    }
    // p65534 is the first pool past the word's range: its index plus one is
    // the word's "several", and it must not read as a repeat of it.
    std::vector<std::vector<std::string>> shapes = {
        {"p69999"}, {"p65533"}, {"p65532"}, {"p0", "p69999"}, {"p65533", "p65533"}, {"p65532", "p65533"}};
    for (int k = 0; k < 4; ++k) {
        shapes.push_back({"p" + std::to_string(10 + 2 * k), "p" + std::to_string(11 + 2 * k), "p65534"});
        shapes.push_back({"p" + std::to_string(65540 + k), "p65534"});
    }
    std::map<uint64_t, std::vector<std::string>> needs;
    for (size_t i = 0; i < 2 * shapes.size(); ++i)
        needs[add(g.get(), ("v" + std::to_string(i)).c_str())] = shapes[i % shapes.size()];
    runs_alone_in_its_pools(pools, needs, g.get());
}

// A failed vertex that held a pool frees it: its dependents are skipped,
// and the vertices waiting for the pool still run.
TEST(WalkPools, AFailedVertexFreesItsPool) {
    auto g = new_graph();
    const uint64_t bad = add(g.get(), "bad"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), after, bad, nullptr), DAG_OK);
    PoolSetup pools;
    pools.names = {"one"};
    pools.capacities = {1};
    pools.need(bad, "one");
    std::vector<uint64_t> others;
    for (int i = 0; i < 5; ++i) {
        others.push_back(add(g.get(), ("o" + std::to_string(i)).c_str()));
        pools.need(others.back(), "one");
    }
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v != bad) return DAG_WALK_OK;
        *msg = "boom";
        return DAG_WALK_FAILED;
    };
    dag_walk_options o = options(3, 3);
    pools.apply(o);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(status_of(report.get(), after), DAG_VERTEX_UPSTREAM_FAILED);
    for (uint64_t v : others) EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_OK);
}

// Fail fast with vertices waiting for the pool of the one that fails: the
// slot it frees goes to a walk already stopped, so none of them starts (one
// was handed the slot and started before the stop, now and then).
TEST(WalkPools, FailFastStartsNoVertexWaitingForThePoolOfTheOneThatFailed) {
    for (int round = 0; round < 30; ++round) {
        auto g = new_graph();
        const uint64_t bad = add(g.get(), "bad"), gate = add(g.get(), "gate");
        PoolSetup pools = PoolSetup::one_slot_for({bad});
        std::vector<uint64_t> waiting;
        for (int i = 0; i < 4; ++i) {
            waiting.push_back(add(g.get(), ("w" + std::to_string(i)).c_str()));
            pools.need(waiting.back(), "one");
            ASSERT_EQ(dag_connect(g.get(), waiting.back(), gate, nullptr), DAG_OK);
        }
        Latch bad_started, gate_done;
        std::atomic<bool> failed{false};
        std::atomic<int> started_after{0};
        struct Ctx {
            uint64_t gate;
            Latch *gate_done;
        } ctx{gate, &gate_done};
        Recorder rec;
        rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
            if (v == bad) {
                bad_started.set();
                EXPECT_TRUE(gate_done.wait());
                // The waiting vertices are ready by now and park on the pool.
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                failed = true;
                *msg = "boom";
                return DAG_WALK_FAILED;
            }
            if (v == gate) {
                EXPECT_TRUE(bad_started.wait());
                return DAG_WALK_OK;
            }
            if (failed) ++started_after;
            return DAG_WALK_OK;
        };
        dag_walk_options o = options(6, 6);
        o.failure_policy = DAG_FAILURE_FAIL_FAST;
        o.observer = [](dag_walker *, dag_walk_event ev, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                        void *data) {
            auto &c = *static_cast<Ctx *>(data);
            if (ev == DAG_WALK_EVENT_FINISHED && v == c.gate) c.gate_done->set();
        };
        o.observer_data = &ctx;
        pools.apply(o);
        ReportPtr report;
        ASSERT_EQ(callback_walk(g.get(), record_cb, &rec, o, report), DAG_E_WALK_FAILED);
        ASSERT_EQ(started_after.load(), 0) << "round " << round;
        for (uint64_t v : waiting) EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_NOT_RUN) << "round " << round;
    }
}

// A cancel while vertices wait for a full pool: the one holding it is
// finished as cancelled, and each waiting vertex in turn is handed the pool
// and settled as cancelled without running; the walk ends.
TEST(WalkPools, CancelSettlesTheVerticesWaitingForAPool) {
    auto g = new_graph();
    PoolSetup pools;
    pools.names = {"one"};
    pools.capacities = {1};
    std::vector<uint64_t> ids;
    for (int i = 0; i < 20; ++i) {
        ids.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
        pools.need(ids.back(), "one");
    }
    Latch holding;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        holding.set();
        return DAG_WALK_PENDING;
    };
    dag_walk_options o = options(4, 4);
    pools.apply(o);
    dag_walker *raw = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &raw, nullptr), DAG_OK);
    WalkPtr w(raw);
    ASSERT_TRUE(holding.wait());
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(w.get(), &r, nullptr), DAG_E_CANCELLED);
    ReportPtr report(r);
    EXPECT_EQ(rec.ran().size(), 1u);
    for (uint64_t v : ids) EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_CANCELLED);
}

dag_status walk_with(dag_graph *g, PoolSetup &pools, dag_error **err) {
    dag_walk_options o = options(2, 2);
    pools.apply(o);
    Recorder rec;
    return dag_walk(g, record_cb, &rec, &o, nullptr, err);
}

TEST(WalkPools, BadPoolsAreRefusedBeforeTheWalk) {
    auto g = new_graph();
    const uint64_t v = add(g.get(), "aws_instance.a");
    Recorder rec;
    bool ran = false;
    PoolSetup unknown;
    unknown.names = {"aws"};
    unknown.capacities = {2};
    unknown.need(v, "rds");
    std::string msg = expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return walk_with(g.get(), unknown, e); });
    EXPECT_NE(msg.find("'aws_instance.a' needs pool 'rds', which the walk does not declare"), std::string::npos) << msg;

    PoolSetup empty;
    empty.names = {"aws"};
    empty.capacities = {0};
    empty.need(v, "aws");
    msg = expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return walk_with(g.get(), empty, e); });
    EXPECT_NE(msg.find("capacity is 0"), std::string::npos) << msg;

    PoolSetup twice;
    twice.names = {"aws", "aws"};
    twice.capacities = {1, 2};
    msg = expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return walk_with(g.get(), twice, e); });
    EXPECT_NE(msg.find("declared twice"), std::string::npos) << msg;

    PoolSetup unnamed;
    unnamed.names = {""};
    unnamed.capacities = {1};
    msg = expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return walk_with(g.get(), unnamed, e); });
    EXPECT_NE(msg.find("empty"), std::string::npos) << msg;

    // Names are UTF-8, as vertex names are; a refusal's message is too.
    PoolSetup garbled;
    garbled.names = {"\xff\xfe"};
    garbled.capacities = {1};
    msg = expect_error(DAG_E_BAD_UTF8, [&](dag_error **e) { return walk_with(g.get(), garbled, e); });
    EXPECT_NE(msg.find("\\xff\\xfe"), std::string::npos) << msg;
    PoolSetup garbled_need;
    garbled_need.names = {"aws"};
    garbled_need.capacities = {1};
    garbled_need.need(v, "\xc3");
    msg = expect_error(DAG_E_BAD_UTF8, [&](dag_error **e) { return walk_with(g.get(), garbled_need, e); });
    EXPECT_EQ(msg.find('\xc3'), std::string::npos) << msg;
    // The message says what the status says (it said the pool was not declared).
    EXPECT_NE(msg.find("not valid UTF-8"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("does not declare"), std::string::npos) << msg;

    PoolSetup stranger;
    stranger.names = {"aws"};
    stranger.capacities = {1};
    stranger.need(v + 1000, "aws");
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return walk_with(g.get(), stranger, e); });

    dag_walk_options o = options(2, 2);
    o.pool_count = 1;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &o, nullptr, e); });
    o = options(2, 2);
    const char *names[] = {nullptr};
    const size_t caps[] = {1};
    o.pool_names = names;
    o.pool_capacities = caps;
    o.pool_count = 1;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &o, nullptr, e); });
    EXPECT_TRUE(rec.ran().empty());

    // A pool of capacity 0 that nobody needs is allowed; the graph is free
    // again after every refusal.
    PoolSetup idle;
    idle.names = {"aws", "off"};
    idle.capacities = {1, 0};
    idle.need(v, "aws");
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        ran = true;
        return DAG_WALK_OK;
    };
    dag_walk_options ok = options(2, 2);
    idle.apply(ok);
    EXPECT_EQ(dag_walk(g.get(), record_cb, &rec, &ok, nullptr, nullptr), DAG_OK);
    EXPECT_TRUE(ran);
}

}  // namespace
