// Stress of pools, retries and priorities together (issue 17), through the
// public C API, meant to run under ThreadSanitizer (bench/README.md, "Pools,
// retries and priorities under stress"). Two walks of a random DAG of
// `vertices` vertices, each needing any of three pools, some failing once
// (retried) and a few always, in weighted critical-path order, while another
// thread applies updates (vertices added with a dependency, vertices
// removed). The second walk is cancelled by a third thread once a third of
// the vertices have run. Checked: no pool ever over its capacity (counted in
// the callbacks), every vertex in the report, a vertex that failed once and
// then succeeded ran exactly twice, the cancelled walk ends cancelled.
// Exit status 0 when every check holds.
//
//   schedule_stress [vertices] [threads]

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "dag/dag.h"

#include "api_check.hpp"

namespace {

constexpr size_t pool_count = 3;
const char *const pool_names[pool_count] = {"aws", "rds", "gcp"};
const size_t pool_capacities[pool_count] = {3, 2, 5};
// Vertices added by updates: room for them in the per-id arrays.
constexpr size_t max_updates = 2000;

bool fails_once(uint64_t v) { return v % 97 == 0; }
bool fails_always(uint64_t v) { return v % 100003 == 5; }

struct Stress {
    std::vector<uint8_t> needs;  // by id: bit p set when the vertex needs pool p
    std::unique_ptr<std::atomic<uint32_t>[]> attempts;
    std::atomic<int> in_pool[pool_count] = {};
    std::atomic<int> peak[pool_count] = {};
    std::atomic<size_t> ran{0};
    size_t cancel_after = 0;  // 0: no cancel
    std::mutex mutex;
    std::condition_variable reached;
    bool cancel_now = false;
};

dag_walk_result visit(dag_walker *, uint64_t v, const char **message, void *data) {
    Stress &s = *static_cast<Stress *>(data);
    const uint8_t needs = v < s.needs.size() ? s.needs[v] : 0;
    for (size_t p = 0; p < pool_count; ++p)
        if (needs & (1u << p)) {
            const int now = s.in_pool[p].fetch_add(1) + 1;
            int seen = s.peak[p].load();
            while (now > seen && !s.peak[p].compare_exchange_weak(seen, now)) {
            }
        }
    const uint32_t attempt = s.attempts[v].fetch_add(1) + 1;
    // Long enough for callbacks to overlap, so that a pool over its
    // capacity would show in the peaks.
    for (volatile int spin = 0; spin < 500; spin = spin + 1) {
    }
    for (size_t p = 0; p < pool_count; ++p)
        if (needs & (1u << p)) s.in_pool[p].fetch_sub(1);
    if (s.ran.fetch_add(1) + 1 == s.cancel_after) {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.cancel_now = true;
        s.reached.notify_all();
    }
    if (fails_always(v) || (fails_once(v) && attempt == 1)) {
        *message = "failed on purpose";
        return DAG_WALK_FAILED;
    }
    return DAG_WALK_OK;
}

struct Graph {
    dag_graph *g = nullptr;
    std::vector<uint64_t> ids;
    std::vector<uint64_t> need_vertices;
    std::vector<const char *> need_names;
    std::vector<uint64_t> weights;
};

Graph make_graph(size_t n, Stress &s) {
    std::mt19937_64 rng(17);
    Graph graph;
    dag_error *err = nullptr;
    check(dag_new(&graph.g, &err), err, "dag_new");
    graph.ids.resize(n);
    for (size_t i = 0; i < n; ++i) check(dag_add_vertex(graph.g, nullptr, nullptr, &graph.ids[i], &err), err, "add");
    for (size_t i = 1; i < n; ++i) {
        const size_t k = rng() % 3;
        for (size_t j = 0; j < k; ++j) {
            const size_t d = i - 1 - rng() % std::min<size_t>(i, 64);
            const dag_status st = dag_connect(graph.g, graph.ids[i], graph.ids[d], &err);
            check(st, err, "dag_connect");
        }
    }
    s.needs.assign(graph.ids.back() + 1 + 2 * max_updates, 0);
    for (uint64_t id : graph.ids) {
        const uint64_t r = rng() % 100;
        uint8_t mask = 0;
        if (r < 30) mask |= 1;
        if (r >= 20 && r < 40) mask |= 2;
        if (r >= 35 && r < 45) mask |= 4;
        s.needs[id] = mask;
        for (size_t p = 0; p < pool_count; ++p)
            if (mask & (1u << p)) {
                graph.need_vertices.push_back(id);
                graph.need_names.push_back(pool_names[p]);
            }
        graph.weights.push_back(1 + rng() % 1000);
    }
    return graph;
}

// Adds a vertex that depends on a random one, or removes a random one, until
// the walk has ended. Refusals a running walk may give are expected.
void update_until_done(dag_walker *walk, const Graph &graph, std::atomic<bool> &done, size_t &added,
                       size_t &removed) {
    std::mt19937_64 rng(71);
    dag_error *err = nullptr;
    for (size_t i = 0; i < max_updates && !done.load(); ++i) {
        dag_walk_update *u = nullptr;
        check(dag_walk_update_new(&u, &err), err, "dag_walk_update_new");
        const uint64_t target = graph.ids[rng() % graph.ids.size()];
        if (i % 2 == 0) {
            uint64_t added = 0;
            check(dag_walk_update_add_vertex(u, nullptr, nullptr, 0, &added, &err), err, "update_add_vertex");
            check(dag_walk_update_connect(u, added, target, &err), err, "update_connect");
        } else {
            check(dag_walk_update_remove_vertex(u, target, &err), err, "update_remove_vertex");
        }
        const dag_status st = dag_walk_apply(walk, u, nullptr, &err);
        if (st == DAG_OK) {
            ++(i % 2 == 0 ? added : removed);
        } else if (st == DAG_E_STATE || st == DAG_E_UNKNOWN_VERTEX) {
            dag_error_free(err);
            err = nullptr;
        } else {
            check(st, err, "dag_walk_apply");
        }
        dag_walk_update_free(u);
        std::this_thread::yield();
    }
}

// A walk of a fresh graph (updates change the graph they walk).
bool run(const char *label, size_t n, size_t threads, bool cancel) {
    Stress s;
    Graph graph = make_graph(n, s);
    const size_t start_vertices = dag_vertex_count(graph.g);
    s.attempts.reset(new std::atomic<uint32_t>[s.needs.size()]);
    for (size_t i = 0; i < s.needs.size(); ++i) s.attempts[i] = 0;
    s.cancel_after = cancel ? start_vertices / 3 : 0;

    dag_walk_options o;
    dag_error *err = nullptr;
    check(dag_walk_options_init(&o, sizeof o, &err), err, "dag_walk_options_init");
    o.parallelism = 8;
    o.threads = threads;
    o.pool_names = pool_names;
    o.pool_capacities = pool_capacities;
    o.pool_count = pool_count;
    o.pool_need_vertices = graph.need_vertices.data();
    o.pool_need_names = graph.need_names.data();
    o.pool_need_count = graph.need_vertices.size();
    o.retries = 2;
    o.retry_delay_ms = 1;
    o.retry_doubling = 1;
    o.priority = DAG_PRIORITY_CRITICAL_PATH;
    o.weight_vertices = graph.ids.data();
    o.weights = graph.weights.data();
    o.weight_count = graph.ids.size();
    dag_walker *walk = nullptr;
    check(dag_walk_start(graph.g, visit, &s, &o, &walk, &err), err, "dag_walk_start");

    std::atomic<bool> done{false};
    size_t added = 0, removed = 0;
    std::thread updater([&] { update_until_done(walk, graph, done, added, removed); });
    std::thread canceller;
    if (cancel)
        canceller = std::thread([&] {
            std::unique_lock<std::mutex> lock(s.mutex);
            s.reached.wait(lock, [&] { return s.cancel_now || done.load(); });
            lock.unlock();
            dag_walk_cancel(walk, nullptr);
        });
    dag_walk_report *report = nullptr;
    const dag_status status = dag_walk_wait(walk, &report, &err);
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        done = true;
        s.reached.notify_all();
    }
    updater.join();
    if (canceller.joinable()) canceller.join();
    if (err) dag_error_free(err);

    bool ok = true;
    for (size_t p = 0; p < pool_count; ++p)
        if (s.peak[p].load() > static_cast<int>(pool_capacities[p])) {
            std::printf("%s: pool %s peaked at %d, capacity %zu\n", label, pool_names[p], s.peak[p].load(),
                        pool_capacities[p]);
            ok = false;
        }
    const size_t final_vertices = dag_vertex_count(graph.g);
    size_t counted = 0;
    for (dag_vertex_status st : {DAG_VERTEX_OK, DAG_VERTEX_FAILED, DAG_VERTEX_UPSTREAM_FAILED, DAG_VERTEX_NOT_RUN,
                                 DAG_VERTEX_CANCELLED})
        counted += dag_walk_report_count(report, st);
    // A removed vertex stays in the report, as not run.
    const size_t not_run = dag_walk_report_count(report, DAG_VERTEX_NOT_RUN);
    if (counted != start_vertices + added || dag_walk_report_size(report) != counted ||
        final_vertices != start_vertices + added - removed || (!cancel && not_run != removed)) {
        std::printf("%s: the report counts %zu vertices (%zu not run), the graph has %zu after %zu added and %zu "
                    "removed\n",
                    label, counted, not_run, final_vertices, added, removed);
        ok = false;
    }
    size_t retried = 0;
    for (uint64_t id : graph.ids) {
        if (!fails_once(id) || fails_always(id)) continue;
        dag_vertex_status st;
        if (dag_walk_report_vertex(report, id, &st, nullptr, nullptr, nullptr, nullptr) != DAG_OK ||
            st != DAG_VERTEX_OK)
            continue;
        size_t attempts = 0;
        check(dag_walk_report_attempts(report, id, &attempts, &err), err, "dag_walk_report_attempts");
        if (attempts != 2 || s.attempts[id].load() != 2) {
            std::printf("%s: vertex %llu failed once and then succeeded in %zu attempts (%u calls)\n", label,
                        static_cast<unsigned long long>(id), attempts, s.attempts[id].load());
            ok = false;
            break;
        }
        ++retried;
    }
    if (cancel != (status == DAG_E_CANCELLED) || (!cancel && status != DAG_E_WALK_FAILED)) {
        std::printf("%s: the walk ended with %s\n", label, dag_status_string(status));
        ok = false;
    }
    std::printf("%s: %s; %zu vertices (%zu at start), %zu callbacks, %zu vertices added and %zu removed, "
                "%zu ok, %zu failed, %zu upstream failed, %zu cancelled, %zu retried and then ok; "
                "pool peaks %d/%zu %d/%zu %d/%zu\n",
                label, dag_status_string(status), final_vertices, start_vertices, s.ran.load(), added, removed,
                dag_walk_report_count(report, DAG_VERTEX_OK), dag_walk_report_count(report, DAG_VERTEX_FAILED),
                dag_walk_report_count(report, DAG_VERTEX_UPSTREAM_FAILED),
                dag_walk_report_count(report, DAG_VERTEX_CANCELLED), retried, s.peak[0].load(), pool_capacities[0],
                s.peak[1].load(), pool_capacities[1], s.peak[2].load(), pool_capacities[2]);
    dag_walk_report_free(report);
    dag_walk_free(walk);
    dag_free(graph.g);
    return ok;
}

}  // namespace

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const size_t threads = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4;
    if (n < 2 || threads == 0) {
        std::fprintf(stderr, "usage: schedule_stress [vertices >= 2] [threads >= 1]\n");
        return 2;
    }
    bool ok = run("full walk", n, threads, false);
    ok = run("cancelled walk", n, threads, true) && ok;
    std::printf("%s\n", ok ? "all checks hold" : "CHECKS FAILED");
    return ok ? 0 : 1;
}
