// Graph building from declarations through the public C API (issue 18):
//
//  1. resolving R references against P providers (default 10^6 against 10^5)
//     with the "references" step, next to a straightforward resolution in
//     this file: a std::map of the provided addresses, each reference's
//     prefixes looked up longest first, then the edges added with
//     dag_connect_many (the same edges result; checked pair by pair);
//  2. a plan of V vertices (default 10^5) through every standard step
//     (references, destroy order, shared with close vertices, root,
//     transitive reduction, validation), timed per step by the observer.
//
// Times are the best of the repetitions, each on the same declarations and
// plan; declaring (dag_builder_reference per address) is reported apart from
// the build, and the ratios to the std::map resolution are given without
// and with it. "validation" is dag_build's time outside its steps. Next to
// each time: the minor page faults of the best run, and the peak RSS above
// the round's start (the declarations' strings, made before, not counted).
//
//   plan_bench [providers] [references] [plan-vertices] [repetitions]

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dag/dag.h"

#include "api_check.hpp"
#include "process_memory.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Declarations {
    std::vector<std::string> provided;                    // provided[i] by vertex i
    std::vector<std::pair<std::size_t, std::string>> refs;  // (referencing vertex, address)
};

// Provider i provides `aws_instance.rI`; each reference names a random
// provider's attribute, half of them through a counted instance, so the
// longest provided prefix is two or three cuts short of the whole.
Declarations declarations(std::size_t providers, std::size_t references, std::mt19937_64 &rng) {
    Declarations d;
    for (std::size_t i = 0; i < providers; ++i) d.provided.push_back("aws_instance.r" + std::to_string(i));
    for (std::size_t k = 0; k < references; ++k) {
        const std::size_t from = rng() % providers, to = rng() % providers;
        std::string a = d.provided[to];
        if (rng() % 2) a += "[" + std::to_string(rng() % 4) + "]";
        a += ".attribute_" + std::to_string(rng() % 8);
        d.refs.emplace_back(from, std::move(a));
    }
    return d;
}

dag_graph *graph_of(std::size_t n, std::vector<uint64_t> &ids) {
    dag_graph *g = nullptr;
    check(dag_new(&g, nullptr), nullptr, "dag_new");
    ids.resize(n);
    for (std::size_t i = 0; i < n; ++i) check(dag_add_vertex(g, nullptr, nullptr, &ids[i], nullptr), nullptr, "add");
    return g;
}

// A phase's best time, with the faults of that run and the highest peak.
struct Phase {
    double seconds = 1e300;
    long faults = 0;
    long peak_kb = 0;
};

struct Measure {
    long start_kb, f0;
    Clock::time_point t0;
};

Measure begin_measure() {
    process_memory::reset_peak();
    return {process_memory::rss_kb(), process_memory::minor_faults(), Clock::now()};
}

void end_measure(const Measure &m, Phase &p) {
    const double s = seconds_since(m.t0);
    const long faults = process_memory::minor_faults() - m.f0;
    if (s < p.seconds) p.seconds = s, p.faults = faults;
    p.peak_kb = std::max(p.peak_kb, process_memory::peak_kb() - m.start_kb);
}

std::string memory_of(const Phase &p) {
    return "  (" + std::to_string(p.faults) + " faults, peak +" + std::to_string(p.peak_kb / 1024) + " MiB)";
}

struct ResolveTimes {
    Phase declare, resolve, map_resolve;
    double map_connect = 1e300;
    std::vector<uint64_t> edges, map_edges;  // dag_edges of each graph
};

std::vector<uint64_t> edges_of(const dag_graph *g) {
    dag_ids *pairs = nullptr;
    check(dag_edges(g, &pairs, nullptr), nullptr, "dag_edges");
    const uint64_t *data = dag_ids_data(pairs);
    std::vector<uint64_t> out(data, data + dag_ids_count(pairs));
    dag_ids_free(pairs);
    return out;
}

void resolve_round(const Declarations &d, ResolveTimes &t) {
    std::vector<uint64_t> ids;
    dag_graph *g = graph_of(d.provided.size(), ids);
    dag_builder *b = nullptr;
    check(dag_builder_new(g, &b, nullptr), nullptr, "dag_builder_new");
    Measure m = begin_measure();
    for (std::size_t i = 0; i < d.provided.size(); ++i)
        check(dag_builder_provide(b, ids[i], d.provided[i].c_str(), nullptr), nullptr, "provide");
    for (const auto &[from, address] : d.refs)
        check(dag_builder_reference(b, ids[from], address.c_str(), nullptr), nullptr, "reference");
    end_measure(m, t.declare);
    check(dag_builder_add_references(b, 0, nullptr), nullptr, "add_references");
    dag_build_options o = DAG_BUILD_OPTIONS_INIT;
    o.validate = 0;
    m = begin_measure();
    dag_error *err = nullptr;
    check(dag_build(b, &o, &err), err, "dag_build");
    end_measure(m, t.resolve);
    t.edges = edges_of(g);
    dag_builder_free(b);
    dag_free(g);

    g = graph_of(d.provided.size(), ids);
    m = begin_measure();
    std::map<std::string, std::size_t> by_address;
    for (std::size_t i = 0; i < d.provided.size(); ++i) by_address.emplace(d.provided[i], i);
    std::vector<uint64_t> pairs;
    for (const auto &[from, address] : d.refs) {
        for (std::size_t end = address.size(); end > 0; --end) {
            if (end != address.size() && address[end] != '.' && address[end] != '[') continue;
            auto it = by_address.find(address.substr(0, end));
            if (it == by_address.end()) continue;
            if (it->second != from) {
                pairs.push_back(ids[from]);
                pairs.push_back(ids[it->second]);
            }
            break;
        }
    }
    end_measure(m, t.map_resolve);
    const auto connect_start = Clock::now();
    check(dag_connect_many(g, pairs.data(), pairs.size() / 2, nullptr), nullptr, "dag_connect_many");
    t.map_connect = std::min(t.map_connect, seconds_since(connect_start));
    t.map_edges = edges_of(g);
    dag_free(g);
}

struct StepTimes {
    std::map<std::string, double> best;
    std::vector<std::string> order;
    double validate = 1e300;
    Phase declare, total;
    std::size_t vertices = 0, edges = 0;
};

struct Observed {
    StepTimes *times;
    std::map<std::string, double> round;
};

void observe(const dag_build_step_info *info, void *data) {
    auto *o = static_cast<Observed *>(data);
    o->round[info->name] = info->duration_ns * 1e-9;
    if (o->times->order.size() <= info->index) o->times->order.push_back(info->name);
}

// V resources: each provides its address, references three earlier ones
// (some through `[0]`), needs one of `providers` providers; 10% are
// replaced, `deleted`% deleted, 2% created before destroyed, the rest
// updated or left alone. With one provider and a third deleted, every step
// meets a hub: the provider and its close vertex have V edges, and the
// deleted vertices leave the provider's list together (each step removed
// such edges one at a time, quadratic in the hub's degree, before 1.3).
void plan_round(std::size_t n, std::size_t providers, unsigned deleted, std::mt19937_64 &rng, StepTimes &t) {
    std::vector<uint64_t> ids;
    dag_graph *g = nullptr;
    check(dag_new(&g, nullptr), nullptr, "dag_new");
    ids.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string name = "aws_instance.r" + std::to_string(i);
        check(dag_add_vertex(g, name.c_str(), nullptr, &ids[i], nullptr), nullptr, "add");
    }
    dag_builder *b = nullptr;
    check(dag_builder_new(g, &b, nullptr), nullptr, "dag_builder_new");
    Measure m = begin_measure();
    for (std::size_t i = 0; i < n; ++i) {
        const std::string address = "aws_instance.r" + std::to_string(i);
        check(dag_builder_provide(b, ids[i], address.c_str(), nullptr), nullptr, "provide");
        for (int k = 0; k < 3 && i > 0; ++k) {
            std::string ref = "aws_instance.r" + std::to_string(rng() % i);
            ref += (k == 0 ? "[0].id" : ".id");
            check(dag_builder_reference(b, ids[i], ref.c_str(), nullptr), nullptr, "reference");
        }
        const std::string provider =
            "provider[\"registry.terraform.io/hashicorp/p" + std::to_string(i % providers) + "\"]";
        check(dag_builder_need(b, ids[i], provider.c_str(), nullptr), nullptr, "need");
        const unsigned roll = rng() % 100;
        const dag_action action = roll < 10             ? DAG_ACTION_REPLACE
                                  : roll < 10 + deleted ? DAG_ACTION_DELETE
                                  : roll < 12 + deleted ? DAG_ACTION_CREATE_BEFORE_DESTROY
                                  : roll < 50 + deleted ? DAG_ACTION_UPDATE
                                                        : DAG_ACTION_NONE;
        check(dag_builder_set_action(b, ids[i], action, nullptr), nullptr, "set_action");
    }
    end_measure(m, t.declare);
    check(dag_builder_add_references(b, 0, nullptr), nullptr, "references");
    check(dag_builder_add_destroy_order(b, nullptr), nullptr, "destroy order");
    check(dag_builder_add_shared(b, DAG_SHARED_CLOSE, nullptr), nullptr, "shared");
    check(dag_builder_add_root(b, nullptr, nullptr), nullptr, "root");
    check(dag_builder_add_transitive_reduction(b, nullptr), nullptr, "reduction");
    Observed observed{&t, {}};
    dag_build_options o = DAG_BUILD_OPTIONS_INIT;
    o.observer = observe;
    o.observer_data = &observed;
    dag_error *err = nullptr;
    m = begin_measure();
    check(dag_build(b, &o, &err), err, "dag_build");
    const double total = seconds_since(m.t0);
    end_measure(m, t.total);
    double steps = 0;
    for (const auto &[name, s] : observed.round) {
        steps += s;
        auto it = t.best.find(name);
        if (it == t.best.end() || s < it->second) t.best[name] = s;
    }
    t.validate = std::min(t.validate, total - steps);
    t.vertices = dag_vertex_count(g);
    t.edges = dag_edge_count(g);
    dag_builder_free(b);
    dag_free(g);
}

}  // namespace

int main(int argc, char **argv) {
    const std::size_t providers = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    const std::size_t references = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
    const std::size_t plan = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 100000;
    const int repetitions = argc > 4 ? std::atoi(argv[4]) : 3;
    std::mt19937_64 rng(18);
    const Declarations d = declarations(providers, references, rng);
    ResolveTimes r;
    for (int i = 0; i < repetitions; ++i) resolve_round(d, r);
    if (r.edges != r.map_edges) {
        std::fprintf(stderr, "the edges differ: %zu pairs (step) vs %zu (map)\n", r.edges.size() / 2,
                     r.map_edges.size() / 2);
        return 1;
    }
    const double per_ref = 1e9 / static_cast<double>(references);
    std::printf("resolve %zu references against %zu providers (%zu edges), best of %d\n", references, providers,
                r.edges.size() / 2, repetitions);
    std::printf("  declare (dag_builder_provide/reference)  %8.1f ns/reference%s\n", r.declare.seconds * per_ref,
                memory_of(r.declare).c_str());
    std::printf("  references step (index + resolve + edges) %7.1f ns/reference%s\n", r.resolve.seconds * per_ref,
                memory_of(r.resolve).c_str());
    std::printf("  std::map resolution                      %8.1f ns/reference (%.2fx the step)%s\n",
                r.map_resolve.seconds * per_ref, r.map_resolve.seconds / r.resolve.seconds,
                memory_of(r.map_resolve).c_str());
    std::printf("  std::map resolution + dag_connect_many   %8.1f ns/reference (%.2fx the step, %.2fx declaring "
                "and the step)\n",
                (r.map_resolve.seconds + r.map_connect) * per_ref, (r.map_resolve.seconds + r.map_connect) / r.resolve.seconds,
                (r.map_resolve.seconds + r.map_connect) / (r.declare.seconds + r.resolve.seconds));
    const double per_vertex = 1e9 / static_cast<double>(plan);
    const struct {
        std::size_t providers;
        unsigned deleted;
    } shapes[] = {{10, 3}, {1, 33}};
    for (const auto &shape : shapes) {
        StepTimes t;
        for (int i = 0; i < repetitions; ++i) {
            std::mt19937_64 plan_rng(21);
            plan_round(plan, shape.providers, shape.deleted, plan_rng, t);
        }
        std::printf("plan of %zu vertices, %zu provider(s), %u%% deleted, through every step (%zu vertices, %zu edges "
                    "built), best of %d\n",
                    plan, shape.providers, shape.deleted, t.vertices, t.edges, repetitions);
        std::printf("  declare                                  %8.1f ns/vertex%s\n", t.declare.seconds * per_vertex,
                    memory_of(t.declare).c_str());
        for (const std::string &name : t.order)
            std::printf("  %-40s %8.1f ns/vertex\n", name.c_str(), t.best[name] * per_vertex);
        std::printf("  %-40s %8.1f ns/vertex\n", "validation (dag_build outside its steps)", t.validate * per_vertex);
        std::printf("  %-40s %8.1f ns/vertex%s\n", "dag_build in all", t.total.seconds * per_vertex,
                    memory_of(t.total).c_str());
    }
    return 0;
}
