// `dag render --report FILE` (tools/dag/report_statuses.cpp): a walk's
// report read back against the graph drawn, here one fixed graph. A report
// it takes gives each vertex it lists that vertex's status: a name string
// is the vertex of that name, else the unnamed vertex whose id it spells; a
// number is an unnamed vertex's id.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_map>

#include "cli_refusal.hpp"
#include "report_statuses.hpp"

namespace fuzz {

// Named vertices, unnamed ones, and the name "7" beside the unnamed vertex 7.
inline const dag_graph *report_graph() {
    static const dagcli::Graph graph = [] {
        static const char json[] =
            R"json({"vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "7"}, {"id": 3}, {"id": 7},
               {"id": 9, "name": "caf\u00e9"}, {"id": 12, "name": "[root] aws_vpc.main (expand)"}],
               "edges": [[1, 2], [2, 3], [12, 7], [9, 12]]})json";
        dag_graph *g = nullptr;
        require(FUZZ_CALL(dag_import_graph(DAG_FORMAT_JSON, json, std::strlen(json), &g, &e)) == DAG_OK,
                "the report's graph");
        return dagcli::Graph(g);
    }();
    return graph.get();
}

// read_statuses reads a file by its path: one in memory, rewritten for each input.
inline std::string report_file(const std::string &text) {
    static const int fd = memfd_create("report", MFD_CLOEXEC);
    require(fd >= 0, "memfd_create", std::strerror(errno));
    require(ftruncate(fd, 0) == 0 &&
                pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()),
            "writing the report", std::strerror(errno));
    return "/proc/self/fd/" + std::to_string(fd);
}

inline uint64_t reported_vertex(const dag_graph *g, const nlohmann::json &name) {
    if (name.is_number()) return name.get<uint64_t>();
    const std::string &text = name.get_ref<const std::string &>();
    uint64_t id = 0;
    if (text.find('\0') == std::string::npos && dag_find_vertex(g, text.c_str(), &id, nullptr) == DAG_OK) return id;
    for (uint64_t unnamed : vertices(g))
        if (name_of(g, unnamed) == nullptr && std::to_string(unnamed) == text) return unnamed;
    fail("a report names a vertex the graph lacks", text);
}

inline void check_report(const std::string &text) {
    const dag_graph *g = report_graph();
    std::unordered_map<uint64_t, std::string> statuses;
    try {
        statuses = dagcli::read_statuses(report_file(text), g);
    } catch (const dagcli::Failure &refusal) {
        check_refusal(refusal, "report");
        return;
    }
    const nlohmann::json listed = nlohmann::json::parse(text).at("vertices");
    require(statuses.size() == listed.size(), "a report's vertices and statuses differ in number");
    for (const nlohmann::json &vertex : listed) {
        const auto found = statuses.find(reported_vertex(g, vertex.at("name")));
        require(found != statuses.end() && found->second == vertex.at("status").get<std::string>(),
                "a reported vertex has another status", vertex.dump());
    }
}

}  // namespace fuzz
