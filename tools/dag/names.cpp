#include "names.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string_view>
#include <utility>

#include "libdag.hpp"
#include "standard_output.hpp"

namespace dagcli {

std::string vertex_name(const dag_graph *g, uint64_t id) {
    const char *name = nullptr;
    dag_error *err = nullptr;
    check(dag_vertex_name(g, id, &name, &err), &err);
    return name ? name : std::to_string(id);
}

bool has_name(const dag_graph *g, uint64_t id) {
    const char *name = nullptr;
    dag_error *err = nullptr;
    check(dag_vertex_name(g, id, &name, &err), &err);
    return name != nullptr;
}

namespace {

// Output lists unnamed vertices by id, so an id must work as input too.
bool unnamed_vertex_id(const dag_graph *g, std::string_view text, uint64_t *id) {
    // Only the canonical spelling: "007" is a name, not vertex 7.
    if (text.empty() || text.front() == '0') return false;
    uint64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return false;
    const char *name = nullptr;
    if (!dag_has_vertex(g, value) || dag_vertex_name(g, value, &name, nullptr) != DAG_OK || name)
        return false;
    *id = value;
    return true;
}

}  // namespace

uint64_t find_vertex(const dag_graph *g, const std::string &name) {
    // No vertex's name holds a NUL (libdag's names are C strings); passed
    // on, the name would be cut there and find another vertex. Shown as
    // JSON writes it, where such a name comes from.
    if (name.find('\0') != std::string::npos) {
        std::string shown;
        for (char c : name) shown += c == '\0' ? std::string("\\u0000") : std::string(1, c);
        throw Failure("no vertex is named \"" + shown + "\"", bad_input);
    }
    uint64_t id = DAG_NO_VERTEX;
    dag_error *err = nullptr;
    dag_status status = dag_find_vertex(g, name.c_str(), &id, &err);
    uint64_t unnamed = DAG_NO_VERTEX;
    if (unnamed_vertex_id(g, name, &unnamed)) {
        // Output shows both as the same word: which one is meant cannot be told.
        if (status == DAG_OK)
            throw Failure("\"" + name + "\" is both a vertex's name and the id of an unnamed vertex; rename that vertex",
                          bad_input);
        if (status == DAG_E_NOT_FOUND) {
            dag_error_free(err);
            return unnamed;
        }
    }
    check(status, &err, bad_input);
    return id;
}

uint64_t find_name(const dag_graph *g, const std::string &name) {
    uint64_t id = DAG_NO_VERTEX;
    if (name.find('\0') != std::string::npos || dag_find_vertex(g, name.c_str(), &id, nullptr) != DAG_OK)
        return DAG_NO_VERTEX;
    return id;
}

uint64_t unnamed_vertex(const dag_graph *g, uint64_t id) {
    if (!dag_has_vertex(g, id)) throw Failure("no vertex has id " + std::to_string(id), bad_input);
    if (has_name(g, id))
        throw Failure("vertex " + std::to_string(id) + " is named \"" + vertex_name(g, id) + "\", not unnamed",
                      bad_input);
    return id;
}

std::vector<uint64_t> sorted_by_name(const dag_graph *g, std::vector<uint64_t> ids) {
    std::vector<std::pair<std::string, uint64_t>> named;
    named.reserve(ids.size());
    for (uint64_t id : ids) named.emplace_back(vertex_name(g, id), id);
    std::sort(named.begin(), named.end());
    for (std::size_t i = 0; i < named.size(); ++i) ids[i] = named[i].second;
    return ids;
}

void print_names(const dag_graph *g, const std::vector<uint64_t> &ids) {
    std::string text;
    for (uint64_t id : ids) text += vertex_name(g, id) + '\n';
    print(text);
}

}  // namespace dagcli
