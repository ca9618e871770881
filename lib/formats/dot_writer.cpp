#include "formats/dot_writer.hpp"

#include "graph/error.hpp"
#include "formats/json_format.hpp"
#include "formats/sorted_graph.hpp"

namespace dag {
namespace {

// How Graphviz's lexer (cgraph 2.42) reads a quoted string: \" is a quote and
// \\ two backslashes, kept as written; a backslash before a line break joins
// the lines; a line break that starts a token right before a quote or
// backslash (or the end) is dropped. A name survives the trip only if
// quoting each " as \" gives text that reads back as the name, which rules out
// an odd run of backslashes before a quote, a line break or the end, and a
// line break between quotes or backslashes. Nor does a name that begins with
// %: Graphviz takes it for a name local to the text and renames the node.
bool dot_can_quote(const std::string &name) {
    if (!name.empty() && name.front() == '%') return false;
    std::size_t run = 0;  // backslashes just before position i
    for (std::size_t i = 0; i <= name.size(); ++i) {
        const char c = i < name.size() ? name[i] : '\0';
        if (c == '\\') {
            ++run;
            continue;
        }
        if (run % 2 == 1 && (c == '"' || c == '\n' || i == name.size())) return false;
        if (c == '\n') {
            const bool token_start = i == 0 || name[i - 1] == '"' || name[i - 1] == '\\';
            const bool before_special = i + 1 == name.size() || name[i + 1] == '"' || name[i + 1] == '\\';
            if (token_start && before_special) return false;
        }
        run = 0;
    }
    return true;
}

void append_quoted(std::string &out, const std::string &name) {
    out += '"';
    for (char c : name) {
        if (c == '"') out += '\\';
        out += c;
    }
    out += '"';
}

// Every name once, checked: DOT names a node by its text only, so a name it
// cannot quote would come back changed, and an unnamed vertex written as its
// id would merge with a vertex named by those digits.
void check_names(const SortedGraph &sg) {
    for (std::size_t i = 0; i < sg.vertices.size(); ++i) {
        const SortedVertex &v = sg.vertices[i];
        if (!dot_can_quote(v.name))
            throw Error(Errc::invalid_argument,
                        "vertex " + std::to_string(v.id) + " (" + json_quoted(v.name) +
                            ") has a name DOT cannot quote (Graphviz would read it back changed); write JSON instead");
        // Sorted by name, so two vertices written alike are neighbours.
        if (i > 0 && sg.vertices[i - 1].name == v.name)
            throw Error(Errc::invalid_argument, "vertices " + std::to_string(sg.vertices[i - 1].id) + " and " +
                                                    std::to_string(v.id) + " would both be written as " +
                                                    json_quoted(v.name) +
                                                    " (an unnamed vertex is written as its id); write JSON instead");
    }
}

}  // namespace

std::string write_dot(const Graph &g) {
    const SortedGraph sg = sorted_graph(g);
    check_names(sg);
    std::string out = "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n";
    for (const SortedVertex &v : sg.vertices) {
        out += "\t\t";
        append_quoted(out, v.name);
        out += '\n';
    }
    for (const SortedEdge &e : sg.edges) {
        out += "\t\t";
        append_quoted(out, sg.vertices[e.from].name);
        out += " -> ";
        append_quoted(out, sg.vertices[e.to].name);
        if (e.on_cycle) out += " [color = \"red\", penwidth = \"2.0\"]";
        out += '\n';
    }
    out += "\t}\n}\n";
    return out;
}

}  // namespace dag
