// Graphs as users have them (issue 21): every vertex named, 10^5 to 10^7
// vertices, through the public C API only, next to Boost.Graph's own
// topological_sort on the same edges. Random graphs, each vertex depending
// on up to 4 earlier ones; names like Terraform's addresses
// (`module.m17.aws_instance.r123456`), which share most of their bytes.
//
// Each row: wall time (per vertex or per edge), minor page faults and the
// process's peak RSS during the row (what earlier rows left resident
// included).
//
//   scale_bench VERTICES named|sorted|unnamed
//
// `sorted` names the same vertices with the same names, handed out in name
// order (vertex i has the i-th smallest), as a graph read from a DOT file
// libdag wrote has them: the orders then skip the name sort and renumbering.
#include <dag/dag.h>

#include <sys/resource.h>

#include "api_check.hpp"
#include "process_memory.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

struct Usage {
    double seconds;
    double cpu_seconds;
    long faults;
};

double seconds_of(const timeval &t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

Usage usage_now() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
            seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime), ru.ru_minflt};
}

// Times `f`, printing one row: wall time per unit in ns, the process's CPU
// time per unit (the same on an idle machine; on a busy one, wall time also
// counts waiting for a core), faults, peak RSS during the row.
void row(const char *what, double units, const char *unit, const std::function<void()> &f) {
    process_memory::reset_peak();
    const Usage a = usage_now();
    f();
    const Usage b = usage_now();
    std::printf("%-42s %9.1f ns/%-6s (cpu %9.1f) %9.1f ms %9ld faults %7.0f MB peak\n", what,
                (b.seconds - a.seconds) * 1e9 / units, unit, (b.cpu_seconds - a.cpu_seconds) * 1e9 / units,
                (b.seconds - a.seconds) * 1e3, b.faults - a.faults, process_memory::peak_kb() / 1024.0);
}

std::string address(std::size_t i) {
    return "module.m" + std::to_string(i % 100) + ".aws_instance.r" + std::to_string(i);
}

}  // namespace

int main(int argc, char **argv) {
    const bool sorted = argc == 3 && std::strcmp(argv[2], "sorted") == 0;
    const bool named = sorted || (argc == 3 && std::strcmp(argv[2], "named") == 0);
    if (argc != 3 || (!named && std::strcmp(argv[2], "unnamed") != 0)) {
        std::fprintf(stderr, "usage: scale_bench VERTICES named|sorted|unnamed\n");
        return 2;
    }
    const std::size_t n = std::strtoull(argv[1], nullptr, 10);
    std::printf("scale_bench: %zu vertices, %s, libdag %s\n", n, argv[2], dag_version_string());

    // Inputs are made before any row, so rows time only libdag.
    std::vector<std::string> names;
    if (named) {
        names.reserve(n);
        for (std::size_t i = 0; i < n; ++i) names.push_back(address(i));
        if (sorted) std::sort(names.begin(), names.end());
    }
    std::vector<std::uint64_t> pairs;
    pairs.reserve(8 * n);
    std::mt19937_64 rng(42);
    for (std::size_t i = 1; i < n; ++i)
        for (int k = 0; k < 4; ++k) {
            pairs.push_back(i + 1);
            pairs.push_back(rng() % i + 1);
        }
    std::vector<std::size_t> probes(std::min<std::size_t>(n, 1000000));
    for (auto &p : probes) p = rng() % n;
    const long rss_before = process_memory::rss_kb();

    dag_graph *g = nullptr;
    check(dag_new(&g, nullptr), nullptr, "dag_new");
    dag_error *err = nullptr;
    row(named ? "add a named vertex" : "add an unnamed vertex", n, "vertex", [&] {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t id = 0;
            check(dag_add_vertex(g, named ? names[i].c_str() : nullptr, nullptr, &id, &err), err, "dag_add_vertex");
        }
    });
    // The same vertices in one batch call, into a graph of their own.
    {
        std::vector<const char *> batch(n, nullptr);
        if (named)
            for (std::size_t i = 0; i < n; ++i) batch[i] = names[i].c_str();
        dag_graph *h = nullptr;
        check(dag_new(&h, nullptr), nullptr, "dag_new");
        row("  the same, one dag_add_vertices call", n, "vertex", [&] {
            check(dag_add_vertices(h, named ? batch.data() : nullptr, nullptr, n, nullptr, &err), err, "dag_add_vertices");
        });
        dag_free(h);
    }
    // The probes read names at random from the benchmark's own array, a
    // cache miss of their own: this row times that alone, for subtracting.
    if (named)
        row("  the probe loop alone (strlen)", probes.size(), "call", [&] {
            std::size_t sum = 0;
            for (std::size_t p : probes) sum += std::strlen(names[p].c_str());
            if (sum == 0) std::puts("");
        });
    if (named)
        row("dag_find_vertex (random names)", probes.size(), "call", [&] {
            std::uint64_t sum = 0;
            for (std::size_t p : probes) {
                std::uint64_t id = 0;
                check(dag_find_vertex(g, names[p].c_str(), &id, &err), err, "dag_find_vertex");
                sum += id;
            }
            if (sum == 0) std::puts("");
        });
    if (named) {
        std::vector<const char *> asked(probes.size());
        for (std::size_t i = 0; i < probes.size(); ++i) asked[i] = names[probes[i]].c_str();
        std::vector<std::uint64_t> ids(probes.size());
        row("  the same, one dag_find_vertices call", probes.size(), "call", [&] {
            check(dag_find_vertices(g, asked.data(), asked.size(), ids.data(), &err), err, "dag_find_vertices");
        });
    }
    // connect_many de-duplicates, so the edge count is read back.
    row("dag_connect_many (4 per vertex)", pairs.size() / 2, "edge",
        [&] { check(dag_connect_many(g, pairs.data(), pairs.size() / 2, &err), err, "dag_connect_many"); });
    const std::size_t edges = dag_edge_count(g);
    const long rss_store = process_memory::rss_kb() - rss_before;
    std::printf("%-44s %10.1f B/vertex (%zu edges)\n", "store after building", rss_store * 1024.0 / n, edges);

    auto order = [&](bool reverse) {
        dag_ids *ids = nullptr;
        check(reverse ? dag_reverse_topological_order(g, &ids, &err) : dag_topological_order(g, &ids, &err), err,
              "order");
        dag_ids_free(ids);
    };
    row("reverse_topological_order, cold", n, "vertex", [&] { order(true); });
    std::printf("%-44s %10.1f B/vertex\n", "store + what the first order keeps",
                (process_memory::rss_kb() - rss_before) * 1024.0 / n);
    row("reverse_topological_order, warm", n, "vertex", [&] { order(true); });
    // The first order the other way: on a named graph it renumbers the
    // neighbour lists it reads, which the reverse orders did not need.
    row("topological_order, first", n, "vertex", [&] { order(false); });
    row("topological_order, warm", n, "vertex", [&] { order(false); });
    auto validate = [&] {
        // Random graphs have many roots; the check is for cycles.
        dag_validate_options opts = DAG_VALIDATE_OPTIONS_INIT;
        opts.single_root = 0;
        dag_validation *v = nullptr;
        check(dag_validate(g, &opts, &v, &err), err, "dag_validate");
        dag_validation_free(v);
    };
    row("dag_validate, warm", n, "vertex", validate);
    auto walk = [&] {
        dag_walk_options opts = DAG_WALK_OPTIONS_INIT;
        opts.parallelism = 1;
        opts.threads = 1;
        check(dag_walk(
                  g, [](dag_walker *, uint64_t, const char **, void *) noexcept { return DAG_WALK_OK; }, nullptr,
                  &opts, nullptr, &err),
              err, "dag_walk");
    };
    row("dag_walk, empty callback, 1 thread, first", n, "vertex", walk);
    std::printf("%-44s %10.1f B/vertex\n", "store + order + first walk keep",
                (process_memory::rss_kb() - rss_before) * 1024.0 / n);
    row("dag_walk, empty callback, 1 thread, warm", n, "vertex", walk);
    // A walk that hands out a report also times every vertex: 16 bytes a
    // vertex more than one without.
    auto reported_walk = [&] {
        dag_walk_options opts = DAG_WALK_OPTIONS_INIT;
        opts.parallelism = 1;
        opts.threads = 1;
        dag_walk_report *report = nullptr;
        check(dag_walk(
                  g, [](dag_walker *, uint64_t, const char **, void *) noexcept { return DAG_WALK_OK; }, nullptr,
                  &opts, &report, &err),
              err, "dag_walk");
        dag_walk_report_free(report);
    };
    row("dag_walk with a report, first", n, "vertex", reported_walk);
    std::printf("%-44s %10.1f B/vertex\n", "store + order + walk with a report keep",
                (process_memory::rss_kb() - rss_before) * 1024.0 / n);
    row("dag_walk with a report, warm", n, "vertex", reported_walk);
    if (n <= 1000000) {
        dag_graph *copy = nullptr;
        check(dag_clone(g, &copy, &err), err, "dag_clone");
        row("dag_transitive_reduction", n, "vertex", [&] {
            std::size_t removed = 0;
            check(dag_transitive_reduction(copy, &removed, &err), err, "dag_transitive_reduction");
        });
        dag_free(copy);
    }
    // A change drops the cached snapshot: the next order is cold again.
    {
        std::uint64_t id = 0;
        check(dag_add_vertex(g, named ? "module.extra.aws_instance.new" : nullptr, nullptr, &id, &err), err, "add");
        check(dag_connect(g, id, 1, &err), err, "connect");
    }
    row("reverse_topological_order, after one add", n, "vertex", [&] { order(true); });
    row("dag_validate, cold after one add", n, "vertex", [&] {
        std::uint64_t id = 0;
        check(dag_add_vertex(g, named ? "module.extra.aws_instance.new2" : nullptr, nullptr, &id, &err), err, "add");
        validate();
    });
    dag_free(g);

    // The peer: Boost.Graph's own adjacency_list and topological_sort on the
    // same edges, cold (first call) and again.
    using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
    const long rss_boost = process_memory::rss_kb();
    BoostGraph bg(n);
    row("Boost.Graph: add_edge (same edges)", pairs.size() / 2, "edge", [&] {
        for (std::size_t k = 0; k < pairs.size(); k += 2) boost::add_edge(pairs[k] - 1, pairs[k + 1] - 1, bg);
    });
    std::printf("%-44s %10.1f B/vertex\n", "Boost.Graph store", (process_memory::rss_kb() - rss_boost) * 1024.0 / n);
    for (const char *when : {"Boost.Graph topological_sort, cold", "Boost.Graph topological_sort, warm"}) {
        row(when, n, "vertex", [&] {
            std::vector<std::size_t> out;
            out.reserve(n);
            boost::topological_sort(bg, std::back_inserter(out));
        });
    }
    return 0;
}
