// Walker overhead with empty callbacks, in ns per vertex, against a
// sequential Kahn pass over the same frozen graph (the floor) and oneTBB
// flow_graph on the same shape, all in one run.
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
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "graph/snapshot.hpp"
#include "walk/walker.hpp"

namespace {

struct Shape {
    std::string name;
    std::unique_ptr<dag::Graph> graph;
    dag::Snapshot snap;
};

// Edges point from dependent to dependency, as dag_connect does.
std::vector<Shape> &shapes() {
    static std::vector<Shape> all = [] {
        std::vector<Shape> v;
        auto make = [&](const char *name, std::size_t n, const std::function<void(dag::Graph &, const std::vector<dag::VertexId> &)> &edges) {
            Shape s{name, std::make_unique<dag::Graph>(), {}};
            std::vector<dag::VertexId> ids(n);
            for (auto &id : ids) id = s.graph->add_vertex(std::nullopt, nullptr);
            edges(*s.graph, ids);
            s.snap = dag::freeze(*s.graph);
            v.push_back(std::move(s));
        };
        const std::size_t m = 1 << 20;
        make("chain 10^6", 1000000, [](dag::Graph &g, const auto &ids) {
            for (std::size_t i = 1; i < ids.size(); ++i) g.connect(ids[i], ids[i - 1]);
        });
        make("binary tree 2^20", m, [](dag::Graph &g, const auto &ids) {
            for (std::size_t i = 1; i < ids.size(); ++i) g.connect(ids[(i - 1) / 2], ids[i]);  // parent after children
        });
        make("grid 1024x1024", m, [](dag::Graph &g, const auto &ids) {
            for (std::size_t r = 0; r < 1024; ++r)
                for (std::size_t c = 0; c < 1024; ++c) {
                    if (r) g.connect(ids[r * 1024 + c], ids[(r - 1) * 1024 + c]);
                    if (c) g.connect(ids[r * 1024 + c], ids[r * 1024 + c - 1]);
                }
        });
        make("fan-out 10^6", 1000000, [](dag::Graph &g, const auto &ids) {
            for (std::size_t i = 1; i < ids.size(); ++i) g.connect(ids[i], ids[0]);
        });
        make("random 10^6 x 4", 1000000, [](dag::Graph &g, const auto &ids) {
            std::mt19937_64 rng(42);
            for (std::size_t i = 1; i < ids.size(); ++i)
                for (int k = 0; k < 4; ++k) g.connect(ids[i], ids[rng() % i]);
        });
        return v;
    }();
    return all;
}

// Best seconds per run, by (shape, implementation).
std::map<std::pair<std::string, std::string>, double> best;

void record(const std::string &shape, const std::string &impl, double seconds) {
    auto key = std::make_pair(shape, impl);
    auto it = best.find(key);
    if (it == best.end() || seconds < it->second) best[key] = seconds;
}

template <class F>
void timed(benchmark::State &state, const std::string &shape, const std::string &impl, F &&run) {
    for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        run();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(s);
        record(shape, impl, s);
    }
}

// An empty callback the compiler cannot remove.
__attribute__((noinline)) void empty_work(std::uint32_t v) { benchmark::DoNotOptimize(v); }

// The clock the walker reads for timestamps where the kernel trusts the TSC.
std::int64_t tick() {
#if defined(__x86_64__)
    return static_cast<std::int64_t>(__rdtsc());
#else
    return std::chrono::steady_clock::now().time_since_epoch().count();
#endif
}

// With `Timestamps`, the floor for a walk that reports each vertex's start
// and end time: the same pass reading the clock once per vertex, as the
// walker does where it can (one vertex's end time is the next one's start).
template <bool Timestamps>
void kahn(benchmark::State &state, Shape *s) {
    const dag::Snapshot &snap = s->snap;
    const std::size_t n = snap.size();
    std::vector<std::uint32_t> pending(n), queue(n);
    std::vector<std::pair<std::int64_t, std::int64_t>> times(Timestamps ? n : 0);
    timed(state, s->name, Timestamps ? "kahn+ts" : "kahn", [&] {
        std::size_t head = 0, tail = 0;
        for (std::uint32_t v = 0; v < n; ++v) {
            pending[v] = snap.out_degree(v);
            if (!pending[v]) queue[tail++] = v;
        }
        std::int64_t clock = Timestamps ? tick() : 0;
        while (head < tail) {
            std::uint32_t v = queue[head++];
            if (Timestamps) times[v].first = clock;
            empty_work(v);
            if (Timestamps) times[v].second = clock = tick();
            for (auto p = snap.in_begin(v), e = snap.in_end(v); p != e; ++p)
                if (--pending[*p] == 0) queue[tail++] = *p;
        }
        if (tail != n) state.SkipWithError("kahn lost vertices");
        benchmark::DoNotOptimize(times.data());
    });
}

// A walk freezes the graph only when a mutation dropped the snapshot cached
// on it; timed alone to separate it from scheduling.
void freeze(benchmark::State &state, Shape *s) {
    timed(state, s->name, "freeze", [&] {
        dag::Snapshot snap = dag::freeze(*s->graph);
        benchmark::DoNotOptimize(snap.out_offsets.data());
    });
}

dag::Outcome empty_visit(void *, dag::Walk &, dag::VertexId v, const char **) {
    empty_work(static_cast<std::uint32_t>(v));
    return dag::Outcome::ok;
}

// `cold`: the first walk after a mutation, which freezes the graph and checks
// it for cycles again; otherwise the walk reuses the snapshot cached by the
// previous one.
void walker(benchmark::State &state, Shape *s, std::size_t threads, bool timestamps, bool cold) {
    dag::WalkOptions o;
    o.threads = threads;
    o.parallelism = std::max<std::size_t>(threads, 10);
    o.timestamps = timestamps;
    std::string impl = "walker " + std::to_string(threads) + (timestamps ? "" : " (no timestamps)") +
                       (cold ? " (cold)" : "");
    for (auto _ : state) {
        // What a mutation does to the cache, without changing the graph.
        if (cold) s->graph->cache_snapshot(nullptr);
        auto t0 = std::chrono::steady_clock::now();
        auto w = dag::Walk::start(*s->graph, dag::Visitor{empty_visit, nullptr}, o, nullptr);
        w->wait();
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(secs);
        record(s->name, impl, secs);
    }
}

void flow_graph(benchmark::State &state, Shape *s, int threads) {
    const dag::Snapshot &snap = s->snap;
    const std::size_t n = snap.size();
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::flow::graph g;
        std::vector<std::unique_ptr<tbb::flow::continue_node<tbb::flow::continue_msg>>> nodes;
        nodes.reserve(n);
        for (std::uint32_t v = 0; v < n; ++v)
            nodes.push_back(std::make_unique<tbb::flow::continue_node<tbb::flow::continue_msg>>(
                g, [v](const tbb::flow::continue_msg &) { empty_work(v); }));
        for (std::uint32_t v = 0; v < n; ++v)
            for (auto p = snap.out_begin(v), e = snap.out_end(v); p != e; ++p)
                tbb::flow::make_edge(*nodes[*p], *nodes[v]);
        std::vector<std::uint32_t> roots;
        for (std::uint32_t v = 0; v < n; ++v)
            if (!snap.out_degree(v)) roots.push_back(v);
        timed(state, s->name, "tbb " + std::to_string(threads), [&] {
            for (std::uint32_t r : roots) nodes[r]->try_put(tbb::flow::continue_msg());
            g.wait_for_all();
        });
    });
}

void print_table() {
    std::printf("\nns per vertex, best run. walker N = N pool threads (parallelism max(N, 10)) on the snapshot\n"
                "cached by the previous walk, with timestamps (the default) or without (no-ts); cold = walker 1\n"
                "right after a mutation (freeze and cycle check included); kahn+ts = kahn recording each vertex's\n"
                "start and end time, one clock read per vertex.\n\n");
    std::printf("| shape | kahn | kahn+ts | freeze | walker 1 | walker 2 | walker 10 | no-ts 1 | no-ts 2 | no-ts 10 | cold 1 |"
                " tbb 1 | tbb 2 | tbb 10 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    auto ns = [](const Shape &s, const std::string &impl) {
        auto it = best.find({s.name, impl});
        return it == best.end() ? 0.0 : it->second * 1e9 / static_cast<double>(s.snap.size());
    };
    auto walker_ns = [&](const Shape &s, int threads, bool timestamps) {
        return ns(s, "walker " + std::to_string(threads) + (timestamps ? "" : " (no timestamps)"));
    };
    for (auto &s : shapes()) {
        std::printf("| %s | %.1f | %.1f | %.1f", s.name.c_str(), ns(s, "kahn"), ns(s, "kahn+ts"), ns(s, "freeze"));
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
        reg(s, "freeze", [sp](benchmark::State &st) { freeze(st, sp); });
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
