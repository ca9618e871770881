// What a walk costs where the user calls it: dag_walk through the public C
// API (include/dag/dag.h only), cold (first walk after the graph was built)
// and warm, with and without a report, with and without timestamps, next to
// a sequential Kahn pass (the floor) and Taskflow's executor.run().wait() on
// the same shape, when Taskflow's headers are there (DAG_BENCH_TASKFLOW).
// Each row: best time of the repetitions in ns per vertex, minor page faults
// and bytes of fresh memory per vertex (faults x 4 KiB / vertices), and the
// process's peak RSS growth over the row.
//
//   surface_walk_bench [shape=all] [repetitions=5] [threads=1] [pools|priority]
#include <dag/dag.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#if defined(DAG_BENCH_TASKFLOW)
#include <taskflow/taskflow.hpp>
#endif

namespace {

struct Shape {
    std::string name;
    std::size_t n = 0;
    std::vector<std::pair<std::size_t, std::size_t>> edges;  // (dependent, dependency), by index
};

Shape make_shape(const std::string &name) {
    Shape s;
    s.name = name;
    if (name == "chain") {
        s.n = 1000000;
        for (std::size_t i = 1; i < s.n; ++i) s.edges.emplace_back(i, i - 1);
    } else if (name == "tree") {
        s.n = (std::size_t{1} << 20) - 1;
        for (std::size_t i = 1; i < s.n; ++i) s.edges.emplace_back(i, (i - 1) / 2);
    } else if (name == "grid") {
        const std::size_t side = 1024;
        s.n = side * side;
        for (std::size_t r = 0; r < side; ++r)
            for (std::size_t c = 0; c < side; ++c) {
                if (c) s.edges.emplace_back(r * side + c, r * side + c - 1);
                if (r) s.edges.emplace_back(r * side + c, (r - 1) * side + c);
            }
    } else if (name == "fanout") {
        s.n = 1000000;
        for (std::size_t i = 1; i < s.n; ++i) s.edges.emplace_back(i, 0);
    } else {
        s.n = 1000000;
        std::mt19937_64 rng(42);
        for (std::size_t i = 1; i < s.n; ++i)
            for (int k = 0; k < 4; ++k) s.edges.emplace_back(i, std::uniform_int_distribution<std::size_t>(0, i - 1)(rng));
    }
    return s;
}

long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

long status_kb(const char *key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
    return 0;
}

// Resets VmHWM to the current RSS, so a row's peak is its own.
void reset_peak() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
}

struct Row {
    double ns_per_vertex = 0;
    double fresh_bytes_per_vertex = 0;
    long faults = 0;
    long peak_kb = 0;
};

// `run` once per repetition; the best time, and the faults and peak of the
// first (cold) or of the last (warm) run as `cold` says.
Row measure(std::size_t n, int reps, const std::function<void()> &run, bool cold_only = false) {
    Row row;
    double best = 1e300;
    for (int r = 0; r < (cold_only ? 1 : reps); ++r) {
        reset_peak();
        const long rss0 = status_kb("VmRSS:");
        const long f0 = minor_faults();
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const auto t1 = std::chrono::steady_clock::now();
        const long faults = minor_faults() - f0;
        best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
        row.faults = faults;
        row.peak_kb = status_kb("VmHWM:") - rss0;
    }
    row.ns_per_vertex = best / static_cast<double>(n);
    row.fresh_bytes_per_vertex = static_cast<double>(row.faults) * 4096.0 / static_cast<double>(n);
    return row;
}

void print(const std::string &shape, const char *what, const Row &r, double peer_ns) {
    std::printf("%-7s %-34s %8.1f ns/v %6.2fx  %8ld faults %6.1f B/v fresh  peak +%ld KiB\n", shape.c_str(), what,
                r.ns_per_vertex, peer_ns > 0 ? r.ns_per_vertex / peer_ns : 0.0, r.faults, r.fresh_bytes_per_vertex,
                r.peak_kb);
}

dag_walk_result empty(dag_walker *, uint64_t, const char **, void *) { return DAG_WALK_OK; }

void bench_shape(const std::string &name, int reps, std::size_t threads, bool pools, bool priority) {
    Shape s = make_shape(name);

    // The floor: one pass of Kahn's algorithm over CSR arrays built outside.
    std::vector<std::uint32_t> offsets(s.n + 1, 0), targets(s.edges.size()), indegree(s.n, 0);
    for (auto [from, to] : s.edges) ++offsets[to + 1], ++indegree[from];
    for (std::size_t i = 0; i < s.n; ++i) offsets[i + 1] += offsets[i];
    {
        std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
        for (auto [from, to] : s.edges) targets[fill[to]++] = static_cast<std::uint32_t>(from);
    }
    std::vector<std::uint32_t> count(s.n), queue(s.n);
    volatile std::uint64_t sink = 0;
    Row kahn = measure(s.n, reps, [&] {
        std::copy(indegree.begin(), indegree.end(), count.begin());
        std::size_t head = 0, tail = 0;
        for (std::uint32_t i = 0; i < s.n; ++i)
            if (!count[i]) queue[tail++] = i;
        while (head < tail) {
            const std::uint32_t v = queue[head++];
            sink = sink + v;
            for (std::uint32_t e = offsets[v]; e < offsets[v + 1]; ++e)
                if (--count[targets[e]] == 0) queue[tail++] = targets[e];
        }
    });

    double peer = 0;
#if defined(DAG_BENCH_TASKFLOW)
    tf::Executor executor(threads);
    tf::Taskflow flow;
    {
        std::vector<tf::Task> tasks;
        tasks.reserve(s.n);
        for (std::size_t i = 0; i < s.n; ++i) tasks.push_back(flow.emplace([] {}));
        for (auto [from, to] : s.edges) tasks[to].precede(tasks[from]);
    }
    Row taskflow = measure(s.n, reps, [&] { executor.run(flow).wait(); });
    peer = taskflow.ns_per_vertex;
    print(name, "taskflow run().wait()", taskflow, peer);
#endif
    print(name, "Kahn pass (floor)", kahn, peer);

    dag_graph *g = nullptr;
    dag_new(&g, nullptr);
    std::vector<uint64_t> ids(s.n);
    for (std::size_t i = 0; i < s.n; ++i) dag_add_vertex(g, nullptr, nullptr, &ids[i], nullptr);
    std::vector<uint64_t> pairs;
    pairs.reserve(2 * s.edges.size());
    for (auto [from, to] : s.edges) pairs.push_back(ids[from]), pairs.push_back(ids[to]);
    dag_connect_many(g, pairs.data(), s.edges.size(), nullptr);

    dag_walk_options o = DAG_WALK_OPTIONS_INIT;
    o.parallelism = threads;
    o.threads = threads;
    auto walk = [&](bool report) {
        return [&, report] {
            dag_walk_report *r = nullptr;
            if (dag_walk(g, empty, nullptr, &o, report ? &r : nullptr, nullptr) != DAG_OK) std::abort();
            dag_walk_report_free(r);
        };
    };
    print(name, "dag_walk, report, cold", measure(s.n, reps, walk(true), true), peer);
    print(name, "dag_walk, report, warm", measure(s.n, reps, walk(true)), peer);
    print(name, "dag_walk, no report, warm", measure(s.n, reps, walk(false)), peer);
    o.timestamps = 0;
    print(name, "dag_walk, no timestamps, report", measure(s.n, reps, walk(true)), peer);
    print(name, "dag_walk, no timestamps, no report", measure(s.n, reps, walk(false)), peer);
    // Pull mode, as the Go and Python bindings drive it: take up to 64 ready
    // vertices, complete each, repeat.
    const auto pull = [&] {
        dag_walker *w = nullptr;
        if (dag_walk_begin(g, &o, &w, nullptr) != DAG_OK) std::abort();
        uint64_t got[64];
        dag_walker *from[64];
        for (std::size_t n = 0;;) {
            if (dag_walk_next_ready(w, got, from, 64, -1, &n, nullptr) != DAG_OK) std::abort();
            if (n == 0) break;
            for (std::size_t i = 0; i < n; ++i) dag_walk_complete(from[i], got[i], DAG_WALK_OK, nullptr, nullptr);
        }
        if (dag_walk_wait(w, nullptr, nullptr) != DAG_OK) std::abort();
        dag_walk_free(w);
    };
    print(name, "pull walk, no timestamps, no report", measure(s.n, reps, pull), peer);
    if (pools) {
        // Every vertex needs one pool as wide as the parallelism: the pool's
        // bookkeeping in full, with no vertex ever kept waiting by it.
        const char *pool_name = "all";
        const std::size_t capacity = threads;
        std::vector<const char *> need_names(s.n, pool_name);
        o.pool_names = &pool_name;
        o.pool_capacities = &capacity;
        o.pool_count = 1;
        o.pool_need_vertices = ids.data();
        o.pool_need_names = need_names.data();
        o.pool_need_count = s.n;
        print(name, "pool all need, no timestamps, no rep", measure(s.n, reps, walk(false)), peer);
        o.pool_need_count = 0;
        print(name, "pool none need, no timestamps, no rep", measure(s.n, reps, walk(false)), peer);
        o.pool_count = 0;
    }
    if (priority) {
        // The ranks (computed by the first walk with a priority, kept with
        // the graph for the next) and the ranked queue; the graph's
        // vertices are unnamed, so ties go by id.
        o.priority = DAG_PRIORITY_CRITICAL_PATH;
        print(name, "critical path, first (ranks made)", measure(s.n, reps, walk(false), true), peer);
        print(name, "critical path, no timestamps, no rep", measure(s.n, reps, walk(false)), peer);
        o.priority = DAG_PRIORITY_NAME;
        print(name, "name order, first (ranks made)", measure(s.n, reps, walk(false), true), peer);
        print(name, "name order, no timestamps, no rep", measure(s.n, reps, walk(false)), peer);
        o.priority = DAG_PRIORITY_NONE;
    }
    dag_free(g);
}

}  // namespace

int main(int argc, char **argv) {
    const std::string which = argc > 1 ? argv[1] : "all";
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const std::size_t threads = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1;
    // The pool and priority rows need a 1.3 library: left out, the same
    // binary measures an older one (LD_LIBRARY_PATH) on the other rows.
    const bool pools = argc > 4 && std::string(argv[4]) == "pools";
    const bool priority = argc > 4 && std::string(argv[4]) == "priority";
#if !defined(DAG_BENCH_TASKFLOW)
    std::printf("Taskflow rows skipped: ../shared/peers/taskflow was not found at configure time\n");
#endif
    std::printf("threads %zu, best of %d; ratios against %s\n", threads, reps,
#if defined(DAG_BENCH_TASKFLOW)
                "Taskflow's run().wait() in the same run"
#else
                "nothing (no peer)"
#endif
    );
    for (const char *shape : {"chain", "tree", "grid", "fanout", "random"})
        if (which == "all" || which == shape) bench_shape(shape, reps, threads, pools, priority);
}
