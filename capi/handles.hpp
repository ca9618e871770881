// What the opaque C handles are on the inside. Handles only wrap core
// objects; no graph logic lives here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dag/dag.h"
#include "graph.hpp"

struct dag_graph {
    dag::Graph graph;
};

struct dag_error {
    dag_status status;
    std::string message;
};

struct dag_ids {
    std::vector<std::uint64_t> values;
};
