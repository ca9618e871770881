// Graph building through the C API (issue 2, "Performance"): 10^6 vertices and
// 4 * 10^6 edges (dag_connect one by one, and dag_connect_many in one batch), against a plain compressed-sparse-row build of
// the same edge stream in the same run.
//
// Every build runs in its own forked child so that one build's heap (glibc
// keeps freed memory) never counts against the next. Inside a child, memory is
// read from /proc/self/status: writing "5" to /proc/self/clear_refs resets the
// peak (VmHWM) to the current RSS, so each phase's peak is measured from its
// own starting point and transient peaks (vector doubling) are included. The
// edge stream and the names are made before the reset, so they are not counted.
//
//   build_bench [vertices] [edges-per-vertex] [repetitions]

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "dag/dag.h"

#include "process_memory.hpp"

namespace {

struct Edge {
    std::uint32_t from, to;
};

struct Result {
    double vertex_ns = 0;  // whole vertex phase, ns
    double edge_ns = 0;    // whole edge phase, ns
    long vertex_bytes = 0; // peak RSS of the vertex phase above its start
    long edge_bytes = 0;   // peak RSS of the edge phase above its start
    long vertex_faults = 0; // minor page faults of the vertex phase
    long edge_faults = 0;   // minor page faults of the edge phase
    std::uint64_t distinct_edges = 0;
};

// Starts a phase: returns the RSS (bytes) the phase's peak is measured from.
long begin_phase() {
    process_memory::reset_peak();
    return process_memory::rss_kb() * 1024;
}

long phase_peak(long start) { return process_memory::peak_kb() * 1024 - start; }

double now_ns() {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(dag_status s, const char *what) {
    if (s != DAG_OK) {
        std::fprintf(stderr, "%s: %s\n", what, dag_status_string(s));
        std::exit(1);
    }
}

// Vertex i gets `per_vertex` edges to uniform targets below it, so the graph
// is acyclic; vertex 0 has none, so the last vertex takes its share to keep
// the total at vertices * per_vertex. Duplicates are left in on purpose.
std::vector<Edge> make_edges(std::uint32_t vertices, std::uint32_t per_vertex) {
    std::mt19937_64 rng(0x5eed);
    std::vector<Edge> edges;
    edges.reserve(std::size_t(vertices) * per_vertex);
    auto emit = [&](std::uint32_t from) {
        for (std::uint32_t k = 0; k < per_vertex; ++k)
            edges.push_back({from, std::uniform_int_distribution<std::uint32_t>(0, from - 1)(rng)});
    };
    for (std::uint32_t v = 1; v < vertices; ++v) emit(v);
    if (vertices > 1) emit(vertices - 1);
    return edges;
}

struct Csr {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> targets;
};

// Rows keyed by `row(e)` holding `col(e)`, each row sorted and deduplicated so
// the edge count can be checked against dag_edge_count(); 32-bit entries,
// 64-bit offsets.
template <class Row, class Col>
Csr make_csr(std::uint32_t vertices, const std::vector<Edge> &edges, Row row, Col col) {
    Csr c;
    c.offsets.assign(std::size_t(vertices) + 1, 0);
    for (const Edge &e : edges) ++c.offsets[row(e) + 1];
    for (std::uint32_t v = 0; v < vertices; ++v) c.offsets[v + 1] += c.offsets[v];
    c.targets.resize(edges.size());
    std::vector<std::uint64_t> fill(c.offsets.begin(), c.offsets.end() - 1);
    for (const Edge &e : edges) c.targets[fill[row(e)]++] = col(e);
    fill = {};
    std::uint64_t out = 0;
    for (std::uint32_t v = 0; v < vertices; ++v) {
        auto first = c.targets.begin() + std::ptrdiff_t(c.offsets[v]);
        auto last = c.targets.begin() + std::ptrdiff_t(c.offsets[v + 1]);
        std::sort(first, last);
        auto end = std::unique(first, last);
        c.offsets[v] = out;
        out = std::uint64_t(std::copy(first, end, c.targets.begin() + std::ptrdiff_t(out)) - c.targets.begin());
    }
    c.offsets[vertices] = out;
    c.targets.resize(out);
    return c;
}

// The baseline is out-edges only, as a plain CSR is; `with_in` adds the
// in-edge CSR too, the floor for a store that also answers dependents.
Result build_csr(std::uint32_t vertices, const std::vector<Edge> &edges, bool with_in) {
    Result r;
    long start = begin_phase();
    const long f0 = process_memory::minor_faults();
    double t0 = now_ns();
    Csr out = make_csr(vertices, edges, [](const Edge &e) { return e.from; }, [](const Edge &e) { return e.to; });
    Csr in;
    if (with_in) in = make_csr(vertices, edges, [](const Edge &e) { return e.to; }, [](const Edge &e) { return e.from; });
    double t1 = now_ns();
    r.edge_ns = t1 - t0;
    r.edge_faults = process_memory::minor_faults() - f0;
    r.edge_bytes = phase_peak(start);
    r.distinct_edges = out.targets.size();
    if (with_in && in.targets.size() != out.targets.size()) std::exit(3);
    return r;
}

Result build_dag(std::uint32_t vertices, const std::vector<Edge> &edges, bool named, bool bulk) {
    Result r;
    // One contiguous buffer, made before the measured phase.
    std::vector<char> names;
    std::vector<std::size_t> name_at;
    if (named) {
        name_at.reserve(vertices);
        char buf[32];
        for (std::uint32_t v = 0; v < vertices; ++v) {
            int n = std::snprintf(buf, sizeof buf, "v%" PRIu32, v);
            name_at.push_back(names.size());
            names.insert(names.end(), buf, buf + n + 1);
        }
    }
    std::vector<std::uint64_t> ids(vertices);

    dag_graph *g = nullptr;
    long start = begin_phase();
    long f0 = process_memory::minor_faults();
    double t0 = now_ns();
    check(dag_new(&g, nullptr), "dag_new");
    for (std::uint32_t v = 0; v < vertices; ++v)
        check(dag_add_vertex(g, named ? &names[name_at[v]] : nullptr, nullptr, &ids[v], nullptr), "dag_add_vertex");
    double t1 = now_ns();
    r.vertex_ns = t1 - t0;
    r.vertex_faults = process_memory::minor_faults() - f0;
    r.vertex_bytes = phase_peak(start);

    // The bulk row's id pairs are laid out before the clock starts, as a
    // loader that had parsed its input would hold them.
    std::vector<std::uint64_t> pairs;
    if (bulk) {
        pairs.reserve(2 * edges.size());
        for (const Edge &e : edges) {
            pairs.push_back(ids[e.from]);
            pairs.push_back(ids[e.to]);
        }
    }
    start = begin_phase();
    f0 = process_memory::minor_faults();
    t0 = now_ns();
    if (bulk)
        check(dag_connect_many(g, pairs.data(), edges.size(), nullptr), "dag_connect_many");
    else
        for (const Edge &e : edges) check(dag_connect(g, ids[e.from], ids[e.to], nullptr), "dag_connect");
    t1 = now_ns();
    r.edge_ns = t1 - t0;
    r.edge_faults = process_memory::minor_faults() - f0;
    r.edge_bytes = phase_peak(start);
    r.distinct_edges = dag_edge_count(g);
    if (dag_vertex_count(g) != vertices) std::exit(3);
    dag_free(g);
    return r;
}

// Runs `build` in a child process and returns what it measured.
template <class F>
Result in_child(F build) {
    int fds[2];
    if (pipe(fds) != 0) std::exit(2);
    pid_t pid = fork();
    if (pid < 0) std::exit(2);
    if (pid == 0) {
        close(fds[0]);
        Result r = build();
        ssize_t w = write(fds[1], &r, sizeof r);
        _exit(w == ssize_t(sizeof r) ? 0 : 1);
    }
    close(fds[1]);
    Result r;
    ssize_t got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != ssize_t(sizeof r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "benchmark child failed\n");
        std::exit(1);
    }
    return r;
}

}  // namespace

int main(int argc, char **argv) {
    const std::uint32_t vertices = argc > 1 ? std::uint32_t(std::strtoul(argv[1], nullptr, 10)) : 1000000;
    const std::uint32_t per_vertex = argc > 2 ? std::uint32_t(std::strtoul(argv[2], nullptr, 10)) : 4;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
    if (vertices < 2 || per_vertex < 1 || reps < 1) {
        std::fprintf(stderr, "usage: %s [vertices>=2] [edges-per-vertex>=1] [repetitions>=1]\n", argv[0]);
        return 2;
    }
    const std::vector<Edge> edges = make_edges(vertices, per_vertex);

    struct Row {
        const char *label;
        Result best;
    };
    Row rows[] = {{"CSR baseline", {}}, {"CSR out+in", {}}, {"dag, unnamed", {}}, {"dag, named", {}}, {"dag, bulk", {}}};
    // Interleaved repetitions, keeping the fastest time of each row: the
    // machine is shared, and noise only ever adds time. Memory is the same
    // (and page faults) every repetition; the last one's is kept.
    for (int rep = 0; rep < reps; ++rep)
        for (int i = 0; i < 5; ++i) {
            Result r = in_child([&] {
                return i < 2 ? build_csr(vertices, edges, i == 1) : build_dag(vertices, edges, i == 3, i == 4);
            });
            Result &b = rows[i].best;
            if (rep == 0 || r.vertex_ns + r.edge_ns < b.vertex_ns + b.edge_ns) {
                b.vertex_ns = r.vertex_ns;
                b.edge_ns = r.edge_ns;
            }
            b.vertex_bytes = r.vertex_bytes;
            b.edge_bytes = r.edge_bytes;
            b.vertex_faults = r.vertex_faults;
            b.edge_faults = r.edge_faults;
            b.distinct_edges = r.distinct_edges;
        }

    const double e_calls = double(edges.size());
    const Result &csr = rows[0].best;
    const double csr_ns_edge = csr.edge_ns / e_calls;
    const double csr_b_edge = double(csr.edge_bytes) / double(csr.distinct_edges);
    std::printf("%" PRIu32 " vertices, %zu connects (%" PRIu64 " distinct edges, %" PRIu64
                " no-op duplicates), best of %d\n",
                vertices, edges.size(), csr.distinct_edges, std::uint64_t(edges.size()) - csr.distinct_edges, reps);
    std::printf("%-14s %9s %9s %9s %9s %10s %10s %10s %10s\n", "build", "ns/vertex", "ns/edge", "B/vertex", "B/edge",
                "ns/edge:x", "B/edge:x", "flt:vertex", "flt:edge");
    for (const Row &row : rows) {
        const Result &r = row.best;
        if (r.distinct_edges != csr.distinct_edges) {
            std::fprintf(stderr, "%s stored %" PRIu64 " edges, CSR %" PRIu64 "\n", row.label, r.distinct_edges,
                         csr.distinct_edges);
            return 1;
        }
        const double ns_edge = r.edge_ns / e_calls;
        const double b_edge = double(r.edge_bytes) / double(r.distinct_edges);
        std::printf("%-14s %9.1f %9.1f %9.1f %9.1f %10.2f %10.2f %10ld %10ld\n", row.label, r.vertex_ns / vertices,
                    ns_edge, double(r.vertex_bytes) / vertices, b_edge, ns_edge / csr_ns_edge, b_edge / csr_b_edge,
                    r.vertex_faults, r.edge_faults);
    }
    std::printf("ns/edge is per edge connected (dag_connect call, or pair given to dag_connect_many; no-ops\n"
                "included); B/edge is per distinct edge;\n"
                "CSR rows have no vertex phase (their offsets count as edge-phase memory);\n"
                ":x columns are ratios to the CSR baseline; flt: minor page faults of each whole phase\n"
                "(about 11.6 us each on the VMs of bench/README.md).\n");
    return 0;
}
