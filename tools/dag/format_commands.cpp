// Commands that write the graph out: convert, reduce.
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "format_option.hpp"
#include "help_text.hpp"
#include "input.hpp"
#include "standard_output.hpp"

namespace dagcli {
namespace {

struct WriteOptions {
    Input input;
    dag_format to = DAG_FORMAT_TEXT;
};

CLI::Option *add_output_format(CLI::App &command, dag_format &format, const char *description) {
    return add_format_option(command, "--to", format,
                             {DAG_FORMAT_TEXT, DAG_FORMAT_DOT, DAG_FORMAT_MERMAID, DAG_FORMAT_JSON},
                             description);
}

void write_graph(const dag_graph *g, dag_format format) {
    char *raw = nullptr;
    dag_error *err = nullptr;
    // A graph this format cannot carry (DOT and a name it would change) is
    // a problem of the input, not a failed check.
    check(dag_export_graph(g, format, &raw, &err), &err, bad_input);
    String text(raw);
    print(text.get());
}

int convert(const WriteOptions &options) {
    Graph g = load(options.input);
    write_graph(g.get(), options.to);
    return 0;
}

int reduce(const WriteOptions &options) {
    Graph g = load(options.input);
    size_t removed = 0;
    dag_error *err = nullptr;
    check(dag_transitive_reduction(g.get(), &removed, &err), &err);
    write_graph(g.get(), options.to);
    // The graph before the count when both streams go to one place; and
    // no count of a graph that was not written (main says why).
    int why = 0;
    if (!flush_standard_output(why)) {
        if (why != EPIPE) throw Failure(cannot_write_standard_output(why), bad_input);
        return 0;
    }
    std::fprintf(stderr, "removed %zu edge%s\n", removed, removed == 1 ? "" : "s");
    return 0;
}

}  // namespace

void add_format_commands(CLI::App &app, int &exit_code) {
    auto options = std::make_shared<WriteOptions>();
    CLI::App *command = app.add_subcommand("convert", "Write the graph as text, dot, mermaid or json");
    add_input(*command, options->input);
    add_output_format(*command, options->to,
                      "Output format: text is Terraform's String() layout, dot is "
                      "`terraform graph`'s, json is libdag's own (it round-trips)")
        ->required();
    set_help(*command, "", {"$ echo 'digraph { a -> b; b -> c }' | dag convert --to mermaid -", "flowchart TD",
                            "    v1[\"a\"]", "    v2[\"b\"]", "    v3[\"c\"]", "    v1 --> v2", "    v2 --> v3"});
    command->callback([options, &exit_code] { exit_code = convert(*options); });

    options = std::make_shared<WriteOptions>();
    command = app.add_subcommand(
        "reduce", "Drop the edges that longer paths imply, then write the graph");
    add_input(*command, options->input);
    add_output_format(*command, options->to, "Output format (default: text)");
    set_help(*command, "How many edges it dropped goes to standard error.",
             {"$ echo 'digraph { a -> b; b -> c; a -> c }' | dag reduce -", "a", "  b", "b", "  c", "c",
              "removed 1 edge"});
    command->callback([options, &exit_code] { exit_code = reduce(*options); });
}

}  // namespace dagcli
