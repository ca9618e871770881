// Priorities: at parallelism 1, the order in which vertices start equals a
// reference list scheduler on random graphs: among the ready vertices, the
// longest remaining path (weighted or not) first, ties by name then id; or
// by name then id alone. Callback and pull walks alike (run_walk).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <map>
#include <optional>
#include <random>

#include "walk_test_support.hpp"

namespace {

struct RandomGraph {
    GraphPtr g = new_graph();
    std::vector<uint64_t> ids;
    std::map<uint64_t, std::vector<uint64_t>> deps, dependents;
    std::map<uint64_t, std::optional<std::string>> names;
};

// n vertices, each depending on earlier ones with probability p; a third
// unnamed, and names drawn from a small set so that ties between names are
// common too (names are unique in a graph: a suffix tells them apart).
RandomGraph random_graph(std::mt19937 &rng, int n, double p) {
    RandomGraph r;
    std::bernoulli_distribution edge(p), unnamed(1.0 / 3);
    std::uniform_int_distribution<int> letter(0, 3);
    for (int i = 0; i < n; ++i) {
        std::optional<std::string> name;
        if (!unnamed(rng)) name = std::string(1, static_cast<char>('a' + letter(rng))) + std::to_string(i);
        uint64_t id = 0;
        EXPECT_EQ(dag_add_vertex(r.g.get(), name ? name->c_str() : nullptr, nullptr, &id, nullptr), DAG_OK);
        r.names[id] = name;
        for (uint64_t earlier : r.ids)
            if (edge(rng)) {
                EXPECT_EQ(dag_connect(r.g.get(), id, earlier, nullptr), DAG_OK);
                r.deps[id].push_back(earlier);
                r.dependents[earlier].push_back(id);
            }
        r.ids.push_back(id);
    }
    return r;
}

// The reference: a list scheduler with one slot, written from the header's
// description and nothing of the library's.
std::vector<uint64_t> reference_order(const RandomGraph &r, dag_walk_priority priority, bool reverse,
                                      const std::map<uint64_t, uint64_t> &weights) {
    const auto &waits_for = reverse ? r.dependents : r.deps;
    const auto &waiters = reverse ? r.deps : r.dependents;
    std::map<uint64_t, uint64_t> path;
    std::function<uint64_t(uint64_t)> longest = [&](uint64_t v) -> uint64_t {
        if (auto it = path.find(v); it != path.end()) return it->second;
        uint64_t best = 0;
        if (auto it = waiters.find(v); it != waiters.end())
            for (uint64_t w : it->second) best = std::max(best, longest(w));
        auto weight = weights.find(v);
        return path[v] = best + (weight == weights.end() ? 1 : weight->second);
    };
    const auto before = [&](uint64_t a, uint64_t b) {
        if (priority == DAG_PRIORITY_CRITICAL_PATH && longest(a) != longest(b)) return longest(a) > longest(b);
        const auto &na = r.names.at(a), &nb = r.names.at(b);
        if (na.has_value() != nb.has_value()) return na.has_value();
        if (na && *na != *nb) return *na < *nb;
        return a < b;
    };
    std::map<uint64_t, size_t> left;
    std::vector<uint64_t> ready, order;
    for (uint64_t v : r.ids) {
        auto it = waits_for.find(v);
        left[v] = it == waits_for.end() ? 0 : it->second.size();
        if (left[v] == 0) ready.push_back(v);
    }
    while (!ready.empty()) {
        auto best = std::min_element(ready.begin(), ready.end(), before);
        const uint64_t v = *best;
        ready.erase(best);
        order.push_back(v);
        if (auto it = waiters.find(v); it != waiters.end())
            for (uint64_t w : it->second)
                if (--left[w] == 0) ready.push_back(w);
    }
    return order;
}

// One thread; the weights stay owned by the caller.
dag_walk_options ranked_options(size_t parallelism, dag_walk_priority priority, bool reverse,
                                const std::vector<uint64_t> &weight_ids, const std::vector<uint64_t> &weight_values) {
    dag_walk_options o = options(parallelism, 1);
    o.priority = priority;
    o.reverse = reverse;
    o.weight_vertices = weight_ids.data();
    o.weights = weight_values.data();
    o.weight_count = weight_ids.size();
    return o;
}

void expect_reference_order(dag_walk_priority priority, bool reverse, bool weighted, size_t parallelism = 1) {
    std::mt19937 rng(1234 + priority * 10 + reverse * 2 + weighted);
    for (int round = 0; round < 40; ++round) {
        std::uniform_int_distribution<int> size(1, 60);
        std::uniform_real_distribution<double> density(0.0, 0.3);
        RandomGraph r = random_graph(rng, size(rng), density(rng));
        std::map<uint64_t, uint64_t> weights;
        std::vector<uint64_t> weight_ids, weight_values;
        if (weighted) {
            // Heavy-tailed, as durations are: mostly small, a few large.
            std::lognormal_distribution<double> duration(1.0, 1.5);
            for (uint64_t v : r.ids)
                if (rng() % 4 != 0) {
                    weights[v] = static_cast<uint64_t>(duration(rng));
                    weight_ids.push_back(v);
                    weight_values.push_back(weights[v]);
                }
        }
        Recorder rec;
        const dag_walk_options o = ranked_options(parallelism, priority, reverse, weight_ids, weight_values);
        ReportPtr report;
        if (parallelism == 1) {
            ASSERT_EQ(run_walk(r.g.get(), rec, o, report), DAG_OK);
        } else {
            // A pull walk's slots are its pullers, which race: one thread
            // is a callback walk's notion.
            dag_walk_report *out = nullptr;
            ASSERT_EQ(dag_walk(r.g.get(), record_cb, &rec, &o, &out, nullptr), DAG_OK);
            report.reset(out);
        }
        ASSERT_EQ(rec.ran(), reference_order(r, priority, reverse, weights)) << "round " << round;
    }
}

TEST(WalkPriority, CriticalPathOrderMatchesTheReference) { expect_reference_order(DAG_PRIORITY_CRITICAL_PATH, false, false); }

TEST(WalkPriority, WeightedCriticalPathOrderMatchesTheReference) {
    expect_reference_order(DAG_PRIORITY_CRITICAL_PATH, false, true);
}

TEST(WalkPriority, ReverseWalksRankByWhatWaitsInThatDirection) {
    expect_reference_order(DAG_PRIORITY_CRITICAL_PATH, true, true);
}

TEST(WalkPriority, NameOrderMatchesTheReference) { expect_reference_order(DAG_PRIORITY_NAME, false, false); }

// One thread with several slots is still one worker choosing in turn.
TEST(WalkPriority, OneThreadWithSeveralSlotsKeepsTheOrder) {
    expect_reference_order(DAG_PRIORITY_CRITICAL_PATH, false, false, 4);
    expect_reference_order(DAG_PRIORITY_NAME, true, false, 4);
}

// One slot, one thread, and every third vertex finished later from another
// thread: while it is pending nothing else starts, and what it and the
// vertices before it released (the worker kept those) waits its turn with
// what the completing thread releases. The order is still the reference's.
TEST(WalkPriority, VerticesCompletedFromAnotherThreadKeepTheOrder) {
    std::mt19937 rng(4321);
    for (dag_walk_priority priority : {DAG_PRIORITY_CRITICAL_PATH, DAG_PRIORITY_NAME})
        for (int round = 0; round < 12; ++round) {
            RandomGraph r = random_graph(rng, 50, 0.08);
            std::mutex mu;
            std::condition_variable cv;
            std::vector<std::pair<dag_walker *, uint64_t>> to_complete;
            bool done = false;
            std::thread completer([&] {
                std::unique_lock<std::mutex> lk(mu);
                for (;;) {
                    cv.wait(lk, [&] { return done || !to_complete.empty(); });
                    if (to_complete.empty()) return;
                    const auto [w, v] = to_complete.back();
                    to_complete.pop_back();
                    lk.unlock();
                    EXPECT_EQ(dag_walk_complete(w, v, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
                    lk.lock();
                }
            });
            Recorder rec;
            int calls = 0;
            rec.body = [&](dag_walker *w, uint64_t v, const char **) {
                if (++calls % 3 != 0) return DAG_WALK_OK;
                std::lock_guard<std::mutex> lk(mu);
                to_complete.emplace_back(w, v);
                cv.notify_one();
                return DAG_WALK_PENDING;
            };
            const std::vector<uint64_t> none;
            const dag_walk_options o = ranked_options(1, priority, false, none, none);
            dag_walk_report *out = nullptr;
            const dag_status st = dag_walk(r.g.get(), record_cb, &rec, &o, &out, nullptr);
            {
                std::lock_guard<std::mutex> lk(mu);
                done = true;
            }
            cv.notify_one();
            completer.join();
            ReportPtr report(out);
            ASSERT_EQ(st, DAG_OK);
            EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), r.ids.size());
            ASSERT_EQ(rec.ran(), reference_order(r, priority, false, {})) << "round " << round;
        }
}

// A walk keeps its ranks for the next walk of the unchanged graph. Walked
// again and again, with renames (which keep the graph's snapshot), other
// priorities, directions and weights in between, each walk still starts
// its vertices in the order the current names give.
TEST(WalkPriority, RepeatedWalksFollowRenamesBetweenThem) {
    std::mt19937 rng(77);
    for (int round = 0; round < 6; ++round) {
        RandomGraph r = random_graph(rng, 40, 0.12);
        const dag_walk_priority priorities[] = {DAG_PRIORITY_NONE, DAG_PRIORITY_CRITICAL_PATH, DAG_PRIORITY_NAME};
        for (int step = 0; step < 30; ++step) {
            if (rng() % 3 == 0) {
                const uint64_t v = r.ids[rng() % r.ids.size()];
                std::optional<std::string> name;
                if (rng() % 4 != 0) name = std::string(1, static_cast<char>('a' + rng() % 4)) + "r" + std::to_string(step);
                ASSERT_EQ(dag_set_vertex_name(r.g.get(), v, name ? name->c_str() : nullptr, nullptr), DAG_OK);
                r.names[v] = name;
                continue;
            }
            const dag_walk_priority priority = priorities[rng() % 3];
            const bool reverse = rng() % 4 == 0, weighted = rng() % 5 == 0;
            std::map<uint64_t, uint64_t> weights;
            std::vector<uint64_t> weight_ids, weight_values;
            if (weighted)
                for (uint64_t v : r.ids)
                    if (rng() % 2 == 0) {
                        weights[v] = 1 + rng() % 4;
                        weight_ids.push_back(v);
                        weight_values.push_back(weights[v]);
                    }
            Recorder rec;
            const dag_walk_options o = ranked_options(1, priority, reverse, weight_ids, weight_values);
            ReportPtr report;
            ASSERT_EQ(run_walk(r.g.get(), rec, o, report), DAG_OK);
            if (priority != DAG_PRIORITY_NONE)
                ASSERT_EQ(rec.ran(), reference_order(r, priority, reverse, weights))
                    << "round " << round << ", step " << step;
            else
                ASSERT_EQ(rec.ran().size(), r.ids.size());
        }
    }
}

// A ranked walk lays its vertices out by rank, not by id; its report still
// lists them in ascending id order, each with its own status, message,
// attempts and times, on graphs whose ids have gaps (removed vertices),
// walked again with the kept layout, after a rename, and with a vertex an
// update added, at one slot and at several, forward and in reverse, with
// always-run vertices and pools.
TEST(WalkPriority, ARankedWalkReportsEachVertexUnderItsOwnId) {
    std::mt19937 rng(4242);
    for (int round = 0; round < 8; ++round) {
        RandomGraph r = random_graph(rng, 80, 0.06);
        std::vector<uint64_t> live;
        for (uint64_t v : r.ids) {
            if (rng() % 5 == 0) {
                ASSERT_EQ(dag_remove_vertex(r.g.get(), v, nullptr), DAG_OK);
                continue;
            }
            live.push_back(v);
        }
        const uint64_t renamed = live[rng() % live.size()];
        // Walks 1 and 2 walk the same graph (2 takes over 1's layout); 0
        // and 3 add a vertex as they go, 3 after a rename.
        for (int walk = 0; walk < 4; ++walk) {
            const bool adds = walk == 0 || walk == 3;
            if (walk == 3)
                ASSERT_EQ(dag_set_vertex_name(r.g.get(), renamed, ("renamed" + std::to_string(round)).c_str(), nullptr),
                          DAG_OK);
            // Vertices whose id is a multiple of 5 fail with a message of
            // their own; multiples of 3 fail their first attempt only.
            std::mutex mu;
            std::map<uint64_t, int> attempts;
            uint64_t added = 0;
            std::atomic<bool> claimed{false};  // the first callback adds a vertex
            Recorder rec;
            rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
                int attempt;
                {
                    std::lock_guard<std::mutex> lk(mu);
                    attempt = ++attempts[v];
                }
                if (adds && !claimed.exchange(true)) {
                    auto u = new_update();
                    const std::string name = "added" + std::to_string(walk);
                    EXPECT_EQ(dag_walk_update_add_vertex(u.get(), name.c_str(), nullptr, 0, nullptr, nullptr), DAG_OK);
                    dag_ids *real = nullptr;
                    EXPECT_EQ(dag_walk_apply(w, u.get(), &real, nullptr), DAG_OK);
                    const std::vector<uint64_t> got = take_ids(real);
                    EXPECT_EQ(got.size(), 1u);
                    std::lock_guard<std::mutex> lk(mu);
                    if (!got.empty()) added = got[0];
                }
                thread_local std::string text;
                if (v % 5 == 0 || (v % 3 == 0 && attempt == 1)) {
                    text = "m" + std::to_string(v) + "." + std::to_string(attempt);
                    *msg = text.c_str();
                    return DAG_WALK_FAILED;
                }
                return DAG_WALK_OK;
            };
            dag_walk_options o = options(walk == 2 ? 4 : 1, walk == 2 ? 4 : 1);
            o.priority = round % 2 ? DAG_PRIORITY_NAME : DAG_PRIORITY_CRITICAL_PATH;
            o.reverse = round % 4 >= 2;
            o.timestamps = 1;
            o.retries = 1;
            // Every other vertex runs even after a failure; vertices need
            // one pool, or two.
            std::vector<uint64_t> always, need_ids;
            std::vector<const char *> need_names;
            const char *pool_names[] = {"p", "q"};
            const size_t capacities[] = {2, 1};
            for (size_t k = 0; k < live.size(); ++k) {
                if (k % 2) always.push_back(live[k]);
                if (k % 3 == 0) need_ids.push_back(live[k]), need_names.push_back("p");
                if (k % 4 == 0) need_ids.push_back(live[k]), need_names.push_back("q");
            }
            o.always_run = always.data();
            o.always_run_count = always.size();
            o.pool_names = pool_names;
            o.pool_capacities = capacities;
            o.pool_count = 2;
            o.pool_need_vertices = need_ids.data();
            o.pool_need_names = need_names.data();
            o.pool_need_count = need_ids.size();
            ReportPtr report;
            ASSERT_EQ(run_walk(r.g.get(), rec, o, report), DAG_E_WALK_FAILED) << "round " << round << ", walk " << walk;
            ASSERT_EQ(added != 0, adds);
            // The added vertex stays in the graph: the next walk has it frozen.
            if (adds) live.push_back(added);
            const std::vector<uint64_t> expected_ids = live;
            dag_ids *ids = nullptr;
            ASSERT_EQ(dag_walk_report_vertices(report.get(), &ids, nullptr), DAG_OK);
            ASSERT_EQ(take_ids(ids), expected_ids);
            std::vector<dag_vertex_outcome> outcomes(expected_ids.size());
            size_t written = 0;
            ASSERT_EQ(dag_walk_report_read(report.get(), 0, outcomes.data(), outcomes.size(), sizeof(dag_vertex_outcome),
                                           &written, nullptr),
                      DAG_OK);
            ASSERT_EQ(written, expected_ids.size());
            for (size_t k = 0; k < expected_ids.size(); ++k) {
                const uint64_t v = expected_ids[k];
                const dag_vertex_outcome &out = outcomes[k];
                EXPECT_EQ(out.vertex, v);
                size_t count = 0;
                ASSERT_EQ(dag_walk_report_attempts(report.get(), v, &count, nullptr), DAG_OK);
                const int ran = attempts.count(v) ? attempts.at(v) : 0;
                EXPECT_EQ(count, static_cast<size_t>(ran)) << v;
                EXPECT_EQ(out.ran != 0, ran > 0) << v;
                if (ran == 0) {
                    EXPECT_EQ(out.status, DAG_VERTEX_UPSTREAM_FAILED) << v;
                    continue;
                }
                EXPECT_LE(out.start_ns, out.end_ns) << v;
                EXPECT_GT(out.end_ns, 0) << v;
                if (v % 5 == 0) {
                    EXPECT_EQ(out.status, DAG_VERTEX_FAILED) << v;
                    EXPECT_EQ(std::string(out.message), "m" + std::to_string(v) + ".2") << v;
                    const char *first = nullptr;
                    ASSERT_EQ(dag_walk_report_attempt_message(report.get(), v, 0, &first, nullptr), DAG_OK);
                    EXPECT_EQ(std::string(first), "m" + std::to_string(v) + ".1") << v;
                } else {
                    EXPECT_EQ(out.status, DAG_VERTEX_OK) << v;
                    EXPECT_EQ(count, v % 3 == 0 ? 2u : 1u) << v;
                }
            }
        }
    }
}

// With several slots the order is the workers' race, but every vertex
// still starts once, after everything it waits for has finished: a worker
// that runs a vertex it released itself, or takes the queue's best as it
// hands back what it released, loses nothing and runs nothing early.
TEST(WalkPriority, ParallelRankedWalksRunEachVertexOnceAfterItsDependencies) {
    std::mt19937 rng(99);
    for (dag_walk_priority priority : {DAG_PRIORITY_CRITICAL_PATH, DAG_PRIORITY_NAME})
        for (int round = 0; round < 4; ++round) {
            RandomGraph r = random_graph(rng, 400, 0.01 * (round + 1));
            std::map<uint64_t, std::atomic<int>> finished;
            for (uint64_t v : r.ids) finished[v] = 0;
            std::atomic<int> early{0};
            Recorder rec;
            rec.body = [&](dag_walker *, uint64_t v, const char **) {
                if (auto it = r.deps.find(v); it != r.deps.end())
                    for (uint64_t d : it->second)
                        if (finished.at(d).load() != 1) ++early;
                finished.at(v).fetch_add(1);
                return DAG_WALK_OK;
            };
            dag_walk_options o = options(4, 4);
            o.priority = priority;
            ReportPtr report;
            ASSERT_EQ(run_walk(r.g.get(), rec, o, report), DAG_OK);
            EXPECT_EQ(early.load(), 0);
            std::vector<uint64_t> ran = rec.ran();
            std::sort(ran.begin(), ran.end());
            EXPECT_EQ(ran, r.ids);
            EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), r.ids.size());
        }
}

// A graph keeps what a walk grew for the next walk of it: the workers'
// lists, the ready queue's ring, the ranked slots. Walks cancelled with
// vertices queued, by other priorities, and with other thread counts leave
// them behind; each walk after them still runs every vertex once, and at
// parallelism 1 in the reference order. A root that every other vertex
// waits for releases them all at once, as a fan-out does.
TEST(WalkPriority, WalksAfterOthersOfTheSameGraphKeepTheOrder) {
    std::mt19937 rng(777);
    RandomGraph r = random_graph(rng, 300, 0.02);
    uint64_t root = 0;
    ASSERT_EQ(dag_add_vertex(r.g.get(), "root", nullptr, &root, nullptr), DAG_OK);
    for (uint64_t v : r.ids)
        if (!r.deps.count(v)) {
            ASSERT_EQ(dag_connect(r.g.get(), v, root, nullptr), DAG_OK);
            r.deps[v].push_back(root);
            r.dependents[root].push_back(v);
        }
    r.ids.push_back(root);
    r.names[root] = "root";
    const std::map<uint64_t, uint64_t> unweighted;
    const auto every_vertex_once = [&](dag_walk_priority priority, size_t threads) {
        Recorder rec;
        dag_walk_options o = options(threads, threads);
        o.priority = priority;
        ReportPtr report;
        ASSERT_EQ(run_walk(r.g.get(), rec, o, report), DAG_OK);
        std::vector<uint64_t> ran = rec.ran();
        std::sort(ran.begin(), ran.end());
        EXPECT_EQ(ran, r.ids);
    };
    // Several slots on one thread, as in expect_reference_order: a callback
    // walk (a pull walk's slots are its racing pullers).
    const auto reference = [&](dag_walk_priority priority, size_t slots) {
        Recorder rec;
        const dag_walk_options o = ranked_options(slots, priority, false, {}, {});
        ReportPtr report;
        if (slots == 1) {
            ASSERT_EQ(run_walk(r.g.get(), rec, o, report), DAG_OK);
        } else {
            dag_walk_report *out = nullptr;
            ASSERT_EQ(dag_walk(r.g.get(), record_cb, &rec, &o, &out, nullptr), DAG_OK);
            report.reset(out);
        }
        EXPECT_EQ(rec.ran(), reference_order(r, priority, false, unweighted));
    };
    const auto cancelled_after = [&](dag_walk_priority priority, size_t threads, int calls) {
        std::atomic<int> seen{0};
        dag_walk_options o = options(threads, threads);
        o.priority = priority;
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t, const char **) {
            if (++seen == calls) EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
            return DAG_WALK_OK;
        };
        dag_walk_report *out = nullptr;
        EXPECT_EQ(dag_walk(r.g.get(), record_cb, &rec, &o, &out, nullptr), DAG_E_CANCELLED);
        ReportPtr report(out);
        EXPECT_GT(dag_walk_report_count(report.get(), DAG_VERTEX_CANCELLED), 0u);
    };
    cancelled_after(DAG_PRIORITY_CRITICAL_PATH, 4, 1);
    reference(DAG_PRIORITY_CRITICAL_PATH, 1);
    every_vertex_once(DAG_PRIORITY_NAME, 4);
    reference(DAG_PRIORITY_CRITICAL_PATH, 4);
    cancelled_after(DAG_PRIORITY_NONE, 4, 20);
    every_vertex_once(DAG_PRIORITY_CRITICAL_PATH, 4);
    cancelled_after(DAG_PRIORITY_CRITICAL_PATH, 1, 40);
    reference(DAG_PRIORITY_NAME, 1);
    every_vertex_once(DAG_PRIORITY_NONE, 2);
    reference(DAG_PRIORITY_CRITICAL_PATH, 1);
}

// The long branch starts first although its head's name sorts last; once
// z3 and a have equal paths left, the name decides. By name, a first.
TEST(WalkPriority, TheLongestChainStartsFirst) {
    auto g = new_graph();
    const uint64_t z1 = add(g.get(), "z1"), z2 = add(g.get(), "z2"), z3 = add(g.get(), "z3");
    const uint64_t a = add(g.get(), "a");
    ASSERT_EQ(dag_connect(g.get(), z2, z1, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), z3, z2, nullptr), DAG_OK);
    for (auto [priority, expected] : {std::pair{DAG_PRIORITY_CRITICAL_PATH, std::vector<uint64_t>{z1, z2, a, z3}},
                                      std::pair{DAG_PRIORITY_NAME, std::vector<uint64_t>{a, z1, z2, z3}}}) {
        Recorder rec;
        dag_walk_options o = options(1, 1);
        o.priority = priority;
        ReportPtr report;
        ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
        EXPECT_EQ(rec.ran(), expected);
    }
}

// Vertices an update adds have no rank: they start after every ranked ready
// vertex. A queued vertex the update makes wait is passed over, then starts
// once, after what it now waits for.
TEST(WalkPriority, AnUpdateHoldsBackAQueuedVertexAndAddsUnrankedOnes) {
    auto g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d");
    std::vector<uint64_t> added;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != a) return DAG_WALK_OK;
        auto u = new_update();
        uint64_t x = 0;
        EXPECT_EQ(dag_walk_update_add_vertex(u.get(), "x", nullptr, 0, &x, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u.get(), c, x, nullptr), DAG_OK);  // c, queued, now waits for x
        dag_ids *ids = nullptr;
        EXPECT_EQ(dag_walk_apply(w, u.get(), &ids, nullptr), DAG_OK);
        added = take_ids(ids);
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(1, 1);
    o.priority = DAG_PRIORITY_NAME;
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, b, d, added[0], c}));
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 5u);
}

// An observer told that a finished at one worker may still make a, ready
// by then, wait for a vertex it adds: a is not started until its turn.
TEST(WalkPriority, AnObserverMayHoldBackTheDependentAFinishedVertexReleased) {
    struct Seen {
        uint64_t a = 0, b = 0, c = 0;
        dag_status applied = DAG_E_INTERNAL;
        std::vector<uint64_t> added;
    };
    for (dag_walk_priority priority : {DAG_PRIORITY_NAME, DAG_PRIORITY_CRITICAL_PATH}) {
        // The update stays in the graph: a new one for each walk.
        auto g = new_graph();
        Seen seen;
        seen.a = add(g.get(), "a");
        seen.b = add(g.get(), "b");
        seen.c = add(g.get(), "c");
        ASSERT_EQ(dag_connect(g.get(), seen.c, seen.a, nullptr), DAG_OK);
        Recorder rec;
        dag_walk_options o = options(1, 1);
        o.priority = priority;
        o.observer = [](dag_walker *w, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                        void *data) {
            auto &s = *static_cast<Seen *>(data);
            if (e != DAG_WALK_EVENT_FINISHED || v != s.a) return;
            auto u = new_update();
            uint64_t x = 0;
            EXPECT_EQ(dag_walk_update_add_vertex(u.get(), "x", nullptr, 0, &x, nullptr), DAG_OK);
            EXPECT_EQ(dag_walk_update_connect(u.get(), s.c, x, nullptr), DAG_OK);
            dag_ids *ids = nullptr;
            s.applied = dag_walk_apply(w, u.get(), &ids, nullptr);
            s.added = take_ids(ids);
        };
        o.observer_data = &seen;
        dag_walk_report *out = nullptr;
        ASSERT_EQ(dag_walk(g.get(), record_cb, &rec, &o, &out, nullptr), DAG_OK);
        ReportPtr report(out);
        ASSERT_EQ(seen.applied, DAG_OK) << "priority " << priority;
        ASSERT_EQ(seen.added.size(), 1u);
        EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{seen.a, seen.b, seen.added[0], seen.c})) << "priority " << priority;
    }
}

TEST(WalkPriority, BadPrioritiesAndWeightsAreRefused) {
    auto g = new_graph();
    add(g.get(), "a");
    Recorder rec;
    ReportPtr report;
    dag_walk_options o = options(1, 1);
    const int bad = 7;
    std::memcpy(&o.priority, &bad, sizeof bad);
    EXPECT_EQ(run_walk(g.get(), rec, o, report), DAG_E_INVALID_ARGUMENT);
    o.priority = DAG_PRIORITY_CRITICAL_PATH;
    const uint64_t missing[] = {99}, weight[] = {5};
    o.weight_vertices = missing;
    o.weights = weight;
    o.weight_count = 1;
    EXPECT_EQ(run_walk(g.get(), rec, o, report), DAG_E_UNKNOWN_VERTEX);
    o.weight_vertices = nullptr;
    EXPECT_EQ(run_walk(g.get(), rec, o, report), DAG_E_NULL_ARGUMENT);
    EXPECT_TRUE(rec.ran().empty());
}

}  // namespace
