// A graph drawn by Graphviz's layout library (gvc, the "dot" layout), in
// memory: no `dot` program is run.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace dagcli {

struct Picture {
    const dag_graph *graph = nullptr;
    // Each vertex on a cycle or with an edge to itself, and a number shared
    // by the vertices of one cycle: an edge between two vertices with the
    // same number is on that cycle.
    std::unordered_map<uint64_t, size_t> cycle_of;
    // From --report: each vertex's walk status (report_statuses.hpp).
    std::optional<std::unordered_map<uint64_t, std::string>> statuses;
};

// The picture as `format` (svg, png or pdf) bytes. Dependencies are drawn
// left of their dependents, so that execution order reads left to right (as
// Terraform 1.7's `terraform graph` draws), or above them when a deep, narrow
// graph fits a screen better so; each arrow points at what its vertex
// depends on. Failure with exit status 2 when Graphviz cannot draw it.
std::string draw(const Picture &picture, const std::string &format);

}  // namespace dagcli
