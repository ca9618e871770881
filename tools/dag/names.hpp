// Vertex names as the user sees and types them: an unnamed vertex is its
// decimal id, the way libdag prints it in every message and format.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dagcli {

std::string vertex_name(const dag_graph *g, uint64_t id);

// The vertex called `name`, or an unnamed vertex whose decimal id it is;
// Failure with exit status 2 when there is none.
uint64_t find_vertex(const dag_graph *g, const std::string &name);

// One name a line, in the order given, in a single write.
void print_names(const dag_graph *g, const std::vector<uint64_t> &ids);

}  // namespace dagcli
