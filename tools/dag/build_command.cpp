// The build command: a plan file through the standard building steps, then
// written out or walked.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <regex>
#include <string>

#include "commands.hpp"
#include "format_option.hpp"
#include "help_text.hpp"
#include "plan_file.hpp"
#include "standard_output.hpp"
#include "walk_command.hpp"
#include "whole_number.hpp"

namespace dagcli {
namespace {

struct BuildOptions {
    std::string path;
    dag_format to = DAG_FORMAT_TEXT;
    bool warn_unresolved = false;
    bool steps = false;
    bool walk = false;
    WalkOptions walking;
};

void add_standard_steps(dag_builder *b, const Plan &plan, bool warn_unresolved) {
    dag_error *err = nullptr;
    check(dag_builder_add_references(b, warn_unresolved ? DAG_REFERENCES_WARN : 0, &err), &err);
    check(dag_builder_add_destroy_order(b, &err), &err);
    check(dag_builder_add_shared(b, DAG_SHARED_CLOSE, &err), &err);
    check(dag_builder_add_root(b, plan.root.c_str(), &err), &err, bad_input);
    check(dag_builder_add_transitive_reduction(b, &err), &err);
}

// Terraform's trace log of its graph builder, one line a step.
void print_step(const dag_build_step_info *info, void *) {
    std::fprintf(stderr, "step %s: %.3f ms, %zu -> %zu vertices, %zu -> %zu edges\n", info->name,
                 static_cast<double>(info->duration_ns) / 1e6, info->vertices_before, info->vertices_after,
                 info->edges_before, info->edges_after);
}

// libdag names a name's holder by its id, which reads as the plan's
// numbering: a plan vertex is told by that numbering, one a step added by
// its name.
std::string plan_vertex(const Plan &plan, uint64_t id) {
    const auto at = std::find(plan.ids.begin(), plan.ids.end(), id);
    if (at == plan.ids.end()) return "a vertex a step added";
    const auto index = static_cast<std::size_t>(at - plan.ids.begin());
    std::string by = "vertex " + std::to_string(index) + " of the plan";
    // The holder has that name now: a step renamed it (a delete's "NAME (destroy)").
    const char *name = nullptr;
    if (dag_vertex_name(plan.graph.get(), id, &name, nullptr) == DAG_OK && name && plan.names[index] != name)
        by += ", \"" + plan.names[index] + "\", which a step renamed";
    return by;
}

std::string in_plan_terms(const std::string &message, const Plan &plan) {
    static const std::regex holder(R"((is already used by )vertex (\d+)$)");
    std::smatch found;
    if (!std::regex_search(message, found, holder)) return message;
    return found.prefix().str() + found[1].str() + plan_vertex(plan, std::stoull(found[2]));
}

// dag_export_graph's "vertex 3 (\"a\\\\\") has a name DOT cannot quote": the
// vertex as the plan numbers it.
std::string export_in_plan_terms(const std::string &message, const Plan &plan) {
    static const std::regex vertex(R"(^vertex (\d+) \()");
    std::smatch found;
    if (!std::regex_search(message, found, vertex)) return message;
    return plan_vertex(plan, std::stoull(found[1])) + " (" + found.suffix().str();
}

int build(const BuildOptions &options) {
    const std::string shown = options.path == "-" ? "standard input" : options.path;
    Plan plan = read_plan(read_text(options.path), shown);
    dag_builder *b = plan.builder.get();
    add_standard_steps(b, plan, options.warn_unresolved);
    dag_error *err = nullptr;
    dag_build_options build_options;
    check(dag_build_options_init(&build_options, sizeof build_options, &err), &err);
    if (options.steps) build_options.observer = print_step;
    const dag_status built = dag_build(b, &build_options, &err);
    // A step's vertex taking a plan vertex's name is the plan's mistake:
    // told by the root's name when it is the root step's, else by the step.
    if (built == DAG_E_DUPLICATE_NAME) {
        std::string message = dag_error_message(err);
        dag_error_free(err);
        if (message.rfind("dag_build: ", 0) == 0) message.erase(0, std::strlen("dag_build: "));
        if (!plan.root_taken.empty() && message.find("step 'root'") != std::string::npos)
            throw Failure(plan.root_taken, bad_input);
        throw Failure(shown + ": " + in_plan_terms(message, plan), bad_input);
    }
    try {
        check(built, &err);
    } catch (const Failure &e) {
        // Which plan failed, as for its other errors.
        throw Failure(shown + ": " + e.what(), e.exit_status());
    }
    char *raw = nullptr;
    check(dag_builder_warnings(b, &raw, &err), &err);
    const String warnings(raw);
    if (*warnings) {
        std::string text = warnings.get();
        for (std::size_t start = 0; start < text.size();) {
            std::size_t end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            std::fprintf(stderr, "dag: warning: %s\n", text.substr(start, end - start).c_str());
            start = end + 1;
        }
    }
    plan.builder.reset();
    if (options.walk) {
        WalkOptions walking = options.walking;
        walking.input.path = options.path;
        return walk_graph(std::move(plan.graph), walking);
    }
    // As `dag convert`: a name the format cannot carry is the input's (exit
    // 2), told by the plan's name.
    if (dag_export_graph(plan.graph.get(), options.to, &raw, &err) != DAG_OK) {
        std::string message = dag_error_message(err);
        dag_error_free(err);
        if (message.rfind("dag_export_graph: ", 0) == 0) message.erase(0, std::strlen("dag_export_graph: "));
        throw Failure(shown + ": " + export_in_plan_terms(message, plan), bad_input);
    }
    const String text(raw);
    print(text.get());
    return 0;
}

}  // namespace

void add_build_command(CLI::App &app, int &exit_code) {
    auto options = std::make_shared<BuildOptions>();
    CLI::App *command = app.add_subcommand(
        "build", "Build a graph from a plan: references, destroy order, providers, root, reduction");
    set_help(*command,
             "The plan is JSON: {\"root\": NAME, \"vertices\": [{\"name\", \"provides\", \"references\",\n"
             "\"needs\", \"depends_on\", \"action\"}]} (README.md, \"Building a graph\"). The steps, in "
             "order:\nreferences (each reference depends on the vertex providing its longest "
             "prefix), destroy order\n(action delete, replace or create_before_destroy adds "
             "\"NAME (destroy)\"), shared (each needed key\ndepends on its provider, created on "
             "demand, and \"KEY (close)\" after its users), root, transitive\nreduction; then the "
             "graph is validated. An unresolved reference is an error (exit status 1).",
             {"$ echo '{\"vertices\": [{\"name\": \"web\", \"references\": [\"aws_vpc.main.id\"]}, "
              "{\"name\": \"vpc\", \"provides\": [\"aws_vpc.main\"]}]}' | dag build -",
              "vpc", "web", "  vpc"});
    command->add_option("FILE", options->path, "The plan (JSON, below); - for standard input")->required();
    CLI::Option *to = add_format_option(*command, "--to", options->to,
                      {DAG_FORMAT_TEXT, DAG_FORMAT_DOT, DAG_FORMAT_MERMAID, DAG_FORMAT_JSON},
                      "Output format (default: text)");
    command->add_flag("--warn-unresolved", options->warn_unresolved,
                      "Report unresolved references as warnings on standard error and build anyway");
    command->add_flag("--steps", options->steps,
                      "Print each step to standard error as it ends: its name, duration, and the vertex "
                      "and edge counts before and after");
    CLI::Option *walk =
        command->add_flag("--walk", options->walk, "Walk the built graph as `dag walk` does instead of writing it")
            ->excludes(to);
    command->add_option("--exec", options->walking.exec,
                        "With --walk: run `/bin/sh -c CMD` for each vertex, with DAG_VERTEX set to its name")
        ->check(refuse_empty_command)
        ->type_name("CMD")
        ->needs(walk);
    command->add_option("--parallelism", options->walking.parallelism, "With --walk: most vertices running at once")
        ->transform(whole_number(1, DAG_WALK_MAX_THREADS))
        ->capture_default_str()
        ->type_name("N")
        ->needs(walk);
    command->callback([options, &exit_code] { exit_code = build(*options); });
}

}  // namespace dagcli
