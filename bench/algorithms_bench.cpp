// Algorithm benchmarks (issue 3, "Performance"), every row a ratio to a peer
// measured in the same run on the same graph:
//
//   - topological order and strongly connected components against
//     Boost.Graph's topological_sort and strong_components, run directly on
//     the graph's own adjacency_list, on random DAGs (10^5 and 10^6 vertices,
//     4 edges each), a chain, a complete binary tree and a square grid. Ours
//     three ways: the public core call on a warm graph (its snapshot cached
//     by an earlier query: repeated queries of an unchanged graph), the same
//     call cold (the first after a mutation: the freeze included), and the
//     algorithm alone on a snapshot;
//   - transitive reduction (100,000 vertices, 1,000,000 edges) against
//     Terraform's algorithm (a depth-first search from every vertex),
//     written below as the reference;
//   - peak memory of reducing 1,000,000 vertices / 4,000,000 edges, in a
//     forked child.
//
//   algorithms_bench [repetitions=3] [reference-sample=200]
//
// A reference sample of 0 skips both reduction tables. Times are the best of
// the repetitions, interleaved (the machine is shared; noise only adds time).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <boost/graph/strong_components.hpp>
#include <boost/graph/topological_sort.hpp>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"
#include "algorithms/tarjan.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/transitive_reduction.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()> &f, int reps) {
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
}

void add_vertices(dag::Graph &g, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) g.add_vertex(std::nullopt, nullptr);
}

// Edges go from a vertex to `per` uniform targets later in a random
// permutation, so the graph is acyclic but ids say nothing about the order.
void random_dag(dag::Graph &g, std::size_t n, std::size_t per, std::uint32_t seed) {
    add_vertices(g, n);
    std::mt19937_64 rng(seed);
    std::vector<dag::VertexId> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i + 1;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t i = 0; i + 1 < n; ++i)
        for (std::size_t k = 0; k < per; ++k) {
            std::size_t j = i + 1 + rng() % (n - i - 1);
            g.connect(perm[i], perm[j]);
        }
}

void chain(dag::Graph &g, std::size_t n) {
    add_vertices(g, n);
    for (std::size_t i = 1; i < n; ++i) g.connect(i, i + 1);
}

// Vertex i depends on its children 2i and 2i + 1 (1-based heap layout).
void binary_tree(dag::Graph &g, std::size_t n) {
    add_vertices(g, n);
    for (std::size_t i = 1; i <= n; ++i) {
        if (2 * i <= n) g.connect(i, 2 * i);
        if (2 * i + 1 <= n) g.connect(i, 2 * i + 1);
    }
}

// side x side cells, each depending on its right and lower neighbours.
void grid(dag::Graph &g, std::size_t side) {
    add_vertices(g, side * side);
    auto id = [side](std::size_t r, std::size_t c) { return r * side + c + 1; };
    for (std::size_t r = 0; r < side; ++r)
        for (std::size_t c = 0; c < side; ++c) {
            if (c + 1 < side) g.connect(id(r, c), id(r, c + 1));
            if (r + 1 < side) g.connect(id(r, c), id(r + 1, c));
        }
}

// Every vertex record and its out-edge list read once, in order: the least
// any algorithm pays that reads the graph in place, as a cold query must
// when no snapshot is cached. Boost's time over this bounds the ratio any
// cold call can reach.
std::size_t read_once(const dag::AdjacencyList &adj) {
    std::size_t sum = 0;
    const std::size_t n = boost::num_vertices(adj);
    for (dag::Vertex v = 0; v < n; ++v) {
        if (v + 8 < n) __builtin_prefetch(adj.out_edge_list(v + 8).data());
        for (const auto &e : adj.out_edge_list(v)) sum += e.get_target();
    }
    return sum;
}

struct Shape {
    const char *name;
    std::function<void(dag::Graph &)> build;
};

// One contender: `prepare` runs untimed before each timed `run`.
struct Contender {
    std::function<void()> prepare, run;
};

// Best time of each contender over `reps` interleaved repetitions: each
// repetition runs every contender once, so a burst of load on the shared
// machine hits all of them alike.
std::vector<double> race(const std::vector<Contender> &cs, int reps) {
    std::vector<double> t(cs.size(), 1e300);
    for (int r = 0; r < reps; ++r)
        for (std::size_t i = 0; i < cs.size(); ++i) {
            if (cs[i].prepare) cs[i].prepare();
            t[i] = std::min(t[i], seconds_of(cs[i].run, 1));
        }
    return t;
}

void order_and_scc_rows(int reps) {
    const Shape shapes[] = {
        {"random 10^5 x 4", [](dag::Graph &g) { random_dag(g, 100000, 4, 1); }},
        {"random 10^6 x 4", [](dag::Graph &g) { random_dag(g, 1000000, 4, 2); }},
        {"chain 10^6", [](dag::Graph &g) { chain(g, 1000000); }},
        {"binary tree 10^6", [](dag::Graph &g) { binary_tree(g, 1000000); }},
        {"grid 1000 x 1000", [](dag::Graph &g) { grid(g, 1000); }},
    };
    std::vector<std::string> order_rows, scc_rows;
    for (const Shape &shape : shapes) {
        dag::Graph g;
        shape.build(g);
        const dag::AdjacencyList &adj = g.adjacency();
        std::size_t sink = 0;
        const dag::Snapshot s = dag::freeze(g);
        // What a mutation does to the cache, without changing the graph.
        auto drop = [&] { g.cache_snapshot(nullptr); };
        // Leaves the snapshot of this query cached for the next.
        auto warm = [&] {
            if (!g.cached_snapshot()) sink += dag::topological_order(g).size();
        };

        const std::vector<double> order = race(
            {
                {nullptr,
                 [&] {
                     std::vector<dag::Vertex> out;
                     out.reserve(g.vertex_count());
                     boost::topological_sort(adj, std::back_inserter(out));
                     sink += out.size();
                 }},
                {warm, [&] { sink += dag::topological_order(g).size(); }},
                {drop, [&] { sink += dag::topological_order(g).size(); }},
                {nullptr,
                 [&] { sink += dag::topological_indices(s, {}, dag::TopoDirection::dependents_first).size(); }},
                {nullptr, [&] { sink += dag::freeze(g).size(); }},
                {nullptr, [&] { sink += read_once(adj); }},
            },
            reps);
        const std::vector<double> scc = race(
            {
                {nullptr,
                 [&] {
                     std::vector<std::size_t> component(boost::num_vertices(adj));
                     sink += boost::strong_components(adj, component.data());
                 }},
                {warm, [&] { sink += dag::strongly_connected_components(g).count(); }},
                {drop, [&] { sink += dag::strongly_connected_components(g).count(); }},
                {nullptr, [&] { sink += dag::strongly_connected(s).count(); }},
            },
            reps);
        if (sink == 0) std::printf("(nothing computed)\n");

        // The freeze column is a time on its own, not a contender: no ratio.
        char line[512];
        std::snprintf(line, sizeof line,
                      "| %s | %zu | %zu | %.1f ms | %.1f ms | %.2fx | %.1f ms | %.2fx | %.1f ms | %.2fx | %.1f ms "
                      "| %.1f ms | %.2fx |",
                      shape.name, g.vertex_count(), g.edge_count(), order[0] * 1e3, order[1] * 1e3,
                      order[0] / order[1], order[2] * 1e3, order[0] / order[2], order[3] * 1e3, order[0] / order[3],
                      order[4] * 1e3, order[5] * 1e3, order[0] / order[5]);
        order_rows.push_back(line);
        std::snprintf(line, sizeof line,
                      "| %s | %zu | %zu | %.1f ms | %.1f ms | %.2fx | %.1f ms | %.2fx | %.1f ms | %.2fx |",
                      shape.name, g.vertex_count(), g.edge_count(), scc[0] * 1e3, scc[1] * 1e3, scc[0] / scc[1],
                      scc[2] * 1e3, scc[0] / scc[2], scc[3] * 1e3, scc[0] / scc[3]);
        scc_rows.push_back(line);
    }
    std::printf("| topological order | V | E | Boost topological_sort | ours, warm | ratio | ours, cold | ratio "
                "| ours on snapshot | ratio | freeze | read once | Boost / read once |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string &row : order_rows) std::printf("%s\n", row.c_str());
    std::printf("\n| components | V | E | Boost strong_components | ours, warm | ratio | ours, cold | ratio "
                "| ours on snapshot | ratio |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string &row : scc_rows) std::printf("%s\n", row.c_str());
}

// Terraform's TransitiveReduction: for every vertex u, a depth-first walk
// from u's dependencies; at each vertex v reached, every dependency of u
// that is also a dependency of v is removed from u. Go sets become hash sets
// here; the walk's "seen" set is a stamped array, which is kinder to the
// reference than Terraform's map.
class TerraformReduction {
public:
    explicit TerraformReduction(const dag::Snapshot &s) : down_(s.size()), stamp_(s.size(), 0) {
        for (dag::Snapshot::Index v = 0; v < s.size(); ++v) down_[v].assign(s.out_begin(v), s.out_end(v));
    }

    // Runs the reference for the start vertices `us`; returns edges removed.
    std::size_t run(const std::vector<dag::Snapshot::Index> &us) {
        std::size_t removed = 0;
        std::vector<dag::Snapshot::Index> stack;
        for (dag::Snapshot::Index u : us) {
            ++epoch_;
            stack.assign(down_[u].begin(), down_[u].end());
            while (!stack.empty()) {
                const dag::Snapshot::Index v = stack.back();
                stack.pop_back();
                if (stamp_[v] == epoch_) continue;
                stamp_[v] = epoch_;
                // uTargets.Intersection(downEdges(v)), then RemoveEdge(u, v').
                std::vector<dag::Snapshot::Index> shared;
                for (dag::Snapshot::Index w : down_[v])
                    if (std::binary_search(down_[u].begin(), down_[u].end(), w)) shared.push_back(w);
                for (dag::Snapshot::Index w : shared) {
                    down_[u].erase(std::lower_bound(down_[u].begin(), down_[u].end(), w));
                    ++removed;
                }
                stack.insert(stack.end(), down_[v].begin(), down_[v].end());
            }
        }
        return removed;
    }

private:
    std::vector<std::vector<dag::Snapshot::Index>> down_;
    std::vector<unsigned> stamp_;
    unsigned epoch_ = 0;
};

void reduction_rows(int reps, std::size_t sample) {
    constexpr std::size_t n = 100000, per = 10;
    dag::Graph original;
    random_dag(original, n, per, 3);
    std::size_t removed = 0;
    // Time only the reduction, not the copy of the graph it starts from.
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        dag::Graph g(original);
        auto t0 = Clock::now();
        removed = dag::transitive_reduction(g);
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }

    const dag::Snapshot s = dag::freeze(original);
    std::mt19937 rng(4);
    std::vector<dag::Snapshot::Index> us;
    for (std::size_t i = 0; i < sample; ++i) us.push_back(static_cast<dag::Snapshot::Index>(rng() % n));
    TerraformReduction reference(s);
    const double sampled = seconds_of([&] { reference.run(us); }, 1);
    const double extrapolated = sampled / static_cast<double>(sample) * static_cast<double>(n);
    std::printf("\n| transitive reduction | V | E | ours | Terraform's (extrapolated from %zu random start "
                "vertices) | ratio |\n|---|---|---|---|---|---|\n",
                sample);
    std::printf("| random DAG | %zu | %zu | %.3f s (%zu edges removed) | %.1f s (%.2f ms per vertex) | %.0fx |\n", n,
                original.edge_count(), best, removed, extrapolated, sampled / static_cast<double>(sample) * 1e3,
                extrapolated / best);
}

long status_kib(const char *field) {
    FILE *f = std::fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    const std::size_t len = std::strlen(field);
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, field, len) == 0 && line[len] == ':') kib = std::strtol(line + len + 1, nullptr, 10);
    std::fclose(f);
    return kib;
}

// In a child, so that the peak covers this run only: the graph, the
// snapshot, the bitset blocks and everything else the process holds.
void big_reduction_row() {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        dag::Graph g;
        random_dag(g, 1000000, 4, 5);
        const long before = status_kib("VmHWM");
        auto t0 = Clock::now();
        const std::size_t removed = dag::transitive_reduction(g);
        const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
        const long peak = status_kib("VmHWM");
        std::printf("\n| big reduction | V | E | time | edges removed | peak RSS (whole process) | peak before "
                    "reducing (graph built) |\n|---|---|---|---|---|---|---|\n");
        std::printf("| random DAG | 1000000 | %zu | %.1f s | %zu | %.2f GiB | %.2f GiB |\n", g.edge_count() + removed,
                    secs, removed, peak / 1048576.0, before / 1048576.0);
        std::fflush(stdout);
        std::_Exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::printf("big reduction child failed\n");
}

}  // namespace

int main(int argc, char **argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
    const std::size_t sample = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200;
    order_and_scc_rows(reps);
    if (sample == 0) return 0;
    reduction_rows(reps, sample);
    big_reduction_row();
    return 0;
}
