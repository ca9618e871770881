// Commands that check a graph and report on it: validate, root, cycles, stats.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "help_text.hpp"
#include "input.hpp"
#include "json_output.hpp"
#include "names.hpp"

namespace dagcli {
namespace {

// dag_validate's findings, whether or not the graph passed: only a failure to
// validate at all (out of memory) throws.
Validation validate_graph(const dag_graph *g, bool single_root) {
    dag_validate_options options;
    dag_error *err = nullptr;
    check(dag_validate_options_init(&options, sizeof options, &err), &err);
    options.single_root = single_root;
    dag_validation *found = nullptr;
    dag_status status = dag_validate(g, &options, &found, &err);
    // A graph with problems still gives a result, and its error only repeats it.
    check(found ? DAG_OK : status, &err);
    return Validation(found);
}

// The cycles and self references a validation found, as names.
Json cycles_json(const dag_graph *g, const dag_validation *found) {
    Json cycles = Json::array();
    for (size_t i = 0; i < dag_validation_cycle_count(found); ++i) {
        size_t count = 0;
        const uint64_t *ids = dag_validation_cycle(found, i, &count);
        cycles.push_back(names_json(g, std::vector<uint64_t>(ids, ids + count)));
    }
    size_t count = 0;
    const uint64_t *ids = dag_validation_self_references(found, &count);
    return {{"cycles", cycles},
            {"self_references", names_json(g, std::vector<uint64_t>(ids, ids + count))}};
}

// Vertices nothing depends on, by name.
std::vector<uint64_t> roots_of(const dag_graph *g) {
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(dag_roots(g, &raw, &err), &err);
    return take(raw);
}

struct ValidateOptions {
    Input input;
    bool no_single_root = false;
    bool json = false;
};

int validate(const ValidateOptions &options) {
    Graph g = load(options.input);
    Validation found = validate_graph(g.get(), !options.no_single_root);
    const bool valid = dag_validation_status(found.get()) == DAG_OK;
    if (options.json) {
        // In the order the message "multiple roots: a, m, z" lists them.
        Json roots = names_json(g.get(), sorted_by_name(g.get(), roots_of(g.get())));
        Json document = {{"valid", valid},
                         {"vertices", dag_vertex_count(g.get())},
                         {"edges", dag_edge_count(g.get())},
                         {"roots", roots}};
        document.update(cycles_json(g.get(), found.get()));
        Json messages = Json::array();
        for (size_t i = 0; i < dag_validation_message_count(found.get()); ++i)
            messages.push_back(dag_validation_message(found.get(), i));
        document["messages"] = messages;
        print_json(document);
        return valid ? 0 : check_failed;
    }
    if (!valid) {
        std::printf("%s\n", dag_validation_text(found.get()));
        return check_failed;
    }
    size_t vertices = dag_vertex_count(g.get()), edges = dag_edge_count(g.get());
    std::printf("ok: %zu vert%s, %zu edge%s\n", vertices, vertices == 1 ? "ex" : "ices", edges,
                edges == 1 ? "" : "s");
    return 0;
}

int root(const Input &input) {
    Graph g = load(input);
    uint64_t id = DAG_NO_VERTEX;
    dag_error *err = nullptr;
    check(dag_root(g.get(), &id, &err), &err);
    print_names(g.get(), {id});
    return 0;
}

struct ReportOptions {
    Input input;
    bool json = false;
};

int cycles(const ReportOptions &options) {
    Graph g = load(options.input);
    Validation found = validate_graph(g.get(), false);
    const bool acyclic = dag_validation_status(found.get()) == DAG_OK;
    if (options.json) {
        print_json(cycles_json(g.get(), found.get()));
        return acyclic ? 0 : check_failed;
    }
    if (acyclic) {
        std::fputs("no cycles\n", stderr);
        return 0;
    }
    std::printf("%s\n", dag_validation_text(found.get()));
    return check_failed;
}

// The most vertices on one dependency path, computed in execution order so
// that every vertex's dependencies are done before it.
size_t longest_chain(const dag_graph *g) {
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(dag_reverse_topological_order(g, &raw, &err), &err);
    const std::vector<uint64_t> order = take(raw);
    // Vertex ids can be sparse (JSON input keeps its ids): index them densely.
    check(dag_vertices(g, &raw, &err), &err);
    const std::vector<uint64_t> vertices = take(raw);
    auto index = [&](uint64_t id) {
        return static_cast<size_t>(std::lower_bound(vertices.begin(), vertices.end(), id) - vertices.begin());
    };
    std::vector<size_t> chain(vertices.size(), 0);
    size_t longest = 0;
    for (uint64_t id : order) {
        check(dag_dependencies(g, id, &raw, &err), &err);
        size_t &here = chain[index(id)];
        for (uint64_t dependency : take(raw)) here = std::max(here, chain[index(dependency)]);
        longest = std::max(longest, ++here);
    }
    return longest;
}

// How many vertices dag_roots() or dag_leaves() finds.
size_t count_of(const dag_graph *g, dag_status (*list)(const dag_graph *, dag_ids **, dag_error **)) {
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(list(g, &raw, &err), &err);
    const size_t n = dag_ids_count(raw);
    dag_ids_free(raw);
    return n;
}

int stats(const ReportOptions &options) {
    Graph g = load(options.input);
    const size_t roots = count_of(g.get(), dag_roots), leaves = count_of(g.get(), dag_leaves);

    Validation found = validate_graph(g.get(), false);
    size_t self_references = 0;
    dag_validation_self_references(found.get(), &self_references);
    bool acyclic = dag_validation_status(found.get()) == DAG_OK;

    if (options.json) {
        print_json({{"vertices", dag_vertex_count(g.get())},
                    {"edges", dag_edge_count(g.get())},
                    {"roots", roots},
                    {"leaves", leaves},
                    {"acyclic", acyclic},
                    {"cycles", dag_validation_cycle_count(found.get())},
                    {"self_references", self_references},
                    {"longest_chain", acyclic ? Json(longest_chain(g.get())) : Json(nullptr)}});
        return 0;
    }
    std::printf("vertices: %zu\nedges: %zu\nroots: %zu\nleaves: %zu\n", dag_vertex_count(g.get()),
                dag_edge_count(g.get()), roots, leaves);
    std::printf("acyclic: %s\ncycles: %zu\nself references: %zu\n", acyclic ? "yes" : "no",
                dag_validation_cycle_count(found.get()), self_references);
    if (acyclic)
        std::printf("longest chain: %zu\n", longest_chain(g.get()));
    else
        std::printf("longest chain: n/a\n");
    return 0;
}

}  // namespace

void add_check_commands(CLI::App &app, int &exit_code) {
    auto validate_options = std::make_shared<ValidateOptions>();
    CLI::App *command = app.add_subcommand(
        "validate", "Check the graph as Terraform does: one root, no cycle, no self reference");
    add_input(*command, validate_options->input);
    command->add_flag("--no-single-root", validate_options->no_single_root,
                      "Allow any number of roots, as newer Terraform does");
    add_json_flag(*command, validate_options->json);
    set_help(*command, "Each problem is a line on standard output, in Terraform's words; exit status 1 if there is one.",
             {"$ echo 'digraph { a -> b; b -> c }' | dag validate -", "ok: 3 vertices, 2 edges",
              "$ echo 'digraph { a -> b; c }' | dag validate -", "multiple roots: a, c"});
    command->callback([validate_options, &exit_code] { exit_code = validate(*validate_options); });

    auto input = std::make_shared<Input>();
    command = app.add_subcommand("root", "Print the one vertex nothing depends on");
    add_input(*command, *input);
    set_help(*command, "", {"$ echo 'digraph { a -> b; b -> c }' | dag root -", "a"});
    command->callback([input, &exit_code] { exit_code = root(*input); });

    auto report_options = std::make_shared<ReportOptions>();
    command = app.add_subcommand("cycles", "Print every cycle and self reference");
    add_input(*command, report_options->input);
    add_json_flag(*command, report_options->json);
    set_help(*command, "Exit status 1 if there is one.",
             {"$ echo 'digraph { a -> b; b -> a; c -> c }' | dag cycles -", "Cycle:", "  a", "  b",
              "Self reference: c"});
    command->callback([report_options, &exit_code] { exit_code = cycles(*report_options); });

    report_options = std::make_shared<ReportOptions>();
    command = app.add_subcommand(
        "stats", "Count vertices, edges, roots, leaves and cycles; the longest chain");
    set_help(*command,
             "Roots: vertices nothing depends on. Leaves: vertices that depend on nothing.\n"
             "Longest chain: the most vertices on one path of dependencies.",
             {"$ echo 'digraph { a -> b; b -> c }' | dag stats -", "vertices: 3", "edges: 2", "roots: 1",
              "leaves: 1", "acyclic: yes", "cycles: 0", "self references: 0", "longest chain: 3"});
    add_input(*command, report_options->input);
    add_json_flag(*command, report_options->json);
    command->callback([report_options, &exit_code] { exit_code = stats(*report_options); });
}

}  // namespace dagcli
