#include "dot_reader.hpp"

#include <cctype>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <graphviz/cgraph.h>

#include "error.hpp"
#include "text_encoding.hpp"
#include "utf8.hpp"

namespace dag {
namespace {

// cgraph keeps its lexer, its error hook and its error level in globals.
std::mutex cgraph_mu;
std::string *cgraph_errors = nullptr;  // the current read's, under cgraph_mu

int collect_error(char *message) {
    if (cgraph_errors) *cgraph_errors += message;
    return 0;
}

struct Source {
    std::string_view text;
    std::size_t pos = 0;
};

int read_chunk(void *channel, char *buf, int size) {
    auto *src = static_cast<Source *>(channel);
    const std::size_t n = std::min(src->text.size() - src->pos, static_cast<std::size_t>(size));
    std::memcpy(buf, src->text.data() + src->pos, n);
    src->pos += n;
    return static_cast<int>(n);
}
int no_write(void *, const char *) { return 0; }
int no_flush(void *) { return 0; }

Agiodisc_t memory_io = {read_chunk, no_write, no_flush};

struct Closer {
    void operator()(Agraph_t *g) const noexcept { agclose(g); }
};
using GraphPtr = std::unique_ptr<Agraph_t, Closer>;

// Restores the hook and level a host that uses Graphviz itself had set.
class ErrorCapture {
public:
    explicit ErrorCapture(std::string &sink)
        : old_hook_(agseterrf(collect_error)), old_level_(agseterr(AGERR)) {
        cgraph_errors = &sink;
    }
    ~ErrorCapture() {
        cgraph_errors = nullptr;
        agseterrf(old_hook_);
        agseterr(old_level_);
    }
    ErrorCapture(const ErrorCapture &) = delete;
    ErrorCapture &operator=(const ErrorCapture &) = delete;

private:
    agusererrf old_hook_;
    agerrlevel_t old_level_;
};

[[noreturn]] void parse_error(std::string message) {
    if (message.rfind("Error: ", 0) == 0) message.erase(0, 7);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    throw Error(Errc::parse, "DOT: " + message);
}

bool is_latin1(Agraph_t *g) {
    const char *charset = agget(g, const_cast<char *>("charset"));
    if (!charset) return false;
    std::string cs;
    for (const char *p = charset; *p; ++p) cs += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    return cs == "latin1" || cs == "latin-1" || cs == "l1" || cs == "iso-8859-1" || cs == "iso_8859-1" ||
           cs == "iso8859-1" || cs == "iso-ir-100";
}

// For messages, which must stay valid UTF-8 themselves.
std::string escaped(const std::string &bytes) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (char c : bytes) {
        auto b = static_cast<unsigned char>(c);
        if (b >= 0x20 && b < 0x7F) {
            out += c;
        } else {
            out += "\\x";
            out += hex[b >> 4];
            out += hex[b & 15];
        }
    }
    return out;
}

// What libdag keeps of a DOT graph: node IDs in file order, edges as
// positions in that list.
struct DotContent {
    std::vector<std::string> names;
    std::vector<VertexId> edges;  // tail, head, tail, head, ...
    bool latin1 = false;
};

// Every use of cgraph, from parsing to closing, happens here under its lock:
// besides the parser, agnameof() and agclose() touch globals too.
DotContent parse(std::string_view text) {
    const std::lock_guard<std::mutex> lock(cgraph_mu);
    std::string errors;
    const ErrorCapture capture(errors);
    Source src{text};
    Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &memory_io};
    agsetfile(nullptr);  // restarts the lexer's line count
    const GraphPtr graph(agread(&src, &disc));
    if (!graph) parse_error(errors.empty() ? "no graph in the text" : errors);
    // Read on, to refuse a second graph rather than lose it.
    const GraphPtr next(agread(&src, &disc));
    if (!errors.empty()) parse_error("after the graph: " + errors);
    if (next) parse_error("a second graph follows the first; give one graph per text");
    Agraph_t *g = graph.get();
    if (!agisdirected(g))
        parse_error("the graph is undirected ('graph'); a dependency graph needs a 'digraph' with '->' edges");

    DotContent content;
    content.latin1 = is_latin1(g);
    std::unordered_map<Agnode_t *, VertexId> position;
    position.reserve(static_cast<std::size_t>(agnnodes(g)));
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        position.emplace(n, content.names.size());
        content.names.emplace_back(agnameof(n));
    }
    content.edges.reserve(2 * static_cast<std::size_t>(agnedges(g)));
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
        for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
            content.edges.push_back(position.at(agtail(e)));
            content.edges.push_back(position.at(aghead(e)));
        }
    return content;
}

}  // namespace

void read_dot(std::string_view utf8, Graph &out) {
    DotContent content = parse(utf8);
    std::vector<VertexId> ids;
    ids.reserve(content.names.size());
    for (std::string &name : content.names) {
        if (content.latin1) name = latin1_to_utf8(name);
        if (name.empty()) parse_error("a node has the empty ID \"\"; vertex names must not be empty");
        if (!is_valid_utf8(name))
            throw Error(Errc::bad_utf8, "DOT: node ID \"" + escaped(name) +
                                            "\" is not valid UTF-8 (a Latin-1 graph needs charset=latin1)");
        ids.push_back(out.add_vertex(std::string_view(name), nullptr));
    }
    for (VertexId &end : content.edges) end = ids[end];
    out.connect_many(content.edges.data(), content.edges.size() / 2);
}

}  // namespace dag
