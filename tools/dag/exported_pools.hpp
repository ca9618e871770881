// The `pools` attribute of a graph file's vertices (file_pools.hpp), which
// libdag's import drops, written back into the graph `convert` and `reduce`
// write out, so that a walk of what they wrote needs the same pools.
#pragma once

#include <dag/dag.h>

#include <string>

#include "file_pools.hpp"

namespace dagcli {

// Whether `format` has a place for a vertex's pools: DOT and JSON do.
bool carries_pools(dag_format format);

// `exported`, libdag's DOT or JSON of `g`, with each vertex's pools from
// `file` as the graph files give them: DOT `"a" [pools="aws,rds"]`, JSON
// `{"id": 1, "name": "a", "pools": ["aws", "rds"]}`. Pools DOT would read
// back otherwise (a name holding a comma) throw Failure with exit status 2.
std::string with_pools(const dag_graph *g, const std::string &exported, dag_format format, const FilePools &file);

}  // namespace dagcli
