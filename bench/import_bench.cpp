// Import of large files through the public C API (issues 12 and 21): a
// named graph like `terraform graph` gives (Terraform addresses, each vertex
// depending on up to 4 earlier ones) is written once as libdag JSON and as
// DOT with dag_export_graph, then read back with dag_import_graph_file, the
// call a user makes, building the graph included. The peer for DOT is
// Graphviz's own parser, `gc -n -e` (parse and count only), run on the same
// file when `gc` is on PATH (Debian's graphviz package).
//
// Each row: the first import (cold) and the best of the next three, in MB/s
// of file and ns per vertex, with minor page faults and the peak RSS during
// the row.
//
// A child's peak RSS counts what it was forked from (Linux carries the
// forking process's resident set into the child's maximum across exec), so
// the process that built and wrote the graph executes this program again,
// small, which runs `gc` first and imports after.
//
//   import_bench [VERTICES] [DIR]     (defaults: 100000, /tmp)
//
// The files are removed at the end unless DAG_BENCH_KEEP is set, for
// timing other readers (`dag`, `gc`, `dot`) on the same files.
#include "bench_files.hpp"
#include "process_memory.hpp"

#include <dag/dag.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace bench_files;

struct Usage {
    double seconds;
    long faults;
};

Usage usage_now() {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
            process_memory::minor_faults()};
}

void print_row(const char *what, double seconds, std::size_t bytes, std::size_t n, long faults, long peak_kb) {
    std::printf("%-34s %8.1f ms %8.1f MB/s %8.0f ns/vertex %8ld faults %6.0f MB peak\n", what, seconds * 1e3,
                static_cast<double>(bytes) / seconds / 1e6, seconds * 1e9 / static_cast<double>(n), faults,
                peak_kb / 1024.0);
}

void time_import(const char *label, dag_format format, const std::string &path, std::size_t bytes, std::size_t n,
                 std::size_t edges) {
    double best = 1e9;
    long best_faults = 0;
    for (int run = 0; run < 4; ++run) {
        if (run < 2) process_memory::reset_peak();
        dag_graph *g = nullptr;
        dag_error *err = nullptr;
        const Usage a = usage_now();
        check(dag_import_graph_file(format, path.c_str(), &g, &err), err, "dag_import_graph_file");
        const Usage b = usage_now();
        if (dag_vertex_count(g) != n || dag_edge_count(g) != edges) {
            std::fprintf(stderr, "%s: read %zu vertices and %zu edges, wrote %zu and %zu\n", label,
                         dag_vertex_count(g), dag_edge_count(g), n, edges);
            std::exit(1);
        }
        dag_free(g);
        const double s = b.seconds - a.seconds;
        if (run == 0) {
            print_row((std::string(label) + ", cold").c_str(), s, bytes, n, b.faults - a.faults,
                      process_memory::peak_kb());
        } else if (s < best) {
            best = s;
            best_faults = b.faults - a.faults;
        }
    }
    print_row((std::string(label) + ", best of 3").c_str(), best, bytes, n, best_faults, process_memory::peak_kb());
}

// Graphviz's parser on the same file, in a child process; its own peak RSS
// comes from the child's rusage.
void time_gc(const std::string &path, std::size_t bytes, std::size_t n) {
    double best = 1e9;
    long faults = 0, peak = 0;
    for (int run = 0; run < 3; ++run) {
        const ChildRun r = run_child({"gc", "-n", "-e", path});
        if (!r.ok) {
            std::fprintf(stderr, "gc -n -e %s failed\n", path.c_str());
            return;
        }
        if (r.seconds < best) {
            best = r.seconds;
            faults = r.faults;
        }
        peak = r.peak_kb;
    }
    print_row("Graphviz gc -n -e, best of 3", best, bytes, n, faults, peak);
}

// The second process: runs gc while small, then imports.
int measure(std::size_t n, std::size_t edges, const std::string &dir) {
    const std::string json = dir + "/import_bench.json", dot = dir + "/import_bench.dot";
    const std::size_t json_bytes = file_size(json), dot_bytes = file_size(dot);
    std::printf("import_bench: %zu named vertices, %zu edges; JSON %.1f MB, DOT %.1f MB; libdag %s\n", n, edges,
                json_bytes / 1e6, dot_bytes / 1e6, dag_version_string());
    if (on_path("gc"))
        time_gc(dot, dot_bytes, n);
    else
        std::printf("Graphviz gc not on PATH (apt-get install graphviz): its row is skipped\n");
    time_import("JSON dag_import_graph_file", DAG_FORMAT_JSON, json, json_bytes, n, edges);
    time_import("DOT dag_import_graph_file", DAG_FORMAT_DOT, dot, dot_bytes, n, edges);
    if (!std::getenv("DAG_BENCH_KEEP")) {
        std::remove(json.c_str());
        std::remove(dot.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc == 5 && std::string(argv[1]) == "--measure")
        return measure(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10), argv[4]);
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    dag_graph *g = named_graph(n);
    const std::string edges = std::to_string(dag_edge_count(g)), count = std::to_string(n);
    write_file(g, DAG_FORMAT_JSON, dir + "/import_bench.json");
    write_file(g, DAG_FORMAT_DOT, dir + "/import_bench.dot");
    dag_free(g);
    std::fflush(stdout);
    std::vector<char *> again = {argv[0], const_cast<char *>("--measure"), const_cast<char *>(count.c_str()),
                                 const_cast<char *>(edges.c_str()), const_cast<char *>(dir.c_str()), nullptr};
    execv("/proc/self/exe", again.data());
    std::perror("import_bench: executing itself again");
    return 1;
}
