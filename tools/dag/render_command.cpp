// render: the graph as a picture (SVG, PNG or PDF), drawn by Graphviz.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "help_text.hpp"
#include "input.hpp"
#include "output_file.hpp"
#include "picture.hpp"
#include "report_statuses.hpp"
#include "signals.hpp"
#include "walk_result.hpp"
#include "standard_output.hpp"

namespace dagcli {
namespace {

const std::vector<std::string> formats = {"svg", "png", "pdf"};

struct RenderOptions {
    Input input;
    std::string output;
    std::string format;
    bool reduce = false;
    std::string report;
};

// The format OUT's extension names, in any case; "" for none of them.
std::string format_of_name(const std::string &output) {
    const size_t dot = output.rfind('.');
    const size_t slash = output.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string extension = output.substr(dot + 1);
    for (char &c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::find(formats.begin(), formats.end(), extension) != formats.end() ? extension : "";
}

// --format, else the output file's extension. Both, when they disagree, are
// a mistake in one of them: a.svg holding PNG would not open as SVG.
std::string format_of(const RenderOptions &options) {
    const std::string by_name = format_of_name(options.output);
    if (!options.format.empty() && !by_name.empty() && options.format != by_name)
        throw Failure("--format " + options.format + " contradicts \"" + options.output + "\", a ." + by_name +
                          " name: rename the file, or leave --format out",
                      bad_input);
    if (!options.format.empty()) return options.format;
    if (!by_name.empty()) return by_name;
    throw Failure("cannot tell the picture's format from " + options.output +
                      ": name it .svg, .png or .pdf, or give --format svg|png|pdf",
                  bad_input);
}

// The picture written over the graph or the report it is drawn from would
// lose it, as the walk's --report and --trace naming one file would.
// Standard output is told by the file it writes: the input's.
void refuse_overwriting_inputs(const RenderOptions &options) {
    const std::pair<const char *, const std::string &> inputs[] = {{"FILE", options.input.path},
                                                                   {"--report", options.report}};
    for (const auto &[what, path] : inputs)
        if (overwrites_input(options.output, path))
            throw Failure(std::string("-o and ") + what + " cannot both be \"" +
                              (options.output == "-" ? path : options.output) + "\"",
                          bad_input);
}

// Every vertex on a cycle (dag_cycles) or with an edge to itself, numbered
// by its cycle.
std::unordered_map<uint64_t, size_t> cycles_of(const dag_graph *g) {
    std::unordered_map<uint64_t, size_t> cycle_of;
    dag_id_lists *raw = nullptr;
    dag_error *err = nullptr;
    check(dag_cycles(g, &raw, &err), &err);
    std::unique_ptr<dag_id_lists, Freer<dag_id_lists_free>> cycles(raw);
    const size_t count = dag_id_lists_count(cycles.get());
    for (size_t i = 0; i < count; ++i) {
        size_t size = 0;
        const uint64_t *ids = dag_id_lists_get(cycles.get(), i, &size);
        for (size_t j = 0; j < size; ++j) cycle_of[ids[j]] = i;
    }
    dag_ids *edges = nullptr;
    check(dag_edges(g, &edges, &err), &err);
    const std::vector<uint64_t> pairs = take(edges);
    size_t next = count;
    for (size_t i = 0; i + 1 < pairs.size(); i += 2)
        if (pairs[i] == pairs[i + 1]) cycle_of.emplace(pairs[i], next++);
    return cycle_of;
}

int render(const RenderOptions &options) {
    const std::string format = format_of(options);
    // The second reader would find standard input used up: an empty report.
    if (reads_standard_input(options.input.path) && reads_standard_input(options.report))
        throw Failure("FILE and --report cannot both be standard input", bad_input);
    refuse_overwriting_inputs(options);
    // Before the layout, which may take minutes: a path that cannot be
    // written is told at once.
    holding_signals([&](const auto &) { check_writable(options.output); });
    Graph g = load(options.input);
    if (options.reduce) {
        dag_error *err = nullptr;
        check(dag_transitive_reduction(g.get(), nullptr, &err), &err);
    }
    Picture picture{g.get(), cycles_of(g.get()), std::nullopt};
    if (!options.report.empty()) picture.statuses = read_statuses(options.report, g.get());
    const std::string bytes = draw(picture, format);
    if (options.output == "-")
        print(bytes);
    else
        holding_signals(
            [&](const std::function<bool()> &interrupted) { write_file(options.output, bytes, interrupted); });
    return 0;
}

}  // namespace

void add_render_command(CLI::App &app, int &exit_code) {
    auto options = std::make_shared<RenderOptions>();
    CLI::App *command = app.add_subcommand(
        "render", "Draw the graph to an SVG, PNG or PDF file with Graphviz's dot layout");
    add_input(*command, options->input);
    command->add_option("-o,--output", options->output,
                        "Picture file; - for standard output; never FILE or REPORT themselves")
        ->required()
        ->type_name("OUT");
    command->add_option("--format", options->format,
                        "Picture format, in any case; by default OUT's extension,\nwhich a --format may not "
                        "contradict (a.svg --format png)")
        ->transform(CLI::IsMember(formats, CLI::ignore_case))
        ->type_name("FORMAT");
    command->add_flag("--reduce", options->reduce,
                      "Draw the transitive reduction: no edge that a longer path implies");
    command->add_option("--report", options->report,
                        "Colour each vertex by its status in this `dag walk --report` file: ok "
                        "green, failed red,\nupstream failed orange, cancelled and not run grey")
        ->check(refuse_empty_path)
        ->type_name("REPORT");
    set_help(*command,
             "Dependencies are drawn before what depends on them, so execution order reads left to right\n"
             "(top to bottom for a deep, narrow graph); an arrow points at what its vertex depends on.\n"
             "Vertices and edges on a cycle are red. After a walk:\n"
             "  dag walk plan.dot --exec './apply.sh \"$DAG_VERTEX\"' --report run.json\n"
             "  dag render plan.dot --report run.json -o run.png",
             {"$ echo 'digraph { a -> b; b -> c }' | dag render - -o plan.svg",
              "$ grep -c 'class=\"node\"' plan.svg", "3"});
    command->callback([options, &exit_code] { exit_code = render(*options); });
}

}  // namespace dagcli
