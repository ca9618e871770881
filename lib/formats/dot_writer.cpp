#include "formats/dot_writer.hpp"

#include <algorithm>
#include <vector>

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
    std::size_t from = 0;
    for (std::size_t q; (q = name.find('"', from)) != std::string::npos; from = q) {
        out.append(name, from, q - from);
        out += '\\';
        out += '"';
        ++q;
    }
    out.append(name, from, std::string::npos);
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

// Whether name a's line text sorts before name b's: `terraform graph` sorts
// its edge lines as text, where a name is quoted, its quotes escaped, and
// the closing quote counts ("a (expand)" before "a", as ' ' < '"'). Quoted
// names DOT can read back are prefix-free, so the lines of two edges first
// differ inside their tails' quoted names, or, with one tail, their heads'.
bool line_before(const std::string &a, const std::string &b) {
    // Up to their first difference the two quoted texts are alike, escapes
    // included; the character each has there as quoted decides, unless an
    // escaped quote meets a backslash, which the walk below settles.
    const std::size_t common = std::min(a.size(), b.size());
    const std::size_t at =
        static_cast<std::size_t>(std::mismatch(a.begin(), a.begin() + common, b.begin()).first - a.begin());
    const auto quoted_at = [at](const std::string &name) {
        if (at == name.size()) return '"';
        return name[at] == '"' ? '\\' : name[at];
    };
    const char qa = quoted_at(a), qb = quoted_at(b);
    if (qa != qb) return static_cast<unsigned char>(qa) < static_cast<unsigned char>(qb);
    if (at == a.size() && at == b.size()) return false;  // the same text
    // Each name's next character as quoted: a quote comes as its escape,
    // then itself (escaped: the escape was given); after the name, the
    // closing quote.
    std::size_t ia = 0, ib = 0;
    bool escaped_a = false, escaped_b = false;
    const auto next = [](const std::string &name, std::size_t i, bool escaped) {
        if (i == name.size()) return '"';
        return name[i] == '"' && !escaped ? '\\' : name[i];
    };
    const auto step = [](const std::string &name, std::size_t &i, bool &escaped) {
        if (name[i] == '"' && !escaped) {
            escaped = true;
        } else {
            ++i;
            escaped = false;
        }
    };
    for (;;) {
        const char ca = next(a, ia, escaped_a), cb = next(b, ib, escaped_b);
        if (ca != cb) return static_cast<unsigned char>(ca) < static_cast<unsigned char>(cb);
        if (ia == a.size()) return false;  // the same text
        step(a, ia, escaped_a);
        step(b, ib, escaped_b);
    }
}

}  // namespace

std::string write_dot(const Graph &g) {
    SortedGraph sg = sorted_graph(g);
    check_names(sg);
    // Edges in the order of their lines' text, as `terraform graph` sorts
    // them: by each end's rank in that order.
    std::vector<std::size_t> by_line(sg.vertices.size());
    for (std::size_t i = 0; i < by_line.size(); ++i) by_line[i] = i;
    const auto before = [&](std::size_t x, std::size_t y) {
        return line_before(sg.vertices[x].name, sg.vertices[y].name);
    };
    // sorted_graph() sorted the vertices by name, and the edges by their
    // ends' positions in that order, which is the lines' order unless a name
    // is a prefix of another that goes on below '"' ("a (expand)" and "a"),
    // or a quote meets a backslash.
    if (!std::is_sorted(by_line.begin(), by_line.end(), before)) {
        std::sort(by_line.begin(), by_line.end(), before);
        std::vector<std::size_t> rank(by_line.size());
        for (std::size_t r = 0; r < by_line.size(); ++r) rank[by_line[r]] = r;
        std::sort(sg.edges.begin(), sg.edges.end(), [&](const SortedEdge &x, const SortedEdge &y) {
            return rank[x.from] != rank[y.from] ? rank[x.from] < rank[y.from] : rank[x.to] < rank[y.to];
        });
    }
    VertexTexts quoted_name;
    for (const SortedVertex &v : sg.vertices) {
        append_quoted(quoted_name.buffer(), v.name);
        quoted_name.end();
    }
    std::string out = "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n";
    for (std::size_t i = 0; i < sg.vertices.size(); ++i) {
        out += "\t\t";
        out += quoted_name[i];
        out += '\n';
    }
    for (const SortedEdge &e : sg.edges) {
        out += "\t\t";
        out += quoted_name[e.from];
        out += " -> ";
        out += quoted_name[e.to];
        if (e.on_cycle) out += " [color = \"red\", penwidth = \"2.0\"]";
        out += '\n';
    }
    out += "\t}\n}\n";
    return out;
}

}  // namespace dag
