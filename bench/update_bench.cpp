// Updates of a running walk (the core of dag_walk_apply), in microseconds per
// update, against two peers measured in the same run:
//   - "copy + check": what an update cost before the walk kept a topological
//     order across updates: a copy of the graph and a cycle check of it;
//   - "change alone": the same change made to a graph nobody walks
//     (add_vertex and connect), the floor.
//
//   update_bench [updates=2000]
//
// The first update of a walk also builds the walk's order (O(V + E)), so it
// is reported apart from the later ones.
//
// Graphs: random DAGs of 10^4, 10^5 and 10^6 vertices, vertex i depending on
// 4 uniform vertices before it, so vertex 1 is the only one that waits for
// nothing. The walk's callback holds vertex 1 until the updates are done, so
// every update meets a walk with one vertex running and the rest waiting.
// Kinds of update:
//   - leaf: a new vertex that depends on a random vertex;
//   - between: a new vertex that depends on a random vertex of the first
//     half and that a random vertex of the second half depends on;
//   - edge: a new edge i -> j between two waiting vertices, j < i.
//
// Then the worst case for the kept order, one update measured alone: two
// chains of n / 2 vertices hanging from vertex 1, and an edge that makes the
// second vertex of one chain wait for the last vertex of the other, so
// every vertex of the first chain must move behind the whole second one.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/validate.hpp"
#include "walk/walk_update.hpp"
#include "walk/walker.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

long status_kib(const char *key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::string k(key);
    while (std::getline(f, line))
        if (line.compare(0, k.size(), k) == 0) return std::atol(line.c_str() + k.size());
    return 0;
}

void random_dag(dag::Graph &g, std::size_t n, std::mt19937_64 &rng) {
    for (std::size_t i = 0; i < n; ++i) g.add_vertex(std::nullopt, nullptr);
    for (std::size_t i = 1; i < n; ++i)
        for (int k = 0; k < 4; ++k) g.connect(i + 1, 1 + rng() % i);
}

enum class Kind { leaf, between, edge };
const char *name_of(Kind k) { return k == Kind::leaf ? "leaf" : k == Kind::between ? "between" : "edge"; }

// One update of `kind` on a graph of `n` original vertices, as a batch.
dag::WalkUpdate make_update(Kind kind, std::size_t n, std::mt19937_64 &rng) {
    dag::WalkUpdate u;
    const std::size_t half = n / 2;
    if (kind == Kind::edge) {
        // Both above 1, which runs: an edge into it would be refused.
        const dag::VertexId i = 3 + rng() % (n - 2), j = 2 + rng() % (i - 2);
        u.connects.emplace_back(i, j);
        return u;
    }
    const dag::VertexId x = u.add_vertex(std::nullopt, nullptr, false);
    u.connects.emplace_back(x, 1 + rng() % (kind == Kind::leaf ? n : half));
    if (kind == Kind::between) u.connects.emplace_back(half + 1 + rng() % (n - half), x);
    return u;
}

dag::Outcome hold_first(void *context, dag::Walk &, dag::VertexId v, const char **) {
    auto *open = static_cast<std::atomic<bool> *>(context);
    while (v == 1 && !open->load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    return dag::Outcome::ok;
}

struct Row {
    std::size_t n;
    Kind kind;
    double first_us, apply_us, copy_us, floor_us;
    double rss_kib_per_update;
};

Row measure(std::size_t n, Kind kind, std::size_t updates) {
    std::mt19937_64 rng(42);
    dag::Graph g;
    random_dag(g, n, rng);
    Row row{n, kind, 0, 0, 0, 0, 0};

    // Copy + check, as every update did before: the copy of this graph and
    // its cycle check, best of 3.
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
        const auto t0 = Clock::now();
        dag::Graph copy(g);
        if (!dag::cycle_report(copy).empty()) std::abort();
        best = std::min(best, seconds_since(t0));
    }
    row.copy_us = best * 1e6;

    // The updates, on a walk held at vertex 1.
    std::atomic<bool> open{false};
    dag::WalkOptions o;
    o.threads = 2;
    auto w = dag::Walk::start(g, dag::Visitor{hold_first, &open}, o, nullptr);
    std::vector<dag::WalkUpdate> batches;
    for (std::size_t k = 0; k < updates; ++k) batches.push_back(make_update(kind, n, rng));
    // The first update also builds the walk's order: timed apart.
    const auto t0 = Clock::now();
    w->apply(batches[0]);
    row.first_us = seconds_since(t0) * 1e6;
    const long rss0 = status_kib("VmRSS:");
    const auto t1 = Clock::now();
    for (std::size_t k = 1; k < updates; ++k) w->apply(batches[k]);
    row.apply_us = seconds_since(t1) * 1e6 / (updates - 1);
    row.rss_kib_per_update = static_cast<double>(status_kib("VmRSS:") - rss0) / (updates - 1);
    open = true;
    w->wait();
    w.reset();

    // The same kind of change on the graph, walked no more.
    std::vector<dag::WalkUpdate> again;
    for (std::size_t k = 0; k < updates; ++k) again.push_back(make_update(kind, n, rng));
    const auto t2 = Clock::now();
    for (const auto &u : again) {
        dag::VertexId x = dag::no_vertex;
        if (!u.vertices.empty()) x = g.add_vertex(std::nullopt, nullptr);
        for (auto [a, b] : u.connects) g.connect(u.is_provisional(a) ? x : a, u.is_provisional(b) ? x : b);
    }
    row.floor_us = seconds_since(t2) * 1e6 / updates;
    return row;
}

struct WorstRow {
    std::size_t n;
    double apply_us, copy_us, floor_us;
};

// Two chains from vertex 1: 2 .. n/2 + 1 and n/2 + 2 .. n, each vertex
// waiting for the one before it. The walk's order interleaves them, so the
// edge 2 -> n (2 waits for n) goes against it by nearly the whole graph.
WorstRow measure_worst(std::size_t n) {
    const std::size_t half = n / 2;
    WorstRow row{n, 1e30, 0, 0};
    for (int r = 0; r < 3; ++r) {
        dag::Graph g;
        for (std::size_t i = 0; i < n; ++i) g.add_vertex(std::nullopt, nullptr);
        g.connect(2, 1);
        g.connect(half + 2, 1);
        for (std::size_t i = 3; i <= n; ++i)
            if (i != half + 2) g.connect(i, i - 1);
        if (r == 0) {
            const auto t0 = Clock::now();
            dag::Graph copy(g);
            if (!dag::cycle_report(copy).empty()) std::abort();
            row.copy_us = seconds_since(t0) * 1e6;
        }
        std::atomic<bool> open{false};
        dag::WalkOptions o;
        o.threads = 2;
        auto w = dag::Walk::start(g, dag::Visitor{hold_first, &open}, o, nullptr);
        // A first update builds the order, untimed.
        dag::WalkUpdate first;
        first.connects.emplace_back(3, 1);
        w->apply(first);
        dag::WalkUpdate worst;
        worst.connects.emplace_back(2, n);
        const auto t0 = Clock::now();
        w->apply(worst);
        row.apply_us = std::min(row.apply_us, seconds_since(t0) * 1e6);
        open = true;
        w->wait();
        w.reset();
        if (r == 0) {
            g.disconnect(2, n);
            const auto t1 = Clock::now();
            g.connect(2, n);
            row.floor_us = seconds_since(t1) * 1e6;
        }
    }
    return row;
}

}  // namespace

int main(int argc, char **argv) {
    const std::size_t updates = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;
    if (updates < 2) return 1;
    std::printf("| graph | update | first update | each later update | copy + check (before) | ratio | change alone | "
                "ratio | RSS per update |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (std::size_t n : {10000u, 100000u, 1000000u})
        for (Kind kind : {Kind::leaf, Kind::between, Kind::edge}) {
            const Row r = measure(n, kind, updates);
            std::printf("| random %zu x 4 | %s | %.0f us | %.1f us | %.0f us | %.0fx faster | %.2f us | %.1fx | %.2f KiB |\n",
                        r.n, name_of(r.kind), r.first_us, r.apply_us, r.copy_us, r.copy_us / r.apply_us, r.floor_us,
                        r.apply_us / r.floor_us, r.rss_kib_per_update);
            std::fflush(stdout);
        }
    std::printf("\n| graph | update | the update | copy + check (before) | ratio | change alone |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (std::size_t n : {10000u, 100000u, 1000000u}) {
        const WorstRow r = measure_worst(n);
        std::printf("| two chains of %zu | against the order | %.0f us | %.0f us | %.1fx faster | %.2f us |\n", n / 2,
                    r.apply_us, r.copy_us, r.copy_us / r.apply_us, r.floor_us);
        std::fflush(stdout);
    }
}
