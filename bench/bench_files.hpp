// What the file benchmarks share (import_bench, cli_bench): a named graph
// like `terraform graph` gives (Terraform addresses, each vertex depending on
// up to 4 earlier ones), written as a file with dag_export_graph, and a child
// process timed with its own minor page faults and peak RSS.
#pragma once

#include <dag/dag.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace bench_files {

inline void check(dag_status st, dag_error *err, const char *what) {
    if (st == DAG_OK) return;
    std::fprintf(stderr, "%s: %s\n", what, err ? dag_error_message(err) : dag_status_string(st));
    std::exit(1);
}

inline std::string address(std::size_t i) {
    return "module.m" + std::to_string(i % 100) + ".aws_instance.r" + std::to_string(i);
}

inline dag_graph *named_graph(std::size_t n) {
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

inline std::size_t write_file(const dag_graph *g, dag_format format, const std::string &path) {
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

inline std::size_t file_size(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f || std::fseek(f, 0, SEEK_END) != 0) {
        std::perror(path.c_str());
        std::exit(1);
    }
    const long size = std::ftell(f);
    std::fclose(f);
    return static_cast<std::size_t>(size);
}

inline bool on_path(const char *program) {
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

struct ChildRun {
    bool ok;
    double seconds;
    long faults;
    long peak_kb;
};

// Runs argv with standard output and error to /dev/null; the child's faults and peak
// RSS come from its own rusage, so the parent's memory does not count.
inline ChildRun run_child(const std::vector<std::string> &argv) {
    std::vector<char *> args;
    for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    // The child would flush a copy of what is buffered here.
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) _exit(127);
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    const bool waited = pid > 0 && wait4(pid, &status, 0, &ru) == pid;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {waited && WIFEXITED(status) && WEXITSTATUS(status) == 0, s, ru.ru_minflt, ru.ru_maxrss};
}

}  // namespace bench_files
