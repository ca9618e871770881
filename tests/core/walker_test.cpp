// The walker core: dependency order over thousands of random graphs, the
// parallelism bound, and size stress.
#include "walk/walker.hpp"

#include "algorithms/topo_order.hpp"
#include "graph/error.hpp"
#include "walk/walk_update.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <numeric>
#include <random>
#include <thread>

namespace dag {
namespace {

// The stress sizes (a walk of 10^6 vertices) run in every build,
// sanitizers included; only the repetitions are cut there.
constexpr std::size_t big_walk = 1000000;
#ifdef DAG_TEST_SANITIZED
constexpr int random_graphs = 300;
constexpr int racing_rounds = 8;
#else
constexpr int random_graphs = 2000;
constexpr int racing_rounds = 40;
#endif

using Body = std::function<Outcome(Walk &, VertexId)>;

Outcome call_body(void *context, Walk &w, VertexId v, const char **) { return (*static_cast<Body *>(context))(w, v); }

WalkReport walk(Graph &g, Body &body, WalkOptions o = {}) {
    auto w = Walk::start(g, Visitor{call_body, &body}, o, nullptr);
    w->wait();
    return w->report();
}

// Ids in a random order; vertex i may depend only on vertices before it.
std::vector<VertexId> random_dag(Graph &g, std::mt19937_64 &rng, std::size_t n, double density) {
    std::vector<VertexId> ids;
    for (std::size_t i = 0; i < n; ++i) ids.push_back(g.add_vertex(std::nullopt, nullptr));
    std::shuffle(ids.begin(), ids.end(), rng);
    std::bernoulli_distribution edge(density);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (edge(rng)) g.connect(ids[i], ids[j]);
    return ids;
}

TEST(Walker, EveryVertexStartsAfterItsDependenciesFinished) {
    std::mt19937_64 rng(20240611);
    for (int round = 0; round < random_graphs; ++round) {
        Graph g;
        std::size_t n = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
        random_dag(g, rng, n, std::uniform_real_distribution<double>(0.0, 0.3)(rng));
        WalkOptions o;
        o.parallelism = std::uniform_int_distribution<std::size_t>(1, 8)(rng);
        o.threads = std::uniform_int_distribution<std::size_t>(1, 4)(rng);
        o.reverse = round % 3 == 0;
        // A logical clock as well as the report's timestamps: both must agree.
        std::atomic<int> clock{0};
        std::vector<std::atomic<int>> start(g.index_bound() + 1), end(g.index_bound() + 1);
        std::vector<std::atomic<int>> runs(g.index_bound() + 1);
        Body body = [&](Walk &, VertexId v) {
            start[v] = ++clock;
            ++runs[v];
            end[v] = ++clock;
            return Outcome::ok;
        };
        WalkReport r = walk(g, body, o);
        ASSERT_EQ(r.size(), n);
        ASSERT_EQ(r.total(VertexStatus::ok), n);
        for (VertexId v : g.vertices()) ASSERT_EQ(runs[v].load(), 1);
        for (auto [from, to] : g.edges()) {
            VertexId first = o.reverse ? from : to, then = o.reverse ? to : from;
            ASSERT_GT(start[then].load(), end[first].load()) << "round " << round;
            ASSERT_GE(r.find(then)->start_ns, r.find(first)->end_ns) << "round " << round;
        }
    }
}

// Thousands ready at once: each worker keeps what its vertices release, up to
// a batch, while the queue holds enough for the others. Nothing may start
// early, run twice or be lost, and a failure still reaches exactly its
// dependents.
TEST(Walker, WideGraphsKeepTheOrderWhileWorkersBatchWhatTheyRelease) {
    std::mt19937_64 rng(20261127);
    for (int round = 0; round < 6; ++round) {
        Graph g;
        std::vector<VertexId> ids;
        const std::size_t n = 4096;
        for (std::size_t i = 0; i < n; ++i) ids.push_back(g.add_vertex(std::nullopt, nullptr));
        for (std::size_t i = 1; i < n; ++i) {
            if (round % 2 == 0) {
                g.connect(ids[(i - 1) / 2], ids[i]);  // a binary tree, each parent after its children
            } else {
                for (int k = 0; k < 3; ++k) g.connect(ids[i], ids[rng() % i]);
            }
        }
        std::vector<char> fails(g.index_bound() + 1);
        for (int k = 0; k < 4; ++k) fails[ids[rng() % n]] = 1;
        WalkOptions o;
        o.parallelism = 2 + round % 3;
        o.threads = o.parallelism;
        std::atomic<int> clock{0};
        std::vector<std::atomic<int>> start(g.index_bound() + 1), end(g.index_bound() + 1), runs(g.index_bound() + 1);
        Body body = [&](Walk &, VertexId v) {
            start[v] = ++clock;
            ++runs[v];
            end[v] = ++clock;
            return fails[v] ? Outcome::failed : Outcome::ok;
        };
        WalkReport r = walk(g, body, o);
        ASSERT_EQ(r.size(), n);
        for (auto [from, to] : g.edges())
            if (runs[from].load() != 0) { ASSERT_GT(start[from].load(), end[to].load()) << "round " << round; }
        // In dependency order (a dependency's id is not always smaller).
        std::vector<VertexId> order = topological_order(g);
        std::reverse(order.begin(), order.end());
        for (VertexId v : order) {
            bool upstream = false;
            for (VertexId d : g.dependencies(v)) upstream |= r.find(d)->status != VertexStatus::ok;
            const VertexStatus want = upstream ? VertexStatus::upstream_failed
                                               : fails[v] ? VertexStatus::failed : VertexStatus::ok;
            ASSERT_EQ(r.find(v)->status, want) << "round " << round << " vertex " << v;
            ASSERT_EQ(runs[v].load(), upstream ? 0 : 1) << "round " << round << " vertex " << v;
        }
    }
}

TEST(Walker, FailuresReachExactlyTheTransitiveDependents) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < random_graphs / 10; ++round) {
        Graph g;
        auto ids = random_dag(g, rng, 60, 0.05);
        std::vector<char> fails(g.index_bound() + 1);
        for (int k = 0; k < 3; ++k) fails[ids[rng() % ids.size()]] = 1;
        Body body = [&](Walk &, VertexId v) { return fails[v] ? Outcome::failed : Outcome::ok; };
        WalkOptions o;
        o.threads = 3;
        WalkReport r = walk(g, body, o);
        // Expected: a vertex is upstream-failed iff some dependency is not ok.
        for (VertexId v : ids) {  // ids[i] depends only on earlier ids
            bool upstream = false;
            for (VertexId d : g.dependencies(v)) upstream |= r.find(d)->status != VertexStatus::ok;
            VertexStatus want = upstream ? VertexStatus::upstream_failed
                                         : fails[v] ? VertexStatus::failed : VertexStatus::ok;
            ASSERT_EQ(r.find(v)->status, want) << "round " << round << " vertex " << v;
        }
    }
}

TEST(Walker, ParallelismIsNeverExceeded) {
    std::mt19937_64 rng(99);
    for (int round = 0; round < 20; ++round) {
        Graph g;
        random_dag(g, rng, 80, 0.02);
        WalkOptions o;
        o.parallelism = 1 + round % 5;
        o.threads = 8;
        std::atomic<std::size_t> now{0}, peak{0};
        Body body = [&](Walk &, VertexId) {
            std::size_t n = ++now;
            std::size_t p = peak.load();
            while (n > p && !peak.compare_exchange_weak(p, n)) {
            }
            std::this_thread::yield();
            --now;
            return Outcome::ok;
        };
        walk(g, body, o);
        ASSERT_LE(peak.load(), o.parallelism);
    }
}

TEST(Walker, MillionVerticesInOneWalk) {
    // A thousand chains of a thousand: wide and deep at once.
    Graph g;
    VertexId prev = no_vertex;
    for (std::size_t i = 0; i < big_walk; ++i) {
        VertexId v = g.add_vertex(std::nullopt, nullptr);
        if (i % 1000) g.connect(v, prev);
        prev = v;
    }
    std::atomic<std::size_t> calls{0};
    Body body = [&](Walk &, VertexId) {
        calls.fetch_add(1, std::memory_order_relaxed);
        return Outcome::ok;
    };
    WalkOptions o;
    o.threads = 2;
    o.timestamps = false;
    WalkReport r = walk(g, body, o);
    EXPECT_EQ(calls.load(), big_walk);
    EXPECT_EQ(r.total(VertexStatus::ok), big_walk);
}

TEST(Walker, DeepFailureChainDoesNotRecurse) {
    Graph g;
    VertexId prev = g.add_vertex(std::nullopt, nullptr), first = prev;
    for (std::size_t i = 1; i < big_walk / 10; ++i) {
        VertexId v = g.add_vertex(std::nullopt, nullptr);
        g.connect(v, prev);
        prev = v;
    }
    Body body = [&](Walk &, VertexId v) { return v == first ? Outcome::failed : Outcome::ok; };
    WalkOptions o;
    o.threads = 1;
    WalkReport r = walk(g, body, o);
    EXPECT_EQ(r.total(VertexStatus::upstream_failed), big_walk / 10 - 1);
    EXPECT_EQ(r.first_error, first);
}

// Updates quiesce the walk while workers release and claim vertices with
// plain stores: an update that lands must hold back exactly the vertices it
// names, however close to the walk's front it lands.
TEST(Walker, UpdatesRacingWithAFastWalkAreHonoured) {
    constexpr std::size_t racing_chain = 2000;
    std::size_t applied_total = 0;
    for (int round = 0; round < racing_rounds; ++round) {
        const bool reverse = round % 2;
        Graph g;
        std::vector<VertexId> chain;
        for (std::size_t i = 0; i < racing_chain; ++i) {
            chain.push_back(g.add_vertex(std::nullopt, nullptr));
            if (i) reverse ? g.connect(chain[i - 1], chain[i]) : g.connect(chain[i], chain[i - 1]);
        }
        const std::size_t capacity = racing_chain + 10000;
        std::atomic<int> clock{0};
        std::atomic<std::size_t> front{0};
        // The first vertex waits until one update has surely landed.
        std::atomic<bool> open{false};
        std::vector<std::atomic<int>> start(capacity + 1), end(capacity + 1), runs(capacity + 1);
        Body body = [&](Walk &, VertexId v) {
            while (v == chain[0] && !open.load()) std::this_thread::yield();
            start[v] = ++clock;
            ++runs[v];
            if (v <= racing_chain) front.store(v, std::memory_order_relaxed);
            // Long enough for updates to land near the front, short enough
            // that workers spend most of their time releasing and claiming.
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(10);
            while (std::chrono::steady_clock::now() < until) {
            }
            end[v] = ++clock;
            return Outcome::ok;
        };
        WalkOptions o;
        o.threads = 2;
        o.reverse = reverse;
        o.timestamps = false;
        auto w = Walk::start(g, Visitor{call_body, &body}, o, nullptr);
        std::mt19937_64 rng(99 + round);
        std::size_t applied = 0;
        for (std::size_t k = 0; k < 10000 && !w->finished(); ++k) {
            // Just ahead of the walk: some land before it gets there, some after.
            std::size_t at = front.load(std::memory_order_relaxed) + rng() % 1000;
            if (at == 0 || at > racing_chain) continue;
            WalkUpdate u;
            VertexId x = u.add_vertex(std::nullopt, nullptr, false);
            // The chain vertex waits for the new one (dependency order
            // depends on the direction).
            reverse ? u.connects.emplace_back(x, chain[at - 1]) : u.connects.emplace_back(chain[at - 1], x);
            try {
                w->apply(u);
                ++applied;
            } catch (const Error &e) {
                // Too late: the vertex started, or the walk finished.
                ASSERT_TRUE(open) << e.what();
                ASSERT_EQ(e.code(), Errc::state) << e.what();
            }
            open = true;
        }
        w->wait();
        WalkReport r = w->report();
        applied_total += applied;
        EXPECT_EQ(r.size(), racing_chain + applied);
        EXPECT_EQ(r.total(VertexStatus::ok), racing_chain + applied);
        for (VertexId v : g.vertices()) ASSERT_EQ(runs[v].load(), 1) << v;
        for (auto [from, to] : g.edges()) {
            VertexId first = reverse ? from : to, then = reverse ? to : from;
            ASSERT_GT(start[then].load(), end[first].load()) << first << " -> " << then;
        }
    }
    EXPECT_GE(applied_total, static_cast<std::size_t>(racing_rounds));
    RecordProperty("applied", static_cast<int>(applied_total));
}

// A walk of an unchanged graph reuses the arrays of the walk before it; no
// state of one walk may leak into the next.
TEST(Walker, RepeatedWalksOfOneGraphStartFresh) {
    std::mt19937_64 rng(5);
    Graph g;
    std::vector<VertexId> ids = random_dag(g, rng, 300, 0.02);
    for (int round = 0; round < 30; ++round) {
        if (round % 7 == 6) {
            // A mutation drops the cached snapshot and the arrays with it.
            VertexId v = g.add_vertex(std::nullopt, nullptr);
            g.connect(v, ids[rng() % ids.size()]);
            ids.push_back(v);
        }
        std::vector<char> fails(g.index_bound() + 1);
        for (VertexId v : g.vertices()) fails[v] = rng() % 50 == 0;
        std::vector<std::atomic<int>> runs(g.index_bound() + 1);
        Body body = [&](Walk &, VertexId v) {
            ++runs[v];
            return fails[v] ? Outcome::failed : Outcome::ok;
        };
        WalkOptions o;
        o.threads = 2;
        o.timestamps = round % 2 == 0;
        WalkReport r = walk(g, body, o);
        ASSERT_EQ(r.size(), g.vertex_count());
        for (std::size_t i = 0; i < r.size(); ++i) {
            const VertexReport v = r[i];
            bool upstream = false;
            for (VertexId dep : g.dependencies(v.id)) {
                VertexStatus d = r.find(dep)->status;
                upstream |= d == VertexStatus::failed || d == VertexStatus::upstream_failed;
            }
            VertexStatus want = upstream ? VertexStatus::upstream_failed
                                         : fails[v.id] ? VertexStatus::failed : VertexStatus::ok;
            ASSERT_EQ(v.status, want) << "round " << round << " vertex " << v.id;
            ASSERT_EQ(runs[v.id].load(), upstream ? 0 : 1);
            if (o.timestamps && !upstream) { ASSERT_GE(v.end_ns, v.start_ns); }
            if (!o.timestamps) { ASSERT_EQ(v.start_ns, 0); }
        }
    }
}

// An empty sub-walk finishes on the worker that launched it, inside that
// worker's section, while another thread keeps quiescing the walk.
TEST(Walker, EmptyExpansionsFinishWhileUpdatesQuiesce) {
    Graph empty;
    for (int round = 0; round < 100; ++round) {
        Graph g;
        std::vector<VertexId> ids;
        for (int i = 0; i < 50; ++i) {
            ids.push_back(g.add_vertex(std::nullopt, nullptr));
            if (i) g.connect(ids[i], ids[i - 1]);
        }
        Body body = [&](Walk &w, VertexId v) {
            w.expand(v, empty, Visitor{call_body, nullptr}, nullptr);
            return Outcome::ok;
        };
        WalkOptions o;
        o.threads = 2;
        auto w = Walk::start(g, Visitor{call_body, &body}, o, nullptr);
        std::thread updater([&] {
            while (!w->finished()) {
                try {
                    w->apply(WalkUpdate{});
                } catch (const Error &e) {
                    ASSERT_EQ(e.code(), Errc::state) << e.what();
                }
            }
        });
        w->wait();
        updater.join();
        WalkReport r = w->report();
        ASSERT_EQ(r.total(VertexStatus::ok), ids.size()) << "round " << round;
    }
}

}  // namespace
}  // namespace dag
