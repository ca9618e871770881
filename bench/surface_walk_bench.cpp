// What a walk costs where the user calls it: dag_walk through the public C
// API (include/dag/dag.h only), cold (first walk after the graph was built)
// and warm, with and without a report, with and without timestamps, next to
// a sequential Kahn pass (the floor) and Taskflow's executor.run().wait() on
// the same shape, when Taskflow's headers are there (DAG_BENCH_TASKFLOW).
// Each row: best time of the repetitions in ns per vertex, minor page faults
// and bytes of fresh memory per vertex (faults x 4 KiB / vertices, of the
// row's last run), and the process's peak RSS growth over that run.
//
//   surface_walk_bench [shape=all] [repetitions=5] [threads=1] [pools|priority|both]
//
// `both` adds the pool rows, the priority rows and a walk with both at once.
#include <dag/dag.h>

#include "process_memory.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

struct Row {
    std::string label;
    std::function<void()> run;
    // Untimed, right before each run: a ranked row's walk with the same
    // options, since the graph keeps the ranks of one priority only and the
    // rows in turns walk by several.
    std::function<void()> prepare = {};
    double ns_per_vertex = 1e300;
    long faults = 0;
    long peak_kb = 0;
};

// One run of `row`: the best time so far, the faults and peak of this run
// (a warm row keeps its last run's).
void run_once(std::size_t n, Row &row) {
    if (row.prepare) row.prepare();
    process_memory::reset_peak();
    const long rss0 = process_memory::rss_kb();
    const long f0 = process_memory::minor_faults();
    const auto t0 = std::chrono::steady_clock::now();
    row.run();
    const auto t1 = std::chrono::steady_clock::now();
    row.faults = process_memory::minor_faults() - f0;
    row.peak_kb = std::max(0L, process_memory::peak_kb() - rss0);
    row.ns_per_vertex = std::min(row.ns_per_vertex,
                                 std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
}

// Fresh memory counts 4 KiB a fault: where the walk's arrays sit on 2 MiB
// huge pages one fault brings in more, so the column is a lower bound.
// Without a peer the ratio column reads "-": 0.00x would read as a time.
void print(const std::string &shape, std::size_t n, const Row &r, double peer_ns) {
    char ratio[16] = "      -";
    if (peer_ns > 0) std::snprintf(ratio, sizeof ratio, "%6.2fx", r.ns_per_vertex / peer_ns);
    std::printf("%-7s %-38s %8.1f ns/v %s  %8ld faults %6.1f B/v fresh  peak +%ld KiB\n", shape.c_str(),
                r.label.c_str(), r.ns_per_vertex, ratio, r.faults,
                static_cast<double>(r.faults) * 4096.0 / static_cast<double>(n), r.peak_kb);
}

dag_walk_result empty(dag_walker *, uint64_t, const char **, void *) { return DAG_WALK_OK; }

void walk_or_abort(dag_graph *g, const dag_walk_options &o, bool report) {
    dag_walk_report *r = nullptr;
    if (dag_walk(g, empty, nullptr, &o, report ? &r : nullptr, nullptr) != DAG_OK) std::abort();
    dag_walk_report_free(r);
}

// Pull mode, as the Go and Python bindings drive it: take up to 64 ready
// vertices, complete each, repeat.
void pull_or_abort(dag_graph *g, const dag_walk_options &o) {
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
}

// The cold rows run once each, first, each next to Taskflow's first run of
// its own fresh taskflow; the warm rows run in turns, one repetition of
// every row before the next, so that a change in the machine's load falls
// on all of them alike, and each is compared with Taskflow's best warm run.
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
    const auto kahn = [&] {
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
    };

    dag_graph *g = nullptr;
    dag_new(&g, nullptr);
    std::vector<uint64_t> ids(s.n);
    for (std::size_t i = 0; i < s.n; ++i) dag_add_vertex(g, nullptr, nullptr, &ids[i], nullptr);
    std::vector<uint64_t> pairs;
    pairs.reserve(2 * s.edges.size());
    for (auto [from, to] : s.edges) pairs.push_back(ids[from]), pairs.push_back(ids[to]);
    dag_connect_many(g, pairs.data(), s.edges.size(), nullptr);

    dag_walk_options plain = DAG_WALK_OPTIONS_INIT;
    plain.parallelism = threads;
    plain.threads = threads;
    dag_walk_options untimed = plain;
    untimed.timestamps = 0;
    // Every vertex needs one pool as wide as the parallelism: the pool's
    // bookkeeping in full, with no vertex ever kept waiting by it.
    const char *pool_name = "all";
    const std::size_t capacity = threads;
    std::vector<const char *> need_names(s.n, pool_name);
    dag_walk_options all_need = untimed;
    all_need.pool_names = &pool_name;
    all_need.pool_capacities = &capacity;
    all_need.pool_count = 1;
    all_need.pool_need_vertices = ids.data();
    all_need.pool_need_names = need_names.data();
    all_need.pool_need_count = s.n;
    dag_walk_options none_need = all_need;
    none_need.pool_need_count = 0;
    // The ranks (computed by the first walk with a priority, kept with the
    // graph for the next) and the ranked queue; the graph's vertices are
    // unnamed, so ties go by id.
    dag_walk_options critical = untimed;
    critical.priority = DAG_PRIORITY_CRITICAL_PATH;
    dag_walk_options by_name = untimed;
    by_name.priority = DAG_PRIORITY_NAME;
    dag_walk_options critical_all_need = all_need;
    critical_all_need.priority = DAG_PRIORITY_CRITICAL_PATH;

    std::vector<Row> cold, warm;
#if defined(DAG_BENCH_TASKFLOW)
    tf::Executor executor(threads);
    const auto make_flow = [&](tf::Taskflow &flow) {
        std::vector<tf::Task> tasks;
        tasks.reserve(s.n);
        for (std::size_t i = 0; i < s.n; ++i) tasks.push_back(flow.emplace([] {}));
        for (auto [from, to] : s.edges) tasks[to].precede(tasks[from]);
    };
    tf::Taskflow flow, first_flows[3];
    make_flow(flow);
    std::size_t next_first = 0;
    const auto taskflow_first = [&] {
        return Row{"taskflow run().wait(), first", [&, i = next_first++] { executor.run(first_flows[i]).wait(); }};
    };
    cold.push_back(taskflow_first());
    make_flow(first_flows[0]);
    warm.push_back({"taskflow run().wait()", [&] { executor.run(flow).wait(); }});
#endif
    warm.push_back({"Kahn pass (floor)", kahn});
    cold.push_back({"dag_walk, report, first", [&] { walk_or_abort(g, plain, true); }});
    warm.push_back({"dag_walk, report", [&] { walk_or_abort(g, plain, true); }});
    warm.push_back({"dag_walk, no report", [&] { walk_or_abort(g, plain, false); }});
    warm.push_back({"dag_walk, no timestamps, report", [&] { walk_or_abort(g, untimed, true); }});
    warm.push_back({"dag_walk, no timestamps, no report", [&] { walk_or_abort(g, untimed, false); }});
    warm.push_back({"pull walk, no timestamps, no report", [&] { pull_or_abort(g, untimed); }});
    if (pools) {
        warm.push_back({"pool all need, no timestamps, no rep", [&] { walk_or_abort(g, all_need, false); }});
        warm.push_back({"pool none need, no timestamps, no rep", [&] { walk_or_abort(g, none_need, false); }});
    }
    if (priority) {
#if defined(DAG_BENCH_TASKFLOW)
        cold.push_back(taskflow_first());
        make_flow(first_flows[1]);
#endif
        cold.push_back({"critical path, first (ranks made)", [&] { walk_or_abort(g, critical, false); }});
#if defined(DAG_BENCH_TASKFLOW)
        cold.push_back(taskflow_first());
        make_flow(first_flows[2]);
#endif
        cold.push_back({"name order, first (ranks made)", [&] { walk_or_abort(g, by_name, false); }});
        const auto critical_walk = [&] { walk_or_abort(g, critical, false); };
        const auto by_name_walk = [&] { walk_or_abort(g, by_name, false); };
        warm.push_back({"critical path, no timestamps, no rep", critical_walk, critical_walk});
        warm.push_back({"name order, no timestamps, no rep", by_name_walk, by_name_walk});
    }
    if (pools && priority) {
        const auto both_walk = [&] { walk_or_abort(g, critical_all_need, false); };
        warm.push_back({"critical path, pool all need, no rep", both_walk, both_walk});
    }

    double peer = 0;
    for (Row &row : cold) {
        run_once(s.n, row);
#if defined(DAG_BENCH_TASKFLOW)
        if (row.label.rfind("taskflow", 0) == 0) peer = row.ns_per_vertex;
#endif
        print(name, s.n, row, peer);
    }
    for (int r = 0; r < reps; ++r)
        for (Row &row : warm) run_once(s.n, row);
#if defined(DAG_BENCH_TASKFLOW)
    peer = warm.front().ns_per_vertex;
#endif
    for (const Row &row : warm) print(name, s.n, row, peer);
    dag_free(g);
}

}  // namespace

int main(int argc, char **argv) {
    const std::string which = argc > 1 ? argv[1] : "all";
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const std::size_t threads = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1;
    // The pool and priority rows need a 1.3 library: left out, the same
    // binary measures an older one (LD_LIBRARY_PATH) on the other rows.
    const std::string extra = argc > 4 ? argv[4] : "";
    const bool pools = extra == "pools" || extra == "both";
    const bool priority = extra == "priority" || extra == "both";
#if !defined(DAG_BENCH_TASKFLOW)
    std::printf("Taskflow rows skipped: ../shared/peers/taskflow was not found at configure time\n");
#endif
    std::printf("threads %zu, best of %d warm runs taken in turns; ratios against %s\n", threads, reps,
#if defined(DAG_BENCH_TASKFLOW)
                "Taskflow's run().wait() in the same run (a first run against Taskflow's first)"
#else
                "nothing (no peer)"
#endif
    );
    for (const char *shape : {"chain", "tree", "grid", "fanout", "random"})
        if (which == "all" || which == shape) bench_shape(shape, reps, threads, pools, priority);
}
