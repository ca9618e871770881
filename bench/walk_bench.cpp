// Walker overhead with empty callbacks, in ns per vertex: dag_walk through
// the public C API, against a sequential Kahn pass over the same edges laid
// out as compressed arrays (the floor) and oneTBB flow_graph on the same
// shape, all in one run.
//
//   walk_bench [--benchmark_filter=...]   (Google Benchmark flags)
//
// After the benchmarks a table prints each shape's best time per vertex and
// the ratios the walker issue targets: walker / Kahn, walker / TBB, and
// 10 threads / 2 threads.
#include <benchmark/benchmark.h>
#include <tbb/flow_graph.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <dag/dag.h>

#include "api_check.hpp"
#include "process_memory.hpp"

namespace {

// The edges as compressed arrays by position, for the peers: vertex v
// depends on out[out_at[v] .. out_at[v + 1]) and is depended on by
// in[in_at[v] .. in_at[v + 1]).
struct Csr {
    std::vector<std::uint32_t> out_at, out, in_at, in;
    std::size_t size() const { return out_at.size() - 1; }
    std::uint32_t out_degree(std::uint32_t v) const { return out_at[v + 1] - out_at[v]; }
};

Csr csr_of(std::size_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>> &edges) {
    Csr c;
    c.out_at.assign(n + 1, 0);
    c.in_at.assign(n + 1, 0);
    for (auto [from, to] : edges) ++c.out_at[from + 1], ++c.in_at[to + 1];
    for (std::size_t v = 0; v < n; ++v) c.out_at[v + 1] += c.out_at[v], c.in_at[v + 1] += c.in_at[v];
    c.out.resize(edges.size());
    c.in.resize(edges.size());
    std::vector<std::uint32_t> o(c.out_at.begin(), c.out_at.end() - 1), i(c.in_at.begin(), c.in_at.end() - 1);
    for (auto [from, to] : edges) c.out[o[from]++] = to, c.in[i[to]++] = from;
    return c;
}

struct Shape {
    std::string name;
    dag_graph *graph = nullptr;  // built through the C API, never freed
    Csr csr;
};

// Edges point from dependent to dependency, as dag_connect does; no edge
// twice, so that the peers hold the same edges as the graph.
std::vector<Shape> &shapes() {
    static std::vector<Shape> all = [] {
        std::vector<Shape> v;
        using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
        auto make = [&](const char *name, std::size_t n, const std::function<void(Edges &)> &add) {
            Edges edges;
            add(edges);
            Shape s{name, nullptr, csr_of(n, edges)};
            dag_error *err = nullptr;
            check(dag_new(&s.graph, &err), err, "dag_new");
            std::vector<std::uint64_t> ids(n), pairs;
            check(dag_add_vertices(s.graph, nullptr, nullptr, n, ids.data(), &err), err, "dag_add_vertices");
            pairs.reserve(2 * edges.size());
            for (auto [from, to] : edges) pairs.insert(pairs.end(), {ids[from], ids[to]});
            check(dag_connect_many(s.graph, pairs.data(), edges.size(), &err), err, "dag_connect_many");
            v.push_back(std::move(s));
        };
        const std::uint32_t m = 1 << 20;
        make("chain 10^6", 1000000, [](Edges &e) {
            for (std::uint32_t i = 1; i < 1000000; ++i) e.emplace_back(i, i - 1);
        });
        make("binary tree 2^20", m, [m](Edges &e) {
            for (std::uint32_t i = 1; i < m; ++i) e.emplace_back((i - 1) / 2, i);  // parent after children
        });
        make("grid 1024x1024", m, [](Edges &e) {
            for (std::uint32_t r = 0; r < 1024; ++r)
                for (std::uint32_t c = 0; c < 1024; ++c) {
                    if (r) e.emplace_back(r * 1024 + c, (r - 1) * 1024 + c);
                    if (c) e.emplace_back(r * 1024 + c, r * 1024 + c - 1);
                }
        });
        make("fan-out 10^6", 1000000, [](Edges &e) {
            for (std::uint32_t i = 1; i < 1000000; ++i) e.emplace_back(i, 0);
        });
        make("random 10^6 x 4", 1000000, [](Edges &e) {
            std::mt19937_64 rng(42);
            std::uint32_t to[4];
            for (std::uint32_t i = 1; i < 1000000; ++i)
                for (int k = 0; k < 4 && k < static_cast<int>(i); ++k) {
                    do to[k] = static_cast<std::uint32_t>(rng() % i);
                    while (std::find(to, to + k, to[k]) != to + k);
                    e.emplace_back(i, to[k]);
                }
        });
        return v;
    }();
    return all;
}

// The best run of each (shape, implementation): its seconds and minor page
// faults, and the peak RSS over all its runs.
struct Best {
    double seconds = 1e300;
    long faults = 0;
    long peak_kb = 0;
};
std::map<std::pair<std::string, std::string>, Best> best;

void record(const std::string &shape, const std::string &impl, double seconds, long faults) {
    Best &b = best[std::make_pair(shape, impl)];
    if (seconds < b.seconds) b.seconds = seconds, b.faults = faults;
}

// The row's peak from a reset at its first run: the shapes' graphs and
// arrays, made before, count in it (the table says so).
void record_peak(const std::string &shape, const std::string &impl) {
    Best &b = best[std::make_pair(shape, impl)];
    b.peak_kb = std::max(b.peak_kb, process_memory::peak_kb());
}

template <class F>
void timed(benchmark::State &state, const std::string &shape, const std::string &impl, F &&run) {
    process_memory::reset_peak();
    for (auto _ : state) {
        const long f0 = process_memory::minor_faults();
        auto t0 = std::chrono::steady_clock::now();
        run();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(s);
        record(shape, impl, s, process_memory::minor_faults() - f0);
    }
    record_peak(shape, impl);
}

// An empty callback the compiler cannot remove.
__attribute__((noinline)) void empty_work(std::uint32_t v) { benchmark::DoNotOptimize(v); }

// The clock the walker reads for timestamps: the TSC where the kernel's
// clock source is the TSC, else the steady clock (a VM booted with
// tsc=unstable reads kvm-clock through the vDSO, 20-30 ns a read).
bool tsc_is_the_clock() {
    static const bool yes = [] {
        std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        std::string source;
        return f >> source && source == "tsc";
    }();
    return yes;
}

std::int64_t tick() {
#if defined(__x86_64__)
    if (tsc_is_the_clock()) return static_cast<std::int64_t>(__rdtsc());
#endif
    return std::chrono::steady_clock::now().time_since_epoch().count();
}

// With `Timestamps`, the floor for a walk that reports each vertex's start
// and end time: the same pass reading the clock once per vertex, as the
// walker does where it can (one vertex's end time is the next one's start).
template <bool Timestamps>
void kahn(benchmark::State &state, Shape *s) {
    const Csr &csr = s->csr;
    const std::size_t n = csr.size();
    std::vector<std::uint32_t> pending(n), queue(n);
    std::vector<std::pair<std::int64_t, std::int64_t>> times(Timestamps ? n : 0);
    timed(state, s->name, Timestamps ? "kahn+ts" : "kahn", [&] {
        std::size_t head = 0, tail = 0;
        for (std::uint32_t v = 0; v < n; ++v) {
            pending[v] = csr.out_degree(v);
            if (!pending[v]) queue[tail++] = v;
        }
        std::int64_t clock = Timestamps ? tick() : 0;
        while (head < tail) {
            std::uint32_t v = queue[head++];
            if (Timestamps) times[v].first = clock;
            empty_work(v);
            if (Timestamps) times[v].second = clock = tick();
            for (std::uint32_t p = csr.in_at[v], e = csr.in_at[v + 1]; p != e; ++p)
                if (--pending[csr.in[p]] == 0) queue[tail++] = csr.in[p];
        }
        if (tail != n) state.SkipWithError("kahn lost vertices");
        benchmark::DoNotOptimize(times.data());
    });
}

dag_walk_result empty_visit(dag_walker *, std::uint64_t v, const char **, void *) {
    empty_work(static_cast<std::uint32_t>(v));
    return DAG_WALK_OK;
}

// dag_walk as a host calls it. With `timestamps`, with a report (whose
// start and end times are on by default) freed after; without, no report,
// which takes no timestamps. `cold`: the first walk after a change;
// otherwise the walk reuses what the previous one left on the graph.
void walker(benchmark::State &state, Shape *s, std::size_t threads, bool timestamps, bool cold) {
    dag_walk_options o;
    dag_error *err = nullptr;
    check(dag_walk_options_init(&o, sizeof o, &err), err, "dag_walk_options_init");
    o.threads = threads;
    o.parallelism = std::max<std::size_t>(threads, 10);
    std::string impl = "walker " + std::to_string(threads) + (timestamps ? "" : " (no timestamps)") +
                       (cold ? " (cold)" : "");
    process_memory::reset_peak();
    for (auto _ : state) {
        if (cold) touch(s->graph);
        const long f0 = process_memory::minor_faults();
        auto t0 = std::chrono::steady_clock::now();
        dag_walk_report *report = nullptr;
        check(dag_walk(s->graph, empty_visit, nullptr, &o, timestamps ? &report : nullptr, &err), err, "dag_walk");
        dag_walk_report_free(report);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(secs);
        record(s->name, impl, secs, process_memory::minor_faults() - f0);
    }
    record_peak(s->name, impl);
}

void flow_graph(benchmark::State &state, Shape *s, int threads) {
    const Csr &csr = s->csr;
    const std::size_t n = csr.size();
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::flow::graph g;
        std::vector<std::unique_ptr<tbb::flow::continue_node<tbb::flow::continue_msg>>> nodes;
        nodes.reserve(n);
        for (std::uint32_t v = 0; v < n; ++v)
            nodes.push_back(std::make_unique<tbb::flow::continue_node<tbb::flow::continue_msg>>(
                g, [v](const tbb::flow::continue_msg &) { empty_work(v); }));
        for (std::uint32_t v = 0; v < n; ++v)
            for (std::uint32_t p = csr.out_at[v], e = csr.out_at[v + 1]; p != e; ++p)
                tbb::flow::make_edge(*nodes[csr.out[p]], *nodes[v]);
        std::vector<std::uint32_t> roots;
        for (std::uint32_t v = 0; v < n; ++v)
            if (!csr.out_degree(v)) roots.push_back(v);
        timed(state, s->name, "tbb " + std::to_string(threads), [&] {
            for (std::uint32_t r : roots) nodes[r]->try_put(tbb::flow::continue_msg());
            g.wait_for_all();
        });
    });
}

void print_table() {
    std::printf("\nns per vertex, best run. walker N = dag_walk with N pool threads (parallelism max(N, 10)) after\n"
                "a walk of the same graph, with a report and its timestamps (the default) or without a report\n"
                "(no-ts); cold = walker 1 right after a change (freeze and cycle check included); kahn+ts = kahn\n"
                "recording each vertex's start and end time, one clock read per vertex.\n\n");
    std::printf("| shape | kahn | kahn+ts | walker 1 | walker 2 | walker 10 | no-ts 1 | no-ts 2 | no-ts 10 | cold 1 |"
                " tbb 1 | tbb 2 | tbb 10 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    auto ns = [](const Shape &s, const std::string &impl) {
        auto it = best.find({s.name, impl});
        return it == best.end() ? 0.0 : it->second.seconds * 1e9 / static_cast<double>(s.csr.size());
    };
    auto walker_ns = [&](const Shape &s, int threads, bool timestamps) {
        return ns(s, "walker " + std::to_string(threads) + (timestamps ? "" : " (no timestamps)"));
    };
    for (auto &s : shapes()) {
        std::printf("| %s | %.1f | %.1f", s.name.c_str(), ns(s, "kahn"), ns(s, "kahn+ts"));
        for (bool ts : {true, false})
            for (int t : {1, 2, 10}) std::printf(" | %.1f", walker_ns(s, t, ts));
        std::printf(" | %.1f | %.1f | %.1f | %.1f |\n", ns(s, "walker 1 (cold)"), ns(s, "tbb 1"), ns(s, "tbb 2"),
                    ns(s, "tbb 10"));
    }
    std::printf("\nRatios, with timestamps / without: walker 1 / kahn, walker N / tbb N, walker 10 / walker 2.\n"
                "ts/kahn+ts: walker 1, 2 and 10 with timestamps over the Kahn pass that reads the clock as often.\n\n"
                "| shape | w1/kahn | w1/tbb1 | w2/tbb2 | w10/tbb10 | w10/w2 | cold/kahn | ts/kahn+ts |\n"
                "|---|---|---|---|---|---|---|---|\n");
    for (auto &s : shapes()) {
        const double k = ns(s, "kahn");
        auto pair = [&](double a, double b) { std::printf(" | %.2f / %.2f", a, b); };
        std::printf("| %s", s.name.c_str());
        pair(walker_ns(s, 1, true) / k, walker_ns(s, 1, false) / k);
        for (int t : {1, 2, 10}) {
            const double tbb = ns(s, "tbb " + std::to_string(t));
            pair(walker_ns(s, t, true) / tbb, walker_ns(s, t, false) / tbb);
        }
        pair(walker_ns(s, 10, true) / walker_ns(s, 2, true), walker_ns(s, 10, false) / walker_ns(s, 2, false));
        const double kt = ns(s, "kahn+ts");
        std::printf(" | %.2f | %.2f / %.2f / %.2f |\n", ns(s, "walker 1 (cold)") / k, walker_ns(s, 1, true) / kt,
                    walker_ns(s, 2, true) / kt, walker_ns(s, 10, true) / kt);
    }
    std::printf("\nMinor page faults of the best run / peak RSS in MiB over the row's runs (the process's: every\n"
                "shape's graph and arrays, made before the first row, are in it).\n\n"
                "| shape | kahn | walker 1 | walker 10 | no-ts 1 | no-ts 10 | cold 1 | tbb 1 | tbb 10 |\n"
                "|---|---|---|---|---|---|---|---|---|\n");
    for (auto &s : shapes()) {
        std::printf("| %s", s.name.c_str());
        for (const char *impl : {"kahn", "walker 1", "walker 10", "walker 1 (no timestamps)", "walker 10 (no timestamps)",
                                 "walker 1 (cold)", "tbb 1", "tbb 10"}) {
            auto it = best.find({s.name, impl});
            if (it == best.end())
                std::printf(" | -");
            else
                std::printf(" | %ld / %.0f", it->second.faults, it->second.peak_kb / 1024.0);
        }
        std::printf(" |\n");
    }
}

}  // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    auto reg = [](Shape &s, const std::string &name, auto fn) {
        benchmark::RegisterBenchmark((s.name + "/" + name).c_str(), fn)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond)
            ->Iterations(5);
    };
    for (auto &s : shapes()) {
        Shape *sp = &s;
        reg(s, "kahn", [sp](benchmark::State &st) { kahn<false>(st, sp); });
        reg(s, "kahn+ts", [sp](benchmark::State &st) { kahn<true>(st, sp); });
        for (bool ts : {true, false})
            for (std::size_t t : {1, 2, 10})
                reg(s, "walker/" + std::to_string(t) + (ts ? "" : "/no-timestamps"),
                    [sp, t, ts](benchmark::State &st) { walker(st, sp, t, ts, false); });
        reg(s, "walker/1/cold", [sp](benchmark::State &st) { walker(st, sp, 1, true, true); });
    }
    // oneTBB last: its worker threads spin for a while after a graph
    // finishes and would take a core from whatever ran next.
    for (auto &s : shapes()) {
        Shape *sp = &s;
        for (int t : {1, 2, 10}) reg(s, "tbb/" + std::to_string(t), [sp, t](benchmark::State &st) { flow_graph(st, sp, t); });
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    print_table();
    return 0;
}
