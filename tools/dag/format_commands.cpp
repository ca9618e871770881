// Commands that write the graph out: convert, reduce.
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "exported_pools.hpp"
#include "file_pools.hpp"
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

// The graph as `options.to`, with the pools its file gave its vertices
// where that format has a place for them; `text` is the file.
void write_graph(const dag_graph *g, const WriteOptions &options, const std::string &text) {
    char *raw = nullptr;
    dag_error *err = nullptr;
    // A graph this format cannot carry (DOT and a name it would change) is
    // a problem of the input, which errors in the input name.
    try {
        check(dag_export_graph(g, options.to, &raw, &err), &err, bad_input);
    } catch (const Failure &e) {
        throw Failure(shown_name(options.input) + ": " + e.what(), e.exit_status());
    }
    String exported(raw);
    if (!carries_pools(options.to)) return print(exported.get());
    print(with_pools(g, exported.get(), options.to,
                     file_pools(text, options.input.format, shown_name(options.input))));
}

int convert(const WriteOptions &options) {
    const std::string text = read_text(options.input.path);
    Graph g = load(options.input, text);
    write_graph(g.get(), options, text);
    return 0;
}

int reduce(const WriteOptions &options) {
    const std::string text = read_text(options.input.path);
    Graph g = load(options.input, text);
    size_t removed = 0;
    dag_error *err = nullptr;
    check(dag_transitive_reduction(g.get(), &removed, &err), &err);
    write_graph(g.get(), options, text);
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
                      "`terraform graph`'s, json is libdag's own (it round-trips);\ndot and json keep "
                      "each vertex's pools attribute")
        ->required();
    set_help(*command, "", {"$ echo 'digraph { a -> b; b -> c }' | dag convert --to mermaid -", "flowchart TD",
                            "    v1[\"a\"]", "    v2[\"b\"]", "    v3[\"c\"]", "    v1 --> v2", "    v2 --> v3"});
    command->callback([options, &exit_code] { exit_code = convert(*options); });

    options = std::make_shared<WriteOptions>();
    command = app.add_subcommand(
        "reduce", "Drop the edges that longer paths imply, then write the graph");
    add_input(*command, options->input);
    add_output_format(*command, options->to,
                      "Output format (default: text); dot and json keep each vertex's pools attribute");
    set_help(*command, "How many edges it dropped goes to standard error.",
             {"$ echo 'digraph { a -> b; b -> c; a -> c }' | dag reduce -", "a", "  b", "b", "  c", "c",
              "removed 1 edge"});
    command->callback([options, &exit_code] { exit_code = reduce(*options); });
}

}  // namespace dagcli
