#include "selection.hpp"

#include "names.hpp"

namespace dagcli {

void add_selection_options(CLI::App &command, Selection &selection) {
    // Each takes every argument up to the next option, so FILE goes first.
    command.add_option("--target", selection.targets,
                       "Keep only these vertices and what they depend on (with --reverse: what "
                       "depends on them)")
        ->type_name("NAME");
    command.add_option("--exclude", selection.excludes,
                       "Leave out these vertices and what depends on them (with --reverse: what "
                       "they depend on); applied after --target")
        ->type_name("NAME");
}

namespace {

std::vector<uint64_t> ids(const dag_graph *g, const Input &input, const std::vector<std::string> &names) {
    std::vector<uint64_t> out;
    try {
        for (const std::string &name : names) out.push_back(find_vertex(g, name));
    } catch (const Failure &e) {
        throw Failure(shown_name(input) + ": " + e.what(), e.exit_status());
    }
    return out;
}

}  // namespace

Graph apply_selection(Graph g, const Input &input, const Selection &selection, bool reverse) {
    if (selection.targets.empty() && selection.excludes.empty()) return g;
    const std::vector<uint64_t> targets = ids(g.get(), input, selection.targets);
    const std::vector<uint64_t> excludes = ids(g.get(), input, selection.excludes);
    unsigned flags = reverse ? DAG_SELECT_DEPENDENTS : 0;
    if (selection.targets.empty()) flags |= DAG_SELECT_ALL;
    dag_graph *selected = nullptr;
    dag_error *err = nullptr;
    check(dag_select(g.get(), targets.data(), targets.size(), excludes.data(), excludes.size(), flags,
                     &selected, &err),
          &err);
    return Graph(selected);
}

}  // namespace dagcli
