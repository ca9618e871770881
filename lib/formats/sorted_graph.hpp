// The vertices and edges of a graph in the order every text format writes
// them (by name, then id), with each edge marked when it lies on a cycle,
// so that DOT and Mermaid draw cycles the way Terraform's -draw-cycles does.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
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

// A text for each vertex, by position in SortedGraph::vertices, kept in one
// buffer: a writer renders a vertex once (a quoted name, a node id) for its
// own line and every edge line that names it.
class VertexTexts {
public:
    // The next vertex's text is appended here, then ended with end().
    std::string &buffer() noexcept { return text_; }
    void end() { ends_.push_back(text_.size()); }
    std::string_view operator[](std::size_t i) const {
        const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
        return std::string_view(text_).substr(begin, ends_[i] - begin);
    }

private:
    std::string text_;
    std::vector<std::size_t> ends_;
};

}  // namespace dag
