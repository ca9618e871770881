// Algorithm benchmarks (issue 3, "Performance") through the public C API,
// every row a ratio to a peer measured in the same run on the same edges:
//
//   - dag_topological_order and dag_strongly_connected against Boost.Graph's
//     topological_sort and strong_components on a bidirectional
//     adjacency_list holding the same edges (the store libdag is built on),
//     on random DAGs (10^5 and 10^6 vertices, 4 edges each), a chain, a
//     complete binary tree and a square grid. Ours two ways: warm (the graph
//     queried before and not changed since: repeated queries) and cold (the
//     first query after a change: a vertex added and removed, untimed), each
//     with the minor page faults of its best run;
//   - dag_transitive_reduction (100,000 vertices, 1,000,000 edges) against
//     Terraform's algorithm (a depth-first search from every vertex),
//     written below as the reference;
//   - peak memory of dag_transitive_reduction on 1,000,000 vertices /
//     4,000,000 edges, in a forked child.
//
//   algorithms_bench [repetitions=3] [reference-sample=200]
//
// A reference sample of 0 skips both reduction tables. Times are the best of
// the repetitions, interleaved (the machine is shared; noise only adds time).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/graph/topological_sort.hpp>

#include <dag/dag.h>

#include "api_check.hpp"
#include "process_memory.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Edges as positions: vertex `from` depends on vertex `to`, both in [0, n).
struct Edges {
    std::size_t n = 0;
    std::vector<std::size_t> pairs;  // from, to, from, to, ...
    void add(std::size_t from, std::size_t to) { pairs.insert(pairs.end(), {from, to}); }
};

// Edges go from a vertex to `per` distinct uniform targets later in a
// random permutation (all of them near its end), so the graph is acyclic
// but ids say nothing about the order. Distinct, so that Boost's graph,
// which keeps parallel edges, holds the same edges as libdag's.
Edges random_dag(std::size_t n, std::size_t per, std::uint32_t seed) {
    Edges e{n, {}};
    std::mt19937_64 rng(seed);
    std::vector<std::size_t> perm(n), targets;
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const std::size_t later = n - i - 1;
        targets.clear();
        while (targets.size() < std::min(per, later)) {
            const std::size_t t = perm[i + 1 + rng() % later];
            if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
        }
        for (std::size_t t : targets) e.add(perm[i], t);
    }
    return e;
}

Edges chain(std::size_t n) {
    Edges e{n, {}};
    for (std::size_t i = 0; i + 1 < n; ++i) e.add(i, i + 1);
    return e;
}

// Vertex i depends on its children 2i + 1 and 2i + 2 (heap layout).
Edges binary_tree(std::size_t n) {
    Edges e{n, {}};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c : {2 * i + 1, 2 * i + 2})
            if (c < n) e.add(i, c);
    return e;
}

// side x side cells, each depending on its right and lower neighbours.
Edges grid(std::size_t side) {
    Edges e{side * side, {}};
    for (std::size_t r = 0; r < side; ++r)
        for (std::size_t c = 0; c < side; ++c) {
            if (c + 1 < side) e.add(r * side + c, r * side + c + 1);
            if (r + 1 < side) e.add(r * side + c, (r + 1) * side + c);
        }
    return e;
}

// The graph through the C API: one batch of unnamed vertices, one batch of
// edges, as a host building a graph does.
dag_graph *make_graph(const Edges &e) {
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    check(dag_new(&g, &err), err, "dag_new");
    std::vector<std::uint64_t> ids(e.n);
    check(dag_add_vertices(g, nullptr, nullptr, e.n, ids.data(), &err), err, "dag_add_vertices");
    std::vector<std::uint64_t> pairs(e.pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) pairs[k] = ids[e.pairs[k]];
    check(dag_connect_many(g, pairs.data(), pairs.size() / 2, &err), err, "dag_connect_many");
    return g;
}

using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

BoostGraph boost_graph(const Edges &e) {
    BoostGraph b(e.n);
    for (std::size_t k = 0; k < e.pairs.size(); k += 2) boost::add_edge(e.pairs[k], e.pairs[k + 1], b);
    return b;
}

// One contender: `prepare` runs untimed before each timed `run`.
struct Contender {
    std::function<void()> prepare, run;
};

struct Result {
    double seconds = 1e300;
    long faults = 0;  // of the best run
};

// Best time of each contender over `reps` interleaved repetitions: each
// repetition runs every contender once, so a burst of load on the shared
// machine hits all of them alike.
std::vector<Result> race(const std::vector<Contender> &cs, int reps) {
    std::vector<Result> t(cs.size());
    for (int r = 0; r < reps; ++r)
        for (std::size_t i = 0; i < cs.size(); ++i) {
            if (cs[i].prepare) cs[i].prepare();
            const long f0 = process_memory::minor_faults();
            const auto t0 = Clock::now();
            cs[i].run();
            const double s = std::chrono::duration<double>(Clock::now() - t0).count();
            if (s < t[i].seconds) t[i] = {s, process_memory::minor_faults() - f0};
        }
    return t;
}

void order_and_scc_rows(int reps) {
    struct Shape {
        const char *name;
        std::function<Edges()> edges;
    };
    const Shape shapes[] = {
        {"random 10^5 x 4", [] { return random_dag(100000, 4, 1); }},
        {"random 10^6 x 4", [] { return random_dag(1000000, 4, 2); }},
        {"chain 10^6", [] { return chain(1000000); }},
        {"binary tree 10^6", [] { return binary_tree(1000000); }},
        {"grid 1000 x 1000", [] { return grid(1000); }},
    };
    std::vector<std::string> order_rows, scc_rows;
    for (const Shape &shape : shapes) {
        process_memory::reset_peak();
        const Edges e = shape.edges();
        dag_graph *g = make_graph(e);
        const BoostGraph adj = boost_graph(e);
        std::size_t sink = 0;
        dag_error *err = nullptr;
        auto order = [&] {
            dag_ids *ids = nullptr;
            check(dag_topological_order(g, &ids, &err), err, "dag_topological_order");
            sink += dag_ids_count(ids);
            dag_ids_free(ids);
        };
        auto components = [&] {
            dag_id_lists *lists = nullptr;
            check(dag_strongly_connected(g, &lists, &err), err, "dag_strongly_connected");
            sink += dag_id_lists_count(lists);
            dag_id_lists_free(lists);
        };
        // The warm rows run after a query of their own kind, the cold after
        // a change: each is what a host sees calling the same query again.
        const std::vector<Result> ord = race(
            {
                {nullptr,
                 [&] {
                     std::vector<BoostGraph::vertex_descriptor> out;
                     out.reserve(e.n);
                     boost::topological_sort(adj, std::back_inserter(out));
                     sink += out.size();
                 }},
                {order, order},
                {[&] { touch(g); }, order},
            },
            reps);
        const std::vector<Result> scc = race(
            {
                {nullptr,
                 [&] {
                     std::vector<std::size_t> component(boost::num_vertices(adj));
                     sink += boost::strong_components(adj, component.data());
                 }},
                {components, components},
                {[&] { touch(g); }, components},
            },
            reps);
        if (sink == 0) std::printf("(nothing computed)\n");
        const double peak_mb = process_memory::peak_kb() / 1024.0;
        auto row = [&](const std::vector<Result> &t) {
            char line[512];
            std::snprintf(line, sizeof line,
                          "| %s | %zu | %zu | %.1f ms | %.1f ms (%ld faults) | %.2fx | %.1f ms (%ld faults) | %.2fx | "
                          "%.0f MB |",
                          shape.name, dag_vertex_count(g), dag_edge_count(g), t[0].seconds * 1e3, t[1].seconds * 1e3,
                          t[1].faults, t[0].seconds / t[1].seconds, t[2].seconds * 1e3, t[2].faults,
                          t[0].seconds / t[2].seconds, peak_mb);
            return std::string(line);
        };
        order_rows.push_back(row(ord));
        scc_rows.push_back(row(scc));
        dag_free(g);
    }
    std::printf("| topological order | V | E | Boost topological_sort | dag_topological_order, warm | ratio | "
                "cold | ratio | peak RSS (both graphs) |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string &row : order_rows) std::printf("%s\n", row.c_str());
    std::printf("\n| components | V | E | Boost strong_components | dag_strongly_connected, warm | ratio | cold | "
                "ratio | peak RSS (both graphs) |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string &row : scc_rows) std::printf("%s\n", row.c_str());
}

// Terraform's TransitiveReduction: for every vertex u, a depth-first walk
// from u's dependencies; at each vertex v reached, every dependency of u
// that is also a dependency of v is removed from u. Go sets become sorted
// vectors here; the walk's "seen" set is a stamped array, which is kinder
// to the reference than Terraform's map.
class TerraformReduction {
public:
    explicit TerraformReduction(const Edges &e) : down_(e.n), stamp_(e.n, 0) {
        for (std::size_t k = 0; k < e.pairs.size(); k += 2) down_[e.pairs[k]].push_back(e.pairs[k + 1]);
        for (auto &d : down_) {
            std::sort(d.begin(), d.end());
            d.erase(std::unique(d.begin(), d.end()), d.end());
        }
    }

    // Runs the reference for the start vertices `us`; returns edges removed.
    std::size_t run(const std::vector<std::size_t> &us) {
        std::size_t removed = 0;
        std::vector<std::size_t> stack;
        for (std::size_t u : us) {
            ++epoch_;
            stack.assign(down_[u].begin(), down_[u].end());
            while (!stack.empty()) {
                const std::size_t v = stack.back();
                stack.pop_back();
                if (stamp_[v] == epoch_) continue;
                stamp_[v] = epoch_;
                // uTargets.Intersection(downEdges(v)), then RemoveEdge(u, v').
                std::vector<std::size_t> shared;
                for (std::size_t w : down_[v])
                    if (std::binary_search(down_[u].begin(), down_[u].end(), w)) shared.push_back(w);
                for (std::size_t w : shared) {
                    down_[u].erase(std::lower_bound(down_[u].begin(), down_[u].end(), w));
                    ++removed;
                }
                stack.insert(stack.end(), down_[v].begin(), down_[v].end());
            }
        }
        return removed;
    }

private:
    std::vector<std::vector<std::size_t>> down_;
    std::vector<unsigned> stamp_;
    unsigned epoch_ = 0;
};

void reduction_rows(int reps, std::size_t sample) {
    constexpr std::size_t n = 100000, per = 10;
    const Edges e = random_dag(n, per, 3);
    dag_graph *original = make_graph(e);
    const std::size_t edges = dag_edge_count(original);
    std::size_t removed = 0;
    long faults = 0;
    // Time only the reduction, not the copy of the graph it starts from.
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        dag_graph *g = nullptr;
        dag_error *err = nullptr;
        check(dag_clone(original, &g, &err), err, "dag_clone");
        const long f0 = process_memory::minor_faults();
        const auto t0 = Clock::now();
        check(dag_transitive_reduction(g, &removed, &err), err, "dag_transitive_reduction");
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (s < best) best = s, faults = process_memory::minor_faults() - f0;
        dag_free(g);
    }
    dag_free(original);

    std::mt19937 rng(4);
    std::vector<std::size_t> us;
    for (std::size_t i = 0; i < sample; ++i) us.push_back(rng() % n);
    TerraformReduction reference(e);
    const auto t0 = Clock::now();
    reference.run(us);
    const double sampled = std::chrono::duration<double>(Clock::now() - t0).count();
    const double extrapolated = sampled / static_cast<double>(sample) * static_cast<double>(n);
    std::printf("\n| transitive reduction | V | E | dag_transitive_reduction | Terraform's (extrapolated from %zu "
                "random start vertices) | ratio |\n|---|---|---|---|---|---|\n",
                sample);
    std::printf("| random DAG | %zu | %zu | %.3f s (%zu edges removed, %ld faults) | %.1f s (%.2f ms per vertex) | "
                "%.0fx |\n",
                n, edges, best, removed, faults, extrapolated, sampled / static_cast<double>(sample) * 1e3,
                extrapolated / best);
}

// In a child, so that the peak covers this run only: the graph, what the
// reduction keeps and works in, and everything else the process holds.
void big_reduction_row() {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        dag_graph *g = nullptr;
        {
            const Edges e = random_dag(1000000, 4, 5);
            g = make_graph(e);
        }
        const std::size_t edges = dag_edge_count(g);
        const long before = process_memory::peak_kb(), f0 = process_memory::minor_faults();
        std::size_t removed = 0;
        dag_error *err = nullptr;
        const auto t0 = Clock::now();
        check(dag_transitive_reduction(g, &removed, &err), err, "dag_transitive_reduction");
        const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
        const long faults = process_memory::minor_faults() - f0, peak = process_memory::peak_kb();
        std::printf("\n| big reduction | V | E | time | faults | edges removed | peak RSS (whole process) | peak "
                    "before reducing (graph built) |\n|---|---|---|---|---|---|---|---|\n");
        std::printf("| random DAG | 1000000 | %zu | %.1f s | %ld | %zu | %.2f GiB | %.2f GiB |\n", edges, secs, faults,
                    removed, peak / 1048576.0, before / 1048576.0);
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
