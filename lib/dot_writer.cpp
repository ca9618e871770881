#include "dot_writer.hpp"

#include "error.hpp"
#include "json_format.hpp"
#include "sorted_graph.hpp"

namespace dag {
namespace {

// Graphviz's quoted strings know one escape, \" for a quote; every other
// backslash is kept as written, except one before a line break, which joins
// the lines.
void append_quoted(std::string &out, const SortedVertex &v) {
    if ((!v.name.empty() && v.name.back() == '\\') || v.name.find("\\\n") != std::string::npos)
        throw Error(Errc::invalid_argument, "vertex " + std::to_string(v.id) + " (" + json_quoted(v.name) +
                                                ") has a name DOT cannot quote (a backslash at its end or "
                                                "before a line break); write JSON instead");
    out += '"';
    for (char c : v.name) {
        if (c == '"') out += '\\';
        out += c;
    }
    out += '"';
}

}  // namespace

std::string write_dot(const Graph &g) {
    const SortedGraph sg = sorted_graph(g);
    std::string out = "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n";
    for (const SortedVertex &v : sg.vertices) {
        out += "\t\t";
        append_quoted(out, v);
        out += '\n';
    }
    for (const SortedEdge &e : sg.edges) {
        out += "\t\t";
        append_quoted(out, sg.vertices[e.from]);
        out += " -> ";
        append_quoted(out, sg.vertices[e.to]);
        if (e.on_cycle) out += " [color = \"red\", penwidth = \"2.0\"]";
        out += '\n';
    }
    out += "\t}\n}\n";
    return out;
}

}  // namespace dag
