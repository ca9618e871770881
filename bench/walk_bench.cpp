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

#include "snapshot.hpp"
#include "walker.hpp"

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

void kahn(benchmark::State &state, Shape *s) {
    const dag::Snapshot &snap = s->snap;
    const std::size_t n = snap.size();
    std::vector<std::uint32_t> pending(n), queue(n);
    timed(state, s->name, "kahn", [&] {
        std::size_t head = 0, tail = 0;
        for (std::uint32_t v = 0; v < n; ++v) {
            pending[v] = snap.out_degree(v);
            if (!pending[v]) queue[tail++] = v;
        }
        while (head < tail) {
            std::uint32_t v = queue[head++];
            empty_work(v);
            for (auto p = snap.in_begin(v), e = snap.in_end(v); p != e; ++p)
                if (--pending[*p] == 0) queue[tail++] = *p;
        }
        if (tail != n) state.SkipWithError("kahn lost vertices");
    });
}

// A walk freezes the graph only when a mutation dropped the snapshot cached
// on it; timed alone to separate it from scheduling.
void freeze(benchmark::State &state, Shape *s) {
    timed(state, s->name, "freeze", [&] {
        dag::Snapshot snap = dag::freeze(*s->graph);
        benchmark::DoNotOptimize(snap.ids.data());
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
        // Any mutation drops the cached snapshot; renaming is the cheapest.
        if (cold) s->graph->set_name(1, std::nullopt);
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
                "cached by the previous walk; cold = walker 1 right after a mutation (freeze and cycle check\n"
                "included). Ratios: walker/kahn (with and without timestamps), walker/tbb at equal threads,\n"
                "walker 10/walker 2.\n\n");
    std::printf("| shape | kahn | freeze | walker 1 | walker 2 | walker 10 | walker 1 no-ts | walker 1 cold | tbb 1 |"
                " tbb 2 | tbb 10 | w1/kahn | no-ts/kahn | cold/kahn | w1/tbb1 | w2/tbb2 | w10/tbb10 | w10/w2 |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (auto &s : shapes()) {
        double n = static_cast<double>(s.snap.size());
        auto ns = [&](const char *impl) {
            auto it = best.find({s.name, impl});
            return it == best.end() ? 0.0 : it->second * 1e9 / n;
        };
        double k = ns("kahn"), f = ns("freeze"), w1 = ns("walker 1"), w2 = ns("walker 2"), w10 = ns("walker 10");
        double w1n = ns("walker 1 (no timestamps)"), w1c = ns("walker 1 (cold)");
        double t1 = ns("tbb 1"), t2 = ns("tbb 2"), t10 = ns("tbb 10");
        std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |"
                    " %.2f | %.2f | %.2f | %.2f |\n",
                    s.name.c_str(), k, f, w1, w2, w10, w1n, w1c, t1, t2, t10, w1 / k, w1n / k, w1c / k, w1 / t1,
                    w2 / t2, w10 / t10, w10 / w2);
    }
}

}  // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    for (auto &s : shapes()) {
        Shape *sp = &s;
        auto reg = [&](const std::string &name, auto fn) {
            benchmark::RegisterBenchmark((s.name + "/" + name).c_str(), fn)
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond)
                ->Iterations(5);
        };
        reg("kahn", [sp](benchmark::State &st) { kahn(st, sp); });
        reg("freeze", [sp](benchmark::State &st) { freeze(st, sp); });
        for (std::size_t t : {1, 2, 10}) {
            reg("walker/" + std::to_string(t), [sp, t](benchmark::State &st) { walker(st, sp, t, true, false); });
            reg("tbb/" + std::to_string(t), [sp, t](benchmark::State &st) { flow_graph(st, sp, static_cast<int>(t)); });
        }
        reg("walker/1/no-timestamps", [sp](benchmark::State &st) { walker(st, sp, 1, false, false); });
        reg("walker/1/cold", [sp](benchmark::State &st) { walker(st, sp, 1, true, true); });
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    print_table();
    return 0;
}
