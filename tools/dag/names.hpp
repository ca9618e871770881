// Vertex names as the user sees and types them: an unnamed vertex is its
// decimal id, the way libdag prints it in every message and format.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dagcli {

std::string vertex_name(const dag_graph *g, uint64_t id);

// Whether the vertex has a name of its own (JSON output shows an unnamed one
// by its id as a number, which no name can be mistaken for).
bool has_name(const dag_graph *g, uint64_t id);

// The vertex called `name`, or an unnamed vertex whose decimal id it is;
// Failure with exit status 2 when there is none.
uint64_t find_vertex(const dag_graph *g, const std::string &name);

// The vertices sorted bytewise by vertex_name, as messages list them.
std::vector<uint64_t> sorted_by_name(const dag_graph *g, std::vector<uint64_t> ids);

// The vertex called `name`, or DAG_NO_VERTEX when none is.
uint64_t find_name(const dag_graph *g, const std::string &name);

// The unnamed vertex `id`, as JSON output shows it; Failure with exit
// status 2 when the graph has no such vertex or it is named.
uint64_t unnamed_vertex(const dag_graph *g, uint64_t id);

// One name a line, in the order given, in a single write.
void print_names(const dag_graph *g, const std::vector<uint64_t> &ids);

}  // namespace dagcli
