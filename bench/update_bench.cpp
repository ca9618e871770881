// Updates of a running walk through the public C API (dag_walk_update_new,
// its adds and connects, dag_walk_apply, dag_walk_update_free: everything a
// host calls for one update), in microseconds per update, with the minor
// page faults and the growth of the resident set beside each time, against
// two peers measured in the same run through the same API:
//   - "copy + check": what an update cost before the walk kept a topological
//     order across updates: dag_clone of the graph and dag_cycles of the
//     copy;
//   - "change alone": the same change made to a graph nobody walks
//     (dag_add_vertex and dag_connect), the floor.
//
//   update_bench [updates=2000]
//
// The first update of a walk also builds the walk's order (O(V + E)), so it
// is reported apart from the later ones.
//
// Graphs: random DAGs of 10^4, 10^5 and 10^6 vertices, vertex i depending on
// 4 uniform vertices before it, so the first vertex is the only one that
// waits for nothing. The walk's callback holds it until the updates are
// done, so every update meets a walk with one vertex running and the rest
// waiting. Kinds of update:
//   - leaf: a new vertex that depends on a random vertex;
//   - between: a new vertex that depends on a random vertex of the first
//     half and that a random vertex of the second half depends on;
//   - edge: a new edge i -> j between two waiting vertices, j < i.
//
// Then the worst case for the kept order, one update measured alone: two
// chains of n / 2 vertices hanging from the first vertex, and an edge that
// makes the second vertex of one chain wait for the last vertex of the
// other, so every vertex of the first chain must move behind the whole
// second one.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include <dag/dag.h>

#include "api_check.hpp"
#include "process_memory.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A graph of `n` unnamed vertices; ids[k] is the id of the k-th.
struct Graph {
    dag_graph *g = nullptr;
    std::vector<std::uint64_t> ids;

    explicit Graph(std::size_t n) : ids(n) {
        check(dag_new(&g, nullptr), nullptr, "dag_new");
        dag_error *err = nullptr;
        check(dag_add_vertices(g, nullptr, nullptr, n, ids.data(), &err), err, "dag_add_vertices");
    }
    ~Graph() { dag_free(g); }
    Graph(const Graph &) = delete;
    Graph &operator=(const Graph &) = delete;

    void connect(const std::vector<std::uint64_t> &pairs) {
        dag_error *err = nullptr;
        check(dag_connect_many(g, pairs.data(), pairs.size() / 2, &err), err, "dag_connect_many");
    }
};

void random_dag(Graph &g, std::mt19937_64 &rng) {
    const std::size_t n = g.ids.size();
    std::vector<std::uint64_t> pairs;
    pairs.reserve(8 * n);
    for (std::size_t i = 1; i < n; ++i)
        for (int k = 0; k < 4; ++k) {
            pairs.push_back(g.ids[i]);
            pairs.push_back(g.ids[rng() % i]);
        }
    g.connect(pairs);
}

// dag_clone + dag_cycles: what every update cost before, best of 3.
double copy_and_check_us(const Graph &g) {
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
        const auto t0 = Clock::now();
        dag_graph *copy = nullptr;
        dag_id_lists *cycles = nullptr;
        dag_error *err = nullptr;
        check(dag_clone(g.g, &copy, &err), err, "dag_clone");
        check(dag_cycles(copy, &cycles, &err), err, "dag_cycles");
        if (dag_id_lists_count(cycles) != 0) std::abort();
        dag_id_lists_free(cycles);
        dag_free(copy);
        best = std::min(best, seconds_since(t0));
    }
    return best * 1e6;
}

enum class Kind { leaf, between, edge };
const char *name_of(Kind k) { return k == Kind::leaf ? "leaf" : k == Kind::between ? "between" : "edge"; }

// One update of `kind`, as positions k (the k-th vertex; `added` for the
// update's new vertex): the edges from -> to.
constexpr std::size_t added = ~std::size_t{0};
struct Change {
    bool adds;
    std::size_t from[2], to[2];
    int edges;
};

Change make_change(Kind kind, std::size_t n, std::mt19937_64 &rng) {
    const std::size_t half = n / 2;
    if (kind == Kind::edge) {
        // Both after the first, which runs: an edge into it would be refused.
        const std::size_t i = 2 + rng() % (n - 2), j = 1 + rng() % (i - 1);
        return {false, {i, 0}, {j, 0}, 1};
    }
    Change c{true, {added, 0}, {rng() % (kind == Kind::leaf ? n : half), 0}, 1};
    if (kind == Kind::between) {
        c.from[1] = half + rng() % (n - half);
        c.to[1] = added;
        c.edges = 2;
    }
    return c;
}

// What a host calls for one update: a batch, its change, the apply.
void apply(dag_walker *w, const Graph &g, const Change &c) {
    dag_walk_update *u = nullptr;
    dag_error *err = nullptr;
    check(dag_walk_update_new(&u, &err), err, "dag_walk_update_new");
    std::uint64_t x = 0;
    if (c.adds) check(dag_walk_update_add_vertex(u, nullptr, nullptr, 0, &x, &err), err, "dag_walk_update_add_vertex");
    for (int e = 0; e < c.edges; ++e) {
        const std::uint64_t from = c.from[e] == added ? x : g.ids[c.from[e]];
        const std::uint64_t to = c.to[e] == added ? x : g.ids[c.to[e]];
        check(dag_walk_update_connect(u, from, to, &err), err, "dag_walk_update_connect");
    }
    check(dag_walk_apply(w, u, nullptr, &err), err, "dag_walk_apply");
    dag_walk_update_free(u);
}

// The same change on a graph no walk holds.
void change_alone(Graph &g, const Change &c) {
    dag_error *err = nullptr;
    std::uint64_t x = 0;
    if (c.adds) check(dag_add_vertex(g.g, nullptr, nullptr, &x, &err), err, "dag_add_vertex");
    for (int e = 0; e < c.edges; ++e) {
        const std::uint64_t from = c.from[e] == added ? x : g.ids[c.from[e]];
        const std::uint64_t to = c.to[e] == added ? x : g.ids[c.to[e]];
        check(dag_connect(g.g, from, to, &err), err, "dag_connect");
    }
}

struct Hold {
    std::uint64_t first;
    std::atomic<bool> open{false};
};

dag_walk_result hold_first(dag_walker *, std::uint64_t v, const char **, void *data) {
    auto *hold = static_cast<Hold *>(data);
    while (v == hold->first && !hold->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    return DAG_WALK_OK;
}

dag_walker *start_held(Graph &g, Hold &hold) {
    dag_walk_options o;
    dag_error *err = nullptr;
    check(dag_walk_options_init(&o, sizeof o, &err), err, "dag_walk_options_init");
    o.threads = 2;
    dag_walker *w = nullptr;
    check(dag_walk_start(g.g, hold_first, &hold, &o, &w, &err), err, "dag_walk_start");
    return w;
}

void finish(dag_walker *w, Hold &hold) {
    hold.open = true;
    dag_error *err = nullptr;
    check(dag_walk_wait(w, nullptr, &err), err, "dag_walk_wait");
    dag_walk_free(w);
}

struct Row {
    std::size_t n;
    Kind kind;
    double first_us, apply_us, copy_us, floor_us;
    long first_faults;
    double faults_per_update, rss_kib_per_update;
};

Row measure(std::size_t n, Kind kind, std::size_t updates) {
    std::mt19937_64 rng(42);
    Graph g(n);
    random_dag(g, rng);
    Row row{n, kind, 0, 0, copy_and_check_us(g), 0, 0, 0, 0};

    Hold hold{g.ids[0]};
    dag_walker *w = start_held(g, hold);
    std::vector<Change> changes;
    for (std::size_t k = 0; k < updates; ++k) changes.push_back(make_change(kind, n, rng));
    // The first update also builds the walk's order: timed apart.
    const long first_faults0 = process_memory::minor_faults();
    const auto t0 = Clock::now();
    apply(w, g, changes[0]);
    row.first_us = seconds_since(t0) * 1e6;
    row.first_faults = process_memory::minor_faults() - first_faults0;
    const long rss0 = process_memory::rss_kb(), faults0 = process_memory::minor_faults();
    const auto t1 = Clock::now();
    for (std::size_t k = 1; k < updates; ++k) apply(w, g, changes[k]);
    row.apply_us = seconds_since(t1) * 1e6 / (updates - 1);
    row.faults_per_update = static_cast<double>(process_memory::minor_faults() - faults0) / (updates - 1);
    row.rss_kib_per_update = static_cast<double>(process_memory::rss_kb() - rss0) / (updates - 1);
    finish(w, hold);

    // The same kind of change on the graph, walked no more.
    std::vector<Change> again;
    for (std::size_t k = 0; k < updates; ++k) again.push_back(make_change(kind, n, rng));
    const auto t2 = Clock::now();
    for (const Change &c : again) change_alone(g, c);
    row.floor_us = seconds_since(t2) * 1e6 / updates;
    return row;
}

struct WorstRow {
    std::size_t n;
    double apply_us, copy_us, floor_us;
};

// Two chains from the first vertex (position 0): positions 1 .. n/2 and
// n/2 + 1 .. n - 1, each vertex waiting for the one before it. The walk's
// order interleaves them, so the edge 1 -> n - 1 (1 waits for n - 1) goes
// against it by nearly the whole graph.
WorstRow measure_worst(std::size_t n) {
    const std::size_t half = n / 2;
    WorstRow row{n, 1e30, 0, 0};
    for (int r = 0; r < 3; ++r) {
        Graph g(n);
        std::vector<std::uint64_t> pairs{g.ids[1], g.ids[0], g.ids[half + 1], g.ids[0]};
        for (std::size_t i = 2; i < n; ++i)
            if (i != half + 1) pairs.insert(pairs.end(), {g.ids[i], g.ids[i - 1]});
        g.connect(pairs);
        if (r == 0) row.copy_us = copy_and_check_us(g);
        Hold hold{g.ids[0]};
        dag_walker *w = start_held(g, hold);
        // A first update builds the order, untimed.
        apply(w, g, Change{false, {2, 0}, {0, 0}, 1});
        const auto t0 = Clock::now();
        apply(w, g, Change{false, {1, 0}, {n - 1, 0}, 1});
        row.apply_us = std::min(row.apply_us, seconds_since(t0) * 1e6);
        finish(w, hold);
        if (r == 0) {
            dag_error *err = nullptr;
            check(dag_disconnect(g.g, g.ids[1], g.ids[n - 1], &err), err, "dag_disconnect");
            const auto t1 = Clock::now();
            check(dag_connect(g.g, g.ids[1], g.ids[n - 1], &err), err, "dag_connect");
            row.floor_us = seconds_since(t1) * 1e6;
        }
    }
    return row;
}

}  // namespace

int main(int argc, char **argv) {
    const std::size_t updates = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;
    if (updates < 2) return 1;
    std::printf("| graph | update | first update (faults) | each later update | faults per update | RSS per update | "
                "copy + check (before) | ratio | change alone | ratio |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (std::size_t n : {10000u, 100000u, 1000000u})
        for (Kind kind : {Kind::leaf, Kind::between, Kind::edge}) {
            const Row r = measure(n, kind, updates);
            std::printf("| random %zu x 4 | %s | %.0f us (%ld) | %.1f us | %.2f | %.2f KiB | %.0f us | %.0fx faster | %.2f us | "
                        "%.1fx |\n",
                        r.n, name_of(r.kind), r.first_us, r.first_faults, r.apply_us, r.faults_per_update, r.rss_kib_per_update,
                        r.copy_us, r.copy_us / r.apply_us, r.floor_us, r.apply_us / r.floor_us);
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
