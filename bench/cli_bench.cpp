// The `dag` program end to end on large files (issue 15): `dag validate`,
// `dag order` and `dag walk` (its dry run, which prints each vertex as it
// runs) on a named graph like `terraform graph` gives, written as DOT and as
// libdag JSON. Each command is a fresh process, timed from fork to exit with
// its own minor page faults and peak RSS (from wait4). The parse share is
// dag_import_graph_file on the same file in this process (the call every
// command starts with) over the command's time. The peer is Graphviz's own
// parser, `gc -n -e` (parse and count only), on the same DOT file, when `gc`
// is on PATH.
//
// Each row: the first run and the best of the next REPEATS (the
// `dag validate` rows check without Terraform's single-root rule, which a
// generated graph of many roots fails).
//
//   cli_bench [VERTICES] [DIR] [REPEATS] [DAG]
//
// Defaults: 100000, /tmp, 3, the dag built here. At 10^6 vertices the DOT
// rows take minutes each: REPEATS 0 times each command once.
#include "bench_files.hpp"

#include <dag/dag.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace bench_files;

struct Timing {
    ChildRun first;
    ChildRun best;
};

int repeats = 3;

Timing time_command(const std::vector<std::string> &argv) {
    Timing t{run_child(argv), {}};
    if (!t.first.ok) {
        std::fprintf(stderr, "%s %s %s failed\n", argv[0].c_str(), argv[1].c_str(), argv.back().c_str());
        std::exit(1);
    }
    t.best.seconds = 1e9;
    for (int run = 0; run < repeats; ++run) {
        const ChildRun r = run_child(argv);
        if (r.seconds < t.best.seconds) t.best = r;
    }
    return t;
}

double time_parse(dag_format format, const std::string &path) {
    double best = 1e9;
    for (int run = 0; run < (repeats > 0 ? repeats : 1); ++run) {
        dag_graph *g = nullptr;
        dag_error *err = nullptr;
        const auto t0 = std::chrono::steady_clock::now();
        check(dag_import_graph_file(format, path.c_str(), &g, &err), err, "dag_import_graph_file");
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        dag_free(g);
        if (s < best) best = s;
    }
    return best;
}

void print_row(const std::string &what, const ChildRun &r, std::size_t bytes, double parse) {
    std::printf("%-30s %9.1f ms %7.1f MB/s %9ld faults %6.0f MB peak", what.c_str(), r.seconds * 1e3,
                static_cast<double>(bytes) / r.seconds / 1e6, r.faults, r.peak_kb / 1024.0);
    if (parse > 0) std::printf("   parse %3.0f%%", 100.0 * parse / r.seconds);
    std::printf("\n");
}

void time_file(const char *label, dag_format format, const std::string &dag, const std::string &path,
               std::size_t bytes) {
    const double parse = time_parse(format, path);
    std::printf("%-30s %9.1f ms %7.1f MB/s   (in process, best of %d)\n",
                (std::string(label) + " parse").c_str(), parse * 1e3, static_cast<double>(bytes) / parse / 1e6, repeats > 0 ? repeats : 1);
    const std::vector<std::vector<std::string>> commands = {
        {dag, "validate", "--no-single-root", path}, {dag, "order", path}, {dag, "walk", path}};
    for (const auto &argv : commands) {
        const Timing t = time_command(argv);
        const std::string name = std::string(label) + " dag " + argv[1];
        print_row(name + ", first", t.first, bytes, parse);
        if (repeats > 0) print_row(name + ", best of " + std::to_string(repeats), t.best, bytes, parse);
    }
}

}  // namespace

int main(int argc, char **argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    repeats = argc > 3 ? std::atoi(argv[3]) : 3;
    const std::string dag = argc > 4 ? argv[4] : DAG_CLI_PATH;
    dag_graph *g = named_graph(n);
    const std::size_t edges = dag_edge_count(g);
    const std::string json = dir + "/cli_bench.json", dot = dir + "/cli_bench.dot";
    const std::size_t json_bytes = write_file(g, DAG_FORMAT_JSON, json);
    const std::size_t dot_bytes = write_file(g, DAG_FORMAT_DOT, dot);
    dag_free(g);
    std::printf("cli_bench: %zu named vertices, %zu edges; DOT %.1f MB, JSON %.1f MB; libdag %s; %s\n", n, edges,
                dot_bytes / 1e6, json_bytes / 1e6, dag_version_string(), dag.c_str());
    time_file("DOT", DAG_FORMAT_DOT, dag, dot, dot_bytes);
    time_file("JSON", DAG_FORMAT_JSON, dag, json, json_bytes);
    if (on_path("gc")) {
        const Timing t = time_command({"gc", "-n", "-e", dot});
        print_row("Graphviz gc -n -e, first", t.first, dot_bytes, 0);
        if (repeats > 0) print_row("Graphviz gc -n -e, best of " + std::to_string(repeats), t.best, dot_bytes, 0);
    } else {
        std::printf("Graphviz gc not on PATH (apt-get install graphviz): its row is skipped\n");
    }
    std::remove(json.c_str());
    std::remove(dot.c_str());
    return 0;
}
