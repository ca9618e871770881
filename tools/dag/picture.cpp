#include "picture.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "graphviz_messages.hpp"
#include "libdag.hpp"
#include "names.hpp"

namespace dagcli {

namespace {

// cgraph takes `char *` everywhere but copies what it is given.
char *text(const std::string &s) { return const_cast<char *>(s.c_str()); }

Failure cannot_draw(const std::string &format) {
    std::string why;
    for (const std::string &line : GraphvizMessages::lines()) why += (why.empty() ? "" : "; ") + line;
    return Failure("Graphviz cannot draw " + format + (why.empty() ? "" : ": " + why), bad_input);
}

struct StatusLook {
    const char *status, *fill, *legend;
};
// Fills that keep black text readable: green, red, orange; grey for what never ran.
constexpr StatusLook status_looks[] = {
    {"ok", "#b7e4a9", "ok"},
    {"failed", "#f4a09c", "failed"},
    {"upstream_failed", "#f9c985", "upstream failed"},
    {"cancelled", "#d6d6d6", "cancelled"},
    {"not_run", "#d6d6d6", "not run"},
};
constexpr const char *cycle_colour = "#d00000";

const StatusLook *look_of(const std::string &status) {
    for (const StatusLook &look : status_looks)
        if (status == look.status) return &look;
    return nullptr;
}

// A character XML 1.0 cannot hold, which Graphviz copies into the SVG as it
// is (an XML parser then refuses the whole picture): a C0 control but tab,
// line feed and carriage return, and U+FFFE and U+FFFF. `at` is a name's
// next bytes; the answer is how many of them the character takes, or 0.
size_t unwritable_in_xml(std::string_view at) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(at[i]); };
    if (byte(0) < 0x20 && at[0] != '\t' && at[0] != '\n' && at[0] != '\r') return 1;
    if (at.size() >= 3 && byte(0) == 0xEF && byte(1) == 0xBF && (byte(2) == 0xBE || byte(2) == 0xBF)) return 3;
    return 0;
}

// Labels are Graphviz escString: a backslash starts an escape (\N, \n, \l),
// and Graphviz reads an entity (&lt;) in one as the character it names. A
// character XML cannot hold is shown as \xNN for each of its bytes, as
// libdag's messages show bytes that are not UTF-8, in every format alike.
std::string label_of(const std::string &name) {
    static const char hex[] = "0123456789abcdef";
    std::string label;
    for (size_t i = 0; i < name.size();) {
        if (const size_t length = unwritable_in_xml(std::string_view(name).substr(i)); length > 0) {
            for (size_t end = i + length; i < end; ++i) {
                const auto c = static_cast<unsigned char>(name[i]);
                label += {'\\', '\\', 'x', hex[c >> 4], hex[c & 15]};
            }
            continue;
        }
        const char c = name[i++];
        if (c == '\\') label += '\\';
        if (c == '&')
            label += "&amp;";
        else
            label += c;
    }
    return label;
}

// The legend below the picture: each status with its count, and what red means.
std::string legend(const Picture &picture) {
    std::string cells;
    if (picture.statuses) {
        for (const StatusLook &look : status_looks) {
            size_t count = 0;
            for (const auto &[id, status] : *picture.statuses) count += status == look.status;
            cells += std::string("<td bgcolor=\"") + look.fill + "\">" + look.legend + ": " +
                     std::to_string(count) + "</td>";
        }
        size_t absent = dag_vertex_count(picture.graph) - picture.statuses->size();
        if (absent > 0) cells += "<td>not in the report: " + std::to_string(absent) + "</td>";
    }
    if (!picture.cycle_of.empty())
        cells += std::string("<td color=\"") + cycle_colour + "\"><font color=\"" + cycle_colour +
                 "\">on a cycle: " + std::to_string(picture.cycle_of.size()) + "</font></td>";
    if (cells.empty()) return "";
    return "<table border=\"0\" cellborder=\"1\" cellspacing=\"6\" cellpadding=\"4\"><tr>" + cells +
           "</tr></table>";
}

using GraphvizGraph = std::unique_ptr<Agraph_t, Freer<agclose>>;

struct Symbols {
    Agsym_t *label, *fill, *colour, *font_colour, *pen_width;
    Agsym_t *edge_colour, *edge_pen_width;
};

void set(Agraph_t *g, int kind, const char *name, const char *value) {
    agattr(g, kind, text(name), text(value));
}

// The layout's look: boxes of a readable size, rounded and filled.
Symbols declare_attributes(Agraph_t *g, const char *rank_direction) {
    set(g, AGRAPH, "rankdir", rank_direction);
    set(g, AGRAPH, "fontname", "sans-serif");
    set(g, AGRAPH, "nodesep", "0.15");
    set(g, AGRAPH, "ranksep", "0.6");
    set(g, AGNODE, "shape", "box");
    set(g, AGNODE, "style", "rounded,filled");
    set(g, AGNODE, "fontname", "sans-serif");
    set(g, AGNODE, "fontsize", "11");
    set(g, AGNODE, "height", "0.3");
    set(g, AGNODE, "margin", "0.12,0.04");
    set(g, AGEDGE, "arrowsize", "0.6");
    return {agattr(g, AGNODE, text("label"), text("\\N")),
            agattr(g, AGNODE, text("fillcolor"), text("white")),
            agattr(g, AGNODE, text("color"), text("#505050")),
            agattr(g, AGNODE, text("fontcolor"), text("black")),
            agattr(g, AGNODE, text("penwidth"), text("1")),
            agattr(g, AGEDGE, text("color"), text("#707070")),
            agattr(g, AGEDGE, text("penwidth"), text("1"))};
}

// libdag's graph as a Graphviz graph, read through the C API. Graphviz names
// are the ids ("v12"): an unnamed vertex shows its id, which may be another
// vertex's name.
GraphvizGraph graphviz_graph(const Picture &picture, const char *rank_direction) {
    GraphvizGraph g(agopen(text("dag"), Agdirected, nullptr));
    if (!g) throw cannot_draw("the graph");
    const Symbols symbols = declare_attributes(g.get(), rank_direction);
    if (const std::string table = legend(picture); !table.empty()) {
        Agsym_t *label = agattr(g.get(), AGRAPH, text("label"), text(""));
        agxset(g.get(), label, agstrdup_html(g.get(), text(table)));
    }

    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(dag_vertices(picture.graph, &raw, &err), &err);
    std::unordered_map<uint64_t, Agnode_t *> nodes;
    for (uint64_t id : take(raw)) {
        Agnode_t *node = agnode(g.get(), text("v" + std::to_string(id)), 1);
        nodes[id] = node;
        agxset(node, symbols.label, text(label_of(vertex_name(picture.graph, id))));
        if (picture.statuses) {
            auto status = picture.statuses->find(id);
            if (status != picture.statuses->end())
                agxset(node, symbols.fill, text(look_of(status->second)->fill));
        }
        if (picture.cycle_of.count(id)) {
            agxset(node, symbols.colour, text(cycle_colour));
            agxset(node, symbols.font_colour, text(cycle_colour));
            agxset(node, symbols.pen_width, text("2"));
        }
    }

    check(dag_edges(picture.graph, &raw, &err), &err);
    const std::vector<uint64_t> pairs = take(raw);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        Agedge_t *edge = agedge(g.get(), nodes.at(pairs[i]), nodes.at(pairs[i + 1]), nullptr, 1);
        auto from = picture.cycle_of.find(pairs[i]), to = picture.cycle_of.find(pairs[i + 1]);
        if (from != picture.cycle_of.end() && to != picture.cycle_of.end() && from->second == to->second) {
            agxset(edge, symbols.edge_colour, text(cycle_colour));
            agxset(edge, symbols.edge_pen_width, text("2"));
        }
    }
    return g;
}

using Context = std::unique_ptr<GVC_t, Freer<gvFreeContext>>;

// A graph laid out; the layout is freed before the graph.
class Layout {
  public:
    Layout(GVC_t *gvc, GraphvizGraph graph, const std::string &format)
        : gvc_(gvc), graph_(std::move(graph)) {
        if (gvLayout(gvc_, graph_.get(), "dot") != 0) throw cannot_draw(format);
    }
    ~Layout() { gvFreeLayout(gvc_, graph_.get()); }
    Layout(const Layout &) = delete;
    Layout &operator=(const Layout &) = delete;

    Agraph_t *graph() const { return graph_.get(); }

    // Width and height in points.
    std::pair<double, double> size() const {
        // gvLayout() writes "llx lly urx ury"; the dot format, with commas.
        std::string box = agget(graph_.get(), text("bb")) ? agget(graph_.get(), text("bb")) : "";
        std::replace(box.begin(), box.end(), ',', ' ');
        double left = 0, bottom = 0, right = 0, top = 0;
        if (!(std::istringstream(box) >> left >> bottom >> right >> top)) return {0, 0};
        return {right - left, top - bottom};
    }

    // The scale at which the whole picture fits a 16:10 screen: the larger,
    // the more readable at a glance.
    double screen_fit() const {
        auto [width, height] = size();
        return std::min(1600 / std::max(width, 1.0), 1000 / std::max(height, 1.0));
    }

  private:
    GVC_t *gvc_;
    GraphvizGraph graph_;
};

}  // namespace

std::string draw(const Picture &picture, const std::string &format) {
    GraphvizMessages messages;
    Context gvc(gvContext());
    if (!gvc) throw cannot_draw(format);
    // Terraform's long names make wide boxes: side by side (left to right)
    // suits most graphs, but a deep, narrow one becomes a long strip that
    // reads better top to bottom. Only a strip pays for another layout.
    auto layout = [&](const char *rank_direction) {
        return std::make_unique<Layout>(gvc.get(), graphviz_graph(picture, rank_direction), format);
    };
    std::unique_ptr<Layout> chosen = layout("RL");
    if (auto [width, height] = chosen->size(); width > 3 * height) {
        const double across_fit = chosen->screen_fit();
        // A context renders only its latest layout: one at a time.
        chosen.reset();
        chosen = layout("BT");
        if (chosen->screen_fit() <= across_fit) {
            chosen.reset();
            chosen = layout("RL");
        }
    }
    char *data = nullptr;
    unsigned length = 0;
    int rendered = 0;
    {
        PluginMessages plugins;
        rendered = gvRenderData(gvc.get(), chosen->graph(), format.c_str(), &data, &length);
    }
    std::string bytes = data && rendered == 0 ? std::string(data, length) : std::string();
    gvFreeRenderData(data);
    if (rendered != 0) throw cannot_draw(format);
    // Warnings (a bitmap scaled down to fit) are worth seeing.
    for (const std::string &line : GraphvizMessages::lines())
        std::fprintf(stderr, "dag: graphviz: %s\n", line.c_str());
    return bytes;
}

}  // namespace dagcli
