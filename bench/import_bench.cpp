// Import of large files through the public C API (issues 12 and 21): a
// named graph like `terraform graph` gives (Terraform addresses, each vertex
// depending on up to 4 earlier ones) is written once as libdag JSON and as
// DOT with dag_export_graph, then read back with dag_import_graph_file, the
// call a user makes, building the graph included. The peer for DOT is
// Graphviz's own parser, `gc -n -e` (parse and count only), run on the same
// file when `gc` is on PATH (Debian's graphviz package).
//
// Each row: the first import (cold) and the best of the next three, in MB/s
// of file and ns per vertex, with minor page faults and peak RSS.
//
//   import_bench [VERTICES] [DIR]     (defaults: 100000, /tmp)
//
// The files are removed at the end unless DAG_BENCH_KEEP is set, for
// timing other readers (`dag`, `gc`, `dot`) on the same files.
#include <dag/dag.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Usage {
    double seconds;
    long faults;
    long peak_kb;
};

Usage usage_now() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(), ru.ru_minflt,
            ru.ru_maxrss};
}

void check(dag_status st, dag_error *err, const char *what) {
    if (st == DAG_OK) return;
    std::fprintf(stderr, "%s: %s\n", what, err ? dag_error_message(err) : dag_status_string(st));
    std::exit(1);
}

std::string address(std::size_t i) {
    return "module.m" + std::to_string(i % 100) + ".aws_instance.r" + std::to_string(i);
}

dag_graph *named_graph(std::size_t n) {
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    check(dag_new(&g, &err), err, "dag_new");
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t id = 0;
        check(dag_add_vertex(g, address(i).c_str(), nullptr, &id, &err), err, "dag_add_vertex");
    }
    std::vector<std::uint64_t> pairs;
    std::mt19937_64 rng(42);
    for (std::size_t i = 1; i < n; ++i)
        for (int k = 0; k < 4; ++k) {
            pairs.push_back(i + 1);
            pairs.push_back(rng() % i + 1);
        }
    check(dag_connect_many(g, pairs.data(), pairs.size() / 2, &err), err, "dag_connect_many");
    return g;
}

std::size_t write_file(const dag_graph *g, dag_format format, const std::string &path) {
    char *text = nullptr;
    dag_error *err = nullptr;
    check(dag_export_graph(g, format, &text, &err), err, "dag_export_graph");
    const std::size_t size = std::strlen(text);
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(text, 1, size, f) != size || std::fclose(f) != 0) {
        std::perror(path.c_str());
        std::exit(1);
    }
    dag_string_free(text);
    return size;
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
            print_row((std::string(label) + ", cold").c_str(), s, bytes, n, b.faults - a.faults, b.peak_kb);
        } else if (s < best) {
            best = s;
            best_faults = b.faults - a.faults;
        }
    }
    print_row((std::string(label) + ", best of 3").c_str(), best, bytes, n, best_faults, usage_now().peak_kb);
}

bool on_path(const char *program) {
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        std::size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        const std::string candidate = dirs.substr(start, end - start) + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) return true;
        start = end + 1;
    }
    return false;
}

// Graphviz's parser on the same file, in a child process; its own peak RSS
// comes from the child's rusage.
void time_gc(const std::string &path, std::size_t bytes, std::size_t n) {
    double best = 1e9;
    long peak = 0;
    for (int run = 0; run < 3; ++run) {
        // The child would flush a copy of what is buffered here.
        std::fflush(stdout);
        const auto t0 = std::chrono::steady_clock::now();
        const pid_t pid = fork();
        if (pid == 0) {
            if (!std::freopen("/dev/null", "w", stdout)) _exit(127);
            execlp("gc", "gc", "-n", "-e", path.c_str(), static_cast<char *>(nullptr));
            _exit(127);
        }
        int status = 0;
        rusage ru{};
        if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "gc -n -e %s failed\n", path.c_str());
            return;
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
        peak = ru.ru_maxrss;
    }
    print_row("Graphviz gc -n -e, best of 3", best, bytes, n, 0, peak);
}

}  // namespace

int main(int argc, char **argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    dag_graph *g = named_graph(n);
    const std::size_t edges = dag_edge_count(g);
    const std::string json = dir + "/import_bench.json", dot = dir + "/import_bench.dot";
    const std::size_t json_bytes = write_file(g, DAG_FORMAT_JSON, json);
    const std::size_t dot_bytes = write_file(g, DAG_FORMAT_DOT, dot);
    dag_free(g);
    std::printf("import_bench: %zu named vertices, %zu edges; JSON %.1f MB, DOT %.1f MB; libdag %s\n", n, edges,
                json_bytes / 1e6, dot_bytes / 1e6, dag_version_string());
    time_import("JSON dag_import_graph_file", DAG_FORMAT_JSON, json, json_bytes, n, edges);
    time_import("DOT dag_import_graph_file", DAG_FORMAT_DOT, dot, dot_bytes, n, edges);
    if (on_path("gc"))
        time_gc(dot, dot_bytes, n);
    else
        std::printf("Graphviz gc not on PATH (apt-get install graphviz): its row is skipped\n");
    if (!std::getenv("DAG_BENCH_KEEP")) {
        std::remove(json.c_str());
        std::remove(dot.c_str());
    }
    return 0;
}
