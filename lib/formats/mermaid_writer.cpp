#include "formats/mermaid_writer.hpp"

#include <string>

#include "formats/sorted_graph.hpp"

namespace dag {
namespace {

// Node ids are vN, never the name: Mermaid's ids allow few characters, and
// some words (end, graph) are keywords. The name goes into a quoted label
// where Mermaid still reads much: a quote ends it, # < > & start entities and
// markup, a leading backtick starts Markdown, `style...:` and `direction TB`
// are matched anywhere on the line, CR and U+2028 break it. So every ASCII
// character other than a letter, a digit, a space and _-./,()[]+ is written
// as an entity code (#NN;), as are U+2028 and U+2029, and the d of
// "direction"; a line break becomes <br/>. So are U+FB02 and U+00B6: Mermaid
// writes an entity's & and ; as the pairs U+FB02 U+00B0 and U+00B6 U+00DF
// while it lays the text out, and turns every such pair in its output back
// into & and ;, a name's own included.
void append_label(std::string &out, const std::string &name) {
    static const std::string plain = " _-./,()[]+";
    out += '"';
    for (std::size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if (c == '\n') {
            out += "<br/>";
        } else if (name.compare(i, 3, "\xE2\x80\xA8") == 0 || name.compare(i, 3, "\xE2\x80\xA9") == 0) {
            out += name[i + 2] == '\xA8' ? "#8232;" : "#8233;";  // U+2028, U+2029
            i += 2;
        } else if (name.compare(i, 3, "\xEF\xAC\x82") == 0) {
            out += "#64258;";  // U+FB02
            i += 2;
        } else if (name.compare(i, 2, "\xC2\xB6") == 0) {
            out += "#182;";  // U+00B6
            i += 1;
        } else if (c >= 0x80) {
            out += name[i];
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   plain.find(static_cast<char>(c)) != std::string::npos) {
            if (c == 'd' && name.compare(i, 9, "direction") == 0)
                out += "#100;";
            else
                out += static_cast<char>(c);
        } else {
            out += '#' + std::to_string(c) + ';';
        }
    }
    out += '"';
}

}  // namespace

std::string write_mermaid(const Graph &g) {
    const SortedGraph sg = sorted_graph(g);
    // Each node id written once, where each line made and joined temporary
    // strings.
    VertexTexts node_id;
    for (const SortedVertex &v : sg.vertices) {
        node_id.buffer() += 'v';
        node_id.buffer() += std::to_string(v.id);
        node_id.end();
    }
    std::string out = "flowchart TD\n";
    for (std::size_t i = 0; i < sg.vertices.size(); ++i) {
        out += "    ";
        out += node_id[i];
        out += '[';
        append_label(out, sg.vertices[i].name);
        out += "]\n";
    }
    std::string cycle_links;
    for (std::size_t i = 0; i < sg.edges.size(); ++i) {
        const SortedEdge &e = sg.edges[i];
        out += "    ";
        out += node_id[e.from];
        out += " --> ";
        out += node_id[e.to];
        out += '\n';
        if (e.on_cycle) cycle_links += (cycle_links.empty() ? "" : ",") + std::to_string(i);
    }
    // linkStyle addresses edges by their position in the text above.
    if (!cycle_links.empty()) out += "    linkStyle " + cycle_links + " stroke:red,stroke-width:2px\n";
    return out;
}

}  // namespace dag
