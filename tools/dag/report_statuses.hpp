// --report on render: each vertex's status, read back from the file that
// `dag walk --report` writes (walk_report_file.hpp).
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace dagcli {

// Vertex id -> ok, failed, upstream_failed, cancelled or not_run. Failure
// with exit status 2 when the file cannot be read, is not such a report, or
// names a vertex the graph does not have (a report of another graph).
std::unordered_map<uint64_t, std::string> read_statuses(const std::string &path, const dag_graph *g);

}  // namespace dagcli
