// The round trip every imported graph must survive: written in each format,
// and read back from each format that can be read, it is the same graph.
// JSON carries ids, names and edges exactly; DOT carries names and edges (an
// unnamed vertex is written by its decimal id) or refuses, as dag_format
// documents, with DAG_E_INVALID_ARGUMENT; TEXT and Mermaid are written only.
#pragma once

#include "fuzz_check.hpp"

#include <cstring>
#include <map>
#include <string>

namespace fuzz {

struct Text {
    char *s = nullptr;
    ~Text() { dag_string_free(s); }
};

inline dag_status export_as(const dag_graph *g, dag_format f, Text &out) {
    return FUZZ_CALL(dag_export_graph(g, f, &out.s, &e));
}

inline dag_graph *import_as(dag_format f, const char *s) {
    dag_graph *g = nullptr;
    const dag_status st = FUZZ_CALL(dag_import_graph(f, s, std::strlen(s), &g, &e));
    require(st == DAG_OK, "a graph libdag wrote does not read back", dag_status_string(st));
    return g;
}

// What DOT writes for a vertex.
inline std::string dot_name(const dag_graph *g, uint64_t id) {
    const char *n = name_of(g, id);
    return n != nullptr ? std::string(n) : std::to_string(id);
}

inline void same_json_graph(const dag_graph *a, const dag_graph *b) {
    const auto ids = vertices(a);
    require(ids == vertices(b), "JSON round trip changed the ids");
    for (uint64_t id : ids) {
        const char *na = name_of(a, id);
        const char *nb = name_of(b, id);
        require((na == nullptr) == (nb == nullptr), "JSON round trip changed whether a vertex is named");
        if (na != nullptr) require(std::strcmp(na, nb) == 0, "JSON round trip changed a name", na);
    }
    require(edges(a) == edges(b), "JSON round trip changed the edges");
}

inline void same_dot_graph(const dag_graph *a, const dag_graph *b) {
    require(dag_vertex_count(a) == dag_vertex_count(b), "DOT round trip changed the vertex count");
    std::map<uint64_t, uint64_t> to_b;
    for (uint64_t id : vertices(a)) {
        const std::string name = dot_name(a, id);
        uint64_t found = 0;
        const dag_status st = FUZZ_CALL(dag_find_vertex(b, name.c_str(), &found, &e));
        require(st == DAG_OK, "DOT round trip lost a vertex", name);
        to_b[id] = found;
    }
    const auto ea = edges(a);
    require(ea.size() == edges(b).size(), "DOT round trip changed the edge count");
    for (size_t i = 0; i + 1 < ea.size(); i += 2)
        require(dag_has_edge(b, to_b[ea[i]], to_b[ea[i + 1]]) == 1, "DOT round trip lost an edge",
                dot_name(a, ea[i]) + " -> " + dot_name(a, ea[i + 1]));
}

inline void check_round_trip(const dag_graph *g) {
    for (dag_format f : {DAG_FORMAT_TEXT, DAG_FORMAT_MERMAID}) {
        Text t;
        require(export_as(g, f, t) == DAG_OK, "export refused", dag_format_name(f));
    }

    Text json;
    require(export_as(g, DAG_FORMAT_JSON, json) == DAG_OK, "JSON export refused");
    dag_graph *from_json = import_as(DAG_FORMAT_AUTO, json.s);
    same_json_graph(g, from_json);
    Text again;
    require(export_as(from_json, DAG_FORMAT_JSON, again) == DAG_OK, "JSON export refused");
    require(std::strcmp(json.s, again.s) == 0, "JSON export of the read-back graph differs");
    dag_free(from_json);

    Text dot;
    const dag_status st = export_as(g, DAG_FORMAT_DOT, dot);
    if (st == DAG_E_INVALID_ARGUMENT) return;
    require(st == DAG_OK, "DOT export failed", dag_status_string(st));
    dag_graph *from_dot = import_as(DAG_FORMAT_DOT, dot.s);
    same_dot_graph(g, from_dot);
    dag_free(from_dot);
}

// The graph `size` bytes read as `format`, or nullptr when they are refused.
inline dag_graph *import_input(dag_format format, const uint8_t *data, size_t size) {
    dag_graph *g = nullptr;
    const dag_status st =
        FUZZ_CALL(dag_import_graph(format, reinterpret_cast<const char *>(data), size, &g, &e));
    require((st == DAG_OK) == (g != nullptr), "import's graph disagrees with its status");
    return g;
}

}  // namespace fuzz
