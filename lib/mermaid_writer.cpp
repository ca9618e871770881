#include "mermaid_writer.hpp"

#include "sorted_graph.hpp"

namespace dag {
namespace {

// Node ids are vN, never the name: Mermaid's ids allow few characters, and
// some words (end, graph) are keywords. The name goes into a quoted label,
// where a quote cannot appear and `#`, `<` and `>` start entities and markup.
void append_label(std::string &out, const std::string &name) {
    out += '"';
    for (char c : name) {
        switch (c) {
        case '"': out += "#quot;"; break;
        case '#': out += "#35;"; break;
        case '<': out += "#lt;"; break;
        case '>': out += "#gt;"; break;
        case '\n': out += "<br/>"; break;
        default: out += c;
        }
    }
    out += '"';
}

}  // namespace

std::string write_mermaid(const Graph &g) {
    const SortedGraph sg = sorted_graph(g);
    std::string out = "flowchart TD\n";
    for (const SortedVertex &v : sg.vertices) {
        out += "    v" + std::to_string(v.id) + '[';
        append_label(out, v.name);
        out += "]\n";
    }
    std::string cycle_links;
    for (std::size_t i = 0; i < sg.edges.size(); ++i) {
        const SortedEdge &e = sg.edges[i];
        out += "    v" + std::to_string(sg.vertices[e.from].id) + " --> v" + std::to_string(sg.vertices[e.to].id) + '\n';
        if (e.on_cycle) cycle_links += (cycle_links.empty() ? "" : ",") + std::to_string(i);
    }
    // linkStyle addresses edges by their position in the text above.
    if (!cycle_links.empty()) out += "    linkStyle " + cycle_links + " stroke:red,stroke-width:2px\n";
    return out;
}

}  // namespace dag
