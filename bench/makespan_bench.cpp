// Makespan of a heavy-tailed workload under each ready-vertex order (issue
// 17): random DAGs whose vertex durations follow a Pareto law, walked in
// pull mode on a simulated clock (P simulated workers, no sleeping), so the
// order libdag hands vertices out in is the only thing that differs between
// rows. Each makespan is divided by the lower bound max(weighted critical
// path, total work / P), which no order can beat.
//
// Public C API only. The graph: vertex i depends on up to `fan` vertices
// drawn from the `window` before it, so chains run long; names are a random
// permutation, so name order is an arbitrary one.
//
//   makespan_bench [vertices] [seeds] [pareto-alpha]

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dag/dag.h"

#include "api_check.hpp"

namespace {

struct Workload {
    dag_graph *graph = nullptr;
    std::vector<uint64_t> ids;                // by creation index
    std::vector<uint64_t> duration;           // by id
    std::vector<std::vector<uint64_t>> deps;  // by creation index: indices depended on
};

constexpr size_t fan = 3, window = 40;

Workload make_workload(size_t n, uint64_t seed, double alpha) {
    std::mt19937_64 rng(seed);
    Workload w;
    dag_error *err = nullptr;
    check(dag_new(&w.graph, &err), err, "dag_new");
    std::vector<size_t> names(n);
    std::iota(names.begin(), names.end(), size_t{0});
    std::shuffle(names.begin(), names.end(), rng);
    // Pareto with minimum 1 ms, in microseconds: alpha 1.5 has a mean of 3
    // ms and a few vertices hundreds of times that.
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    w.duration.assign(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "v%07zu", names[i]);
        uint64_t id = 0;
        check(dag_add_vertex(w.graph, name, nullptr, &id, &err), err, "dag_add_vertex");
        w.ids.push_back(id);
        if (id >= w.duration.size()) w.duration.resize(id + 1);
        w.duration[id] = static_cast<uint64_t>(std::llround(1000.0 / std::pow(1.0 - unit(rng), 1.0 / alpha)));
    }
    w.deps.resize(n);
    for (size_t i = 1; i < n; ++i) {
        const size_t lo = i > window ? i - window : 0;
        std::uniform_int_distribution<size_t> pick(lo, i - 1);
        const size_t k = std::uniform_int_distribution<size_t>(0, fan)(rng);
        for (size_t j = 0; j < k; ++j) {
            const size_t d = pick(rng);
            if (std::find(w.deps[i].begin(), w.deps[i].end(), d) != w.deps[i].end()) continue;
            w.deps[i].push_back(d);
            check(dag_connect(w.graph, w.ids[i], w.ids[d], &err), err, "dag_connect");
        }
    }
    return w;
}

// max(weighted critical path, total work / P), in microseconds.
double lower_bound(const Workload &w, size_t parallelism) {
    std::vector<uint64_t> finish(w.ids.size());
    uint64_t longest = 0, total = 0;
    for (size_t i = 0; i < w.ids.size(); ++i) {
        uint64_t start = 0;
        for (size_t d : w.deps[i]) start = std::max(start, finish[d]);
        finish[i] = start + w.duration[w.ids[i]];
        longest = std::max(longest, finish[i]);
        total += w.duration[w.ids[i]];
    }
    return std::max(static_cast<double>(longest), static_cast<double>(total) / static_cast<double>(parallelism));
}

// The walk in pull mode with `parallelism` simulated workers: every vertex
// handed out runs for its duration on the simulated clock; the earliest to
// end is completed, and whatever is ready then is handed out at that time.
uint64_t makespan(const Workload &w, size_t parallelism, dag_walk_priority priority, bool weighted) {
    dag_walk_options o;
    dag_error *err = nullptr;
    check(dag_walk_options_init(&o, sizeof o, &err), err, "dag_walk_options_init");
    o.parallelism = parallelism;
    o.priority = priority;
    std::vector<uint64_t> weights;
    if (weighted) {
        for (uint64_t id : w.ids) weights.push_back(w.duration[id]);
        o.weight_vertices = w.ids.data();
        o.weights = weights.data();
        o.weight_count = w.ids.size();
    }
    dag_walker *walk = nullptr;
    check(dag_walk_begin(w.graph, &o, &walk, &err), err, "dag_walk_begin");
    using Running = std::pair<uint64_t, std::pair<uint64_t, dag_walker *>>;  // end, vertex, walk
    std::priority_queue<Running, std::vector<Running>, std::greater<Running>> running;
    std::vector<uint64_t> vertices(parallelism);
    std::vector<dag_walker *> walks(parallelism);
    uint64_t now = 0;
    for (;;) {
        while (running.size() < parallelism) {
            size_t got = 0;
            const dag_status s = dag_walk_next_ready(walk, vertices.data(), walks.data(),
                                                     parallelism - running.size(), 0, &got, &err);
            if (s == DAG_E_TIMEOUT) break;
            check(s, err, "dag_walk_next_ready");
            if (got == 0) break;  // ended
            for (size_t i = 0; i < got; ++i)
                running.push({now + w.duration[vertices[i]], {vertices[i], walks[i]}});
        }
        if (running.empty()) break;
        now = running.top().first;
        while (!running.empty() && running.top().first == now) {
            const auto [vertex, owner] = running.top().second;
            running.pop();
            check(dag_walk_complete(owner, vertex, DAG_WALK_OK, nullptr, &err), err, "dag_walk_complete");
        }
    }
    dag_walk_report *report = nullptr;
    check(dag_walk_wait(walk, &report, &err), err, "dag_walk_wait");
    if (dag_walk_report_count(report, DAG_VERTEX_OK) != w.ids.size()) {
        std::fprintf(stderr, "not every vertex ran\n");
        std::exit(1);
    }
    dag_walk_report_free(report);
    dag_walk_free(walk);
    return now;
}

}  // namespace

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
    const unsigned seeds = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 5;
    const double alpha = argc > 3 ? std::strtod(argv[3], nullptr) : 1.5;
    if (n < 2 || seeds == 0 || !(alpha > 1.0)) {
        std::fprintf(stderr, "usage: makespan_bench [vertices >= 2] [seeds >= 1] [pareto-alpha > 1]\n");
        return 2;
    }
    struct Order {
        const char *name;
        dag_walk_priority priority;
        bool weighted;
    };
    const Order orders[] = {{"none", DAG_PRIORITY_NONE, false},
                            {"name", DAG_PRIORITY_NAME, false},
                            {"critical path (vertices)", DAG_PRIORITY_CRITICAL_PATH, false},
                            {"critical path (weighted)", DAG_PRIORITY_CRITICAL_PATH, true}};
    std::printf("%zu vertices, Pareto alpha %.2f, %u seeds; makespan / lower bound, mean (worst)\n", n, alpha,
                seeds);
    std::printf("| P | lower bound, s (mean) |");
    for (const Order &order : orders) std::printf(" %s |", order.name);
    std::printf("\n|---|---|---|---|---|---|\n");
    for (size_t parallelism : {2, 4, 8, 10}) {
        std::vector<double> sum(std::size(orders), 0.0), worst(std::size(orders), 0.0);
        double bound_sum = 0;
        for (unsigned seed = 1; seed <= seeds; ++seed) {
            Workload w = make_workload(n, seed, alpha);
            const double bound = lower_bound(w, parallelism);
            bound_sum += bound;
            for (size_t k = 0; k < std::size(orders); ++k) {
                const double ratio =
                    static_cast<double>(makespan(w, parallelism, orders[k].priority, orders[k].weighted)) / bound;
                sum[k] += ratio;
                worst[k] = std::max(worst[k], ratio);
            }
            dag_free(w.graph);
        }
        std::printf("| %zu | %.2f |", parallelism, bound_sum / seeds / 1e6);
        for (size_t k = 0; k < std::size(orders); ++k) std::printf(" %.3f (%.3f) |", sum[k] / seeds, worst[k]);
        std::printf("\n");
    }
    return 0;
}
