// The vertices and edges of a graph in the order every text format writes
// them (by name, then id), with each edge marked when it lies on a cycle,
// so that DOT and Mermaid draw cycles the way Terraform's -draw-cycles does.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

struct SortedVertex {
    VertexId id;
    std::string name;  // the display name: the name, or the decimal id
};

struct SortedEdge {
    std::size_t from;  // positions in SortedGraph::vertices
    std::size_t to;
    bool on_cycle;  // both ends in one strongly connected component, or a self edge
};

struct SortedGraph {
    std::vector<SortedVertex> vertices;
    std::vector<SortedEdge> edges;
};

SortedGraph sorted_graph(const Graph &g);

}  // namespace dag
