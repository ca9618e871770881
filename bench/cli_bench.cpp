// The `dag` program end to end on large files (issue 15): `dag validate`,
// `dag order` and `dag walk` (its dry run, which prints each vertex as it
// runs) on a named graph like `terraform graph` gives, written as DOT and as
// libdag JSON. Each command is a fresh process, timed from fork to exit with
// its own minor page faults and peak RSS (from wait4). Next to them,
// dag_import_graph_file on the same file in this process (the call every
// command starts with), timed on its own: a share of the command's time
// computed from the two would divide numbers from different processes, so
// none is printed. The peer is Graphviz's own
// parser, `gc -n -e` (parse and count only), on the same DOT file, when `gc`
// is on PATH.
//
// A child's peak RSS counts what it was forked from (Linux carries the
// forking process's resident set into the child's maximum across exec), so
// the files are written by one process, which then executes this program
// again, small, to fork the commands; the parse rows come last.
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

// A failed run ends the benchmark: its time is not the command's.
ChildRun run_or_exit(const std::vector<std::string> &argv) {
    const ChildRun r = run_child(argv);
    if (!r.ok) {
        std::fprintf(stderr, "%s %s %s failed\n", argv[0].c_str(), argv[1].c_str(), argv.back().c_str());
        std::exit(1);
    }
    return r;
}

Timing time_command(const std::vector<std::string> &argv) {
    Timing t{run_or_exit(argv), {}};
    t.best.seconds = 1e9;
    for (int run = 0; run < repeats; ++run) {
        const ChildRun r = run_or_exit(argv);
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

void print_row(const std::string &what, const ChildRun &r, std::size_t bytes) {
    std::printf("%-30s %9.1f ms %7.1f MB/s %9ld faults %6.0f MB peak\n", what.c_str(), r.seconds * 1e3,
                static_cast<double>(bytes) / r.seconds / 1e6, r.faults, r.peak_kb / 1024.0);
}

void time_file(const char *label, dag_format format, const std::string &dag, const std::string &path,
               std::size_t bytes) {
    const std::vector<std::vector<std::string>> commands = {
        {dag, "validate", "--no-single-root", path}, {dag, "order", path}, {dag, "walk", path}};
    std::vector<Timing> timings;
    for (const auto &argv : commands) timings.push_back(time_command(argv));
    const double parse = time_parse(format, path);
    std::printf("%-30s %9.1f ms %7.1f MB/s   (in process, best of %d)\n",
                (std::string(label) + " parse").c_str(), parse * 1e3, static_cast<double>(bytes) / parse / 1e6,
                repeats > 0 ? repeats : 1);
    for (std::size_t i = 0; i < commands.size(); ++i) {
        const std::string name = std::string(label) + " dag " + commands[i][1];
        print_row(name + ", first", timings[i].first, bytes);
        if (repeats > 0) print_row(name + ", best of " + std::to_string(repeats), timings[i].best, bytes);
    }
}

// The second process: forks the commands while still small.
int measure(std::size_t n, const std::string &dir, const std::string &dag) {
    const std::string json = dir + "/cli_bench.json", dot = dir + "/cli_bench.dot";
    const std::size_t json_bytes = file_size(json), dot_bytes = file_size(dot);
    std::printf("cli_bench: %zu named vertices; DOT %.1f MB, JSON %.1f MB; libdag %s; %s\n", n, dot_bytes / 1e6,
                json_bytes / 1e6, dag_version_string(), dag.c_str());
    if (on_path("gc")) {
        const Timing t = time_command({"gc", "-n", "-e", dot});
        print_row("Graphviz gc -n -e, first", t.first, dot_bytes);
        if (repeats > 0) print_row("Graphviz gc -n -e, best of " + std::to_string(repeats), t.best, dot_bytes);
    } else {
        std::printf("Graphviz gc not on PATH (apt-get install graphviz): its row is skipped\n");
    }
    time_file("JSON", DAG_FORMAT_JSON, dag, json, json_bytes);
    time_file("DOT", DAG_FORMAT_DOT, dag, dot, dot_bytes);
    std::remove(json.c_str());
    std::remove(dot.c_str());
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const bool measuring = argc > 1 && std::string(argv[1]) == "--measure";
    const int at = measuring ? 2 : 1;
    const std::size_t n = argc > at ? std::strtoull(argv[at], nullptr, 10) : 100000;
    const std::string dir = argc > at + 1 ? argv[at + 1] : "/tmp";
    repeats = argc > at + 2 ? std::atoi(argv[at + 2]) : 3;
    const std::string dag = argc > at + 3 ? argv[at + 3] : DAG_CLI_PATH;
    if (measuring) return measure(n, dir, dag);
    dag_graph *g = named_graph(n);
    write_file(g, DAG_FORMAT_JSON, dir + "/cli_bench.json");
    write_file(g, DAG_FORMAT_DOT, dir + "/cli_bench.dot");
    dag_free(g);
    const std::string count = std::to_string(n), times = std::to_string(repeats);
    std::vector<char *> again = {argv[0], const_cast<char *>("--measure"), const_cast<char *>(count.c_str()),
                                 const_cast<char *>(dir.c_str()), const_cast<char *>(times.c_str()),
                                 const_cast<char *>(dag.c_str()), nullptr};
    execv("/proc/self/exe", again.data());
    std::perror("cli_bench: executing itself again");
    return 1;
}
