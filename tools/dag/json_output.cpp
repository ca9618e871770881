#include "json_output.hpp"

#include <cstdio>
#include <string>

#include "libdag.hpp"
#include "names.hpp"
#include "standard_output.hpp"

namespace dagcli {

void add_json_flag(CLI::App &command, bool &json) {
    command.add_flag("--json", json, "Print the result as one JSON document (see README)");
}

Json vertex_json(const dag_graph *g, uint64_t id) {
    const char *name = nullptr;
    dag_error *err = nullptr;
    check(dag_vertex_name(g, id, &name, &err), &err);
    if (name) return name;
    return id;
}

Json names_json(const dag_graph *g, const std::vector<uint64_t> &ids) {
    Json names = Json::array();
    for (uint64_t id : ids) names.push_back(vertex_json(g, id));
    return names;
}

void print_json(const Json &document) {
    const std::string text = document.dump(2) + "\n";
    print(text);
}

}  // namespace dagcli
