// Commands that list vertices: order, ancestors, descendants.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "help_text.hpp"
#include "input.hpp"
#include "json_output.hpp"
#include "names.hpp"
#include "selection.hpp"
#include "standard_output.hpp"

namespace dagcli {
namespace {

struct OrderOptions {
    Input input;
    bool reverse = false;
    Selection selection;
    bool json = false;
};

int order(const OrderOptions &options) {
    Graph g = apply_selection(load(options.input), options.input, options.selection, options.reverse);
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    // libdag keeps Terraform's names, where the "reverse" order is the one
    // that runs; the program names directions as `walk` does.
    check(options.reverse ? dag_topological_order(g.get(), &raw, &err)
                          : dag_reverse_topological_order(g.get(), &raw, &err),
          &err);
    if (options.json)
        print_json({{"order", names_json(g.get(), take(raw))}});
    else
        print_names(g.get(), take(raw));
    return 0;
}

struct RelativesOptions {
    Input input;
    std::vector<std::string> names;
    bool json = false;
};

using Relatives = dag_status (*)(const dag_graph *, const uint64_t *, size_t, dag_ids **,
                                 dag_error **);

int relatives(const RelativesOptions &options, const char *key, Relatives find) {
    Graph g = load(options.input);
    std::vector<uint64_t> start;
    try {
        for (const std::string &name : options.names) start.push_back(find_vertex(g.get(), name));
    } catch (const Failure &e) {
        throw Failure(shown_name(options.input) + ": " + e.what(), e.exit_status());
    }
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(find(g.get(), start.data(), start.size(), &raw, &err), &err);
    const std::vector<uint64_t> found = sorted_by_name(g.get(), take(raw));
    if (options.json)
        print_json({{key, names_json(g.get(), found)}});
    else
        print_names(g.get(), found);
    return 0;
}

void add_relatives_command(CLI::App &app, int &exit_code, const char *name,
                           const char *description, Relatives find,
                           const std::vector<std::string> &example) {
    auto options = std::make_shared<RelativesOptions>();
    CLI::App *command = app.add_subcommand(name, description);
    add_input(*command, options->input);
    command->add_option("NAME", options->names, "Vertex names (an unnamed vertex: its id)")
        ->required();
    add_json_flag(*command, options->json);
    set_help(*command, "", example);
    command->callback(
        [options, &exit_code, name, find] { exit_code = relatives(*options, name, find); });
}

}  // namespace

void add_order_commands(CLI::App &app, int &exit_code) {
    auto options = std::make_shared<OrderOptions>();
    CLI::App *command = app.add_subcommand(
        "order", "Print the vertices in execution order: each after its dependencies");
    set_help(*command,
             "Execution order: every vertex after everything it depends on.\n"
             "--reverse: destroy order, every vertex before its dependencies.\n"
             "Among vertices free at the same moment, the bytewise smallest name comes first: the "
             "order\n`dag walk --priority name --parallelism 1` (with --reverse: `dag walk --reverse "
             "...`) runs them in.\nUnnamed vertices (JSON only) come first here, by id, and last in "
             "such a walk.\nBelow, a -> b and b -> c: a depends on b, b on c.",
             {"$ echo 'digraph { a -> b; b -> c }' | dag order -", "c", "b", "a",
              "$ echo 'digraph { a -> b; b -> c }' | dag order --reverse -", "a", "b", "c"});
    add_input(*command, options->input);
    command->add_flag("--reverse", options->reverse,
                      "Destroy order instead: every vertex before its dependencies");
    add_selection_options(*command, options->selection);
    add_json_flag(*command, options->json);
    command->callback([options, &exit_code] { exit_code = order(*options); });

    add_relatives_command(app, exit_code, "ancestors",
                          "Print everything NAME depends on, transitively", dag_ancestors,
                          {"$ echo 'digraph { a -> b; b -> c }' | dag ancestors - a", "b", "c"});
    add_relatives_command(app, exit_code, "descendants",
                          "Print everything that depends on NAME, transitively", dag_descendants,
                          {"$ echo 'digraph { a -> b; b -> c }' | dag descendants - c", "a", "b"});
}

}  // namespace dagcli
