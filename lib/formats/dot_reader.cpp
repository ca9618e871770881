#include "formats/dot_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include <graphviz/cgraph.h>

#include "graph/error.hpp"
#include "formats/dot_places.hpp"
#include "formats/text_encoding.hpp"
#include "graph/utf8.hpp"

// Flex's full reset of cgraph's lexer (buffer and start state), which
// libcgraph exports without declaring it. Weak, so a Graphviz that hides it
// still links and loads: then only the sentinel below guards the next read.
extern "C" int aaglex_destroy(void) __attribute__((weak));

namespace dag {
namespace {

// cgraph keeps its lexer, its error hook and its error level in globals.
std::mutex cgraph_mu;
std::string *cgraph_messages = nullptr;  // the current read's, under cgraph_mu

// Called from inside cgraph's C code: nothing may unwind through it.
int collect_message(char *message) {
    try {
        if (cgraph_messages) *cgraph_messages += message;
    } catch (...) {
        // Out of memory: the read still fails, with a shorter message.
    }
    return 0;
}

// cgraph's lexer reads ahead into a global buffer that outlives a read, and a
// bare '@' ends a read early; text left behind would be read by the next
// import, on whatever thread. So every text is followed by this graph, and
// reading goes on until it is reached (or an error flushes the lexer).
constexpr char sentinel_name[] = "\x01libdag: end of text\x01";
constexpr char sentinel[] = "\n\n\ndigraph \"\x01libdag: end of text\x01\" {}\n";

struct Source {
    std::string_view text;
    std::size_t pos = 0;
    std::size_t tail = 0;  // bytes of `sentinel` handed out
};

int read_chunk(void *channel, char *buf, int size) {
    auto *src = static_cast<Source *>(channel);
    std::size_t n = std::min(src->text.size() - src->pos, static_cast<std::size_t>(size));
    std::memcpy(buf, src->text.data() + src->pos, n);
    src->pos += n;
    const std::size_t more = std::min(sizeof sentinel - 1 - src->tail, static_cast<std::size_t>(size) - n);
    std::memcpy(buf + n, sentinel + src->tail, more);
    src->tail += more;
    return static_cast<int>(n + more);
}
int no_write(void *, const char *) { return 0; }
int no_flush(void *) { return 0; }

Agiodisc_t memory_io = {read_chunk, no_write, no_flush};

struct Closer {
    void operator()(Agraph_t *g) const noexcept { agclose(g); }
};
using GraphPtr = std::unique_ptr<Agraph_t, Closer>;

// Collects errors and warnings (a warning, such as "badly delimited number",
// means cgraph guessed; libdag refuses rather than guess), and restores the
// hook and level a host that uses Graphviz itself had set.
class MessageCapture {
public:
    explicit MessageCapture(std::string &sink)
        : old_hook_(agseterrf(collect_message)), old_level_(agseterr(AGWARN)) {
        cgraph_messages = &sink;
    }
    ~MessageCapture() {
        cgraph_messages = nullptr;
        agseterrf(old_hook_);
        agseterr(old_level_);
    }
    MessageCapture(const MessageCapture &) = delete;
    MessageCapture &operator=(const MessageCapture &) = delete;

private:
    agusererrf old_hook_;
    agerrlevel_t old_level_;
};

[[noreturn]] void parse_error(std::string message) {
    for (const char *tag : {"Error: ", "Warning: "})
        if (message.rfind(tag, 0) == 0) message.erase(0, std::strlen(tag));
    // The first diagnostic says where reading went wrong; what cgraph said
    // after it (each tagged as above) would be lines of its own, untagged
    // by the host that prints the message.
    for (const char *next : {"\nError: ", "\nWarning: "})
        if (const std::size_t at = message.find(next); at != std::string::npos) message.erase(at);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    // cgraph's own malloc failed where it checks (where it does not, it
    // crashes: the header says so): out of memory, not a malformed text.
    if (message.rfind("memory allocation failure", 0) == 0) throw std::bad_alloc();
    // An unterminated string or comment runs into the sentinel.
    if (message.find(sentinel_name) != std::string::npos || message.find("libdag: end of text") != std::string::npos)
        message = "unexpected end of the text (an unclosed string, comment or graph?)";
    // bison's fixed stack (10,000 entries), which cgraph's grammar fills with
    // a whole statement: said alone, it reads as dag out of memory.
    if (message.rfind("memory exhausted", 0) == 0)
        message += " (Graphviz's DOT parser ran out of stack: one statement holds too much, such as an edge chain "
                   "`a -> b -> c ...` of 2,500 vertices or more, or subgraphs nested over 3,000 deep; write one "
                   "edge per statement)";
    throw Error(Errc::parse, "DOT: " + printable_utf8(message));
}

// The line of the text's last non-blank character, 1 for a blank text.
std::size_t last_line(std::string_view text) {
    const std::size_t end = text.find_last_not_of(" \t\r\n");
    if (end == std::string_view::npos) return 1;
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + end, '\n'));
}

// Where cgraph's lexer is, as far as lines go: in code, a quoted ID, an
// HTML ID or a comment.
struct LexerPlace {
    enum Kind { code, quoted, html, block_comment, line_comment } kind = code;
    std::size_t depth = 0;  // of '<' in an HTML ID

    // Moves past text[i], not a newline (the caller's, see newline()), and
    // the byte after it where the two go together (an escape, "/*", "*/");
    // returns the index of the last byte taken. `escaped_newline` is set
    // for a backslash-newline inside a quoted ID, which the lexer counts.
    std::size_t step(std::string_view text, std::size_t i, bool &escaped_newline) {
        const char c = text[i], next = i + 1 < text.size() ? text[i + 1] : '\0';
        escaped_newline = false;
        switch (kind) {
        case code:
            if (c == '"') kind = quoted;
            else if (c == '<') kind = html, depth = 1;
            else if (c == '/' && next == '*') kind = block_comment, ++i;
            else if ((c == '/' && next == '/') || c == '#') kind = line_comment;
            break;
        case quoted:
            if (c == '\\' && next == '\n') escaped_newline = true, ++i;
            else if (c == '\\') ++i;
            else if (c == '"') kind = code;
            break;
        case html:
            if (c == '<') ++depth;
            else if (c == '>' && --depth == 0) kind = code;
            break;
        case block_comment:
            if (c == '*' && next == '/') kind = code, ++i;
            break;
        case line_comment:
            break;
        }
        return i;
    }
    void newline() {
        if (kind == line_comment) kind = code;
    }
};

// The text's line of cgraph's line `line`, where it found `token` (empty:
// unknown). Its lexer does not count a newline inside a quoted string (it
// does one escaped by a backslash, and those in comments and HTML strings),
// so its lines fall behind the text's after a quoted ID spanning lines:
// those newlines before the token (or, without it, before the lexer's end
// of `line`) are added back.
std::size_t text_line(std::string_view text, std::size_t line, std::string_view token) {
    LexerPlace lexer;
    std::size_t counted = 0, uncounted = 0;
    for (std::size_t i = 0; i < text.size() && counted < line; ++i) {
        if (lexer.kind == LexerPlace::code && counted + 1 == line && !token.empty() &&
            text.substr(i, token.size()) == token)
            break;
        if (text[i] == '\n') {
            ++(lexer.kind == LexerPlace::quoted ? uncounted : counted);
            lexer.newline();
            continue;
        }
        bool escaped_newline = false;
        i = lexer.step(text, i, escaped_newline);
        counted += escaped_newline;
    }
    return line + uncounted;
}

// The token cgraph names in `message` ("near 'x'", "number 'x'"), or "".
std::string token_in(const std::string &message) {
    for (const char *before : {"near '", "number '"}) {
        const std::size_t at = message.find(before);
        if (at == std::string::npos) continue;
        const std::size_t begin = at + std::strlen(before), end = message.find('\'', begin);
        if (end != std::string::npos) return message.substr(begin, end - begin);
    }
    return {};
}

// cgraph's "line N" in `message`, as the text's line.
std::string with_text_lines(std::string message, std::string_view text) {
    const std::string token = token_in(message);
    const char word[] = "in line ";
    for (std::size_t at = message.find(word); at != std::string::npos; at = message.find(word, at + 1)) {
        const std::size_t digits = at + sizeof word - 1;
        std::size_t end = digits;
        while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) ++end;
        if (end == digits) continue;
        const std::size_t line = std::strtoul(message.c_str() + digits, nullptr, 10);
        message.replace(digits, end - digits, std::to_string(text_line(text, line, token)));
    }
    return message;
}

// What the text ends inside, when it ends inside a quoted ID, an HTML ID or
// a comment, as "a quoted ID begun in line 3 is not closed", or "". The
// lexer then ran on into the sentinel: a quoted ID closed at its first
// quote, a comment swallowed it; whatever cgraph said of that (a line past
// the text's end, the sentinel's \x01 as the token, or nothing) means
// nothing to the user.
std::string unclosed_at_end(std::string_view text) {
    LexerPlace lexer;
    std::size_t line = 1, begun = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            lexer.newline();
            continue;
        }
        if (lexer.kind == LexerPlace::code) begun = line;
        bool escaped_newline = false;
        i = lexer.step(text, i, escaped_newline);
        line += escaped_newline;
    }
    const char *what = lexer.kind == LexerPlace::quoted          ? "a quoted ID ('\"')"
                       : lexer.kind == LexerPlace::html          ? "an HTML ID ('<')"
                       : lexer.kind == LexerPlace::block_comment ? "a comment ('/*')"
                                                                 : nullptr;
    if (!what) return {};
    return "syntax error in line " + std::to_string(begun) + ": " + what +
           " begun there is not closed before the end of the text";
}

// The line of "syntax error in line N" in `message`, or 0.
std::size_t error_line(const std::string &message) {
    const char prefix[] = "syntax error in line ";
    const std::size_t at = message.find(prefix);
    return at == std::string::npos ? 0 : std::strtoul(message.c_str() + at + sizeof prefix - 1, nullptr, 10);
}

// A text that ends inside a statement fails only at the sentinel's first
// token, whose line (past the text's end) and token mean nothing to the
// user: such an error is told as an end of text, on the text's last line.
// One that ends inside a quoted ID or comment is told where that began,
// unless cgraph's error comes before it.
std::string in_the_text(std::string message, std::string_view text) {
    message = with_text_lines(std::move(message), text);
    const std::size_t line = error_line(message);
    if (const std::string unclosed = unclosed_at_end(text); !unclosed.empty()) {
        if (line == 0 || line >= error_line(unclosed) || message.find('\x01') != std::string::npos) return unclosed;
        return message;
    }
    if (line == 0) return message;
    const std::size_t lines_in_text = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    if (line <= lines_in_text && message.find('\x01') == std::string::npos) return message;
    return "syntax error in line " + std::to_string(last_line(text)) +
           " at the end of the text: the graph is not finished (a missing '}', or a statement cut short?)";
}

// " in line N", or "" for line 0 (not found).
std::string in_line(std::size_t line) { return line == 0 ? std::string() : " in line " + std::to_string(line); }

std::string node_line(std::string_view text, const std::function<bool(std::string_view)> &wanted) {
    return in_line(dot_places::line_of_node(text, wanted));
}

bool is_sentinel(Agraph_t *g) { return std::strcmp(agnameof(g), sentinel_name) == 0; }

bool is_latin1(Agraph_t *g) {
    const char *charset = agget(g, const_cast<char *>("charset"));
    if (!charset) return false;
    std::string cs;
    for (const char *p = charset; *p; ++p) cs += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    return cs == "latin1" || cs == "latin-1" || cs == "l1" || cs == "iso-8859-1" || cs == "iso_8859-1" ||
           cs == "iso8859-1" || cs == "iso-ir-100";
}

// What libdag keeps of a DOT graph: node IDs in file order, edges as
// positions in that list.
struct DotContent {
    std::vector<std::string> names;
    std::vector<VertexId> edges;  // tail, head, tail, head, ...
    bool latin1 = false;
};

DotContent content_of(Agraph_t *g) {
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

// Every use of cgraph, from parsing to closing, happens here under its lock:
// besides the parser, agnameof() and agclose() touch globals too. Whatever
// happens, the lexer is left at the sentinel's end or flushed by an error.
DotContent parse(std::string_view text) {
    const std::lock_guard<std::mutex> lock(cgraph_mu);
    std::string messages;
    const MessageCapture capture(messages);
    Source src{text};
    Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &memory_io};
    // Text that ended inside a comment or string leaves the lexer in that
    // state, which no read of later text gets out of.
    if (aaglex_destroy) aaglex_destroy();
    agsetfile(nullptr);  // restarts the lexer's line count

    // Reads up to the sentinel. A syntax error flushes the lexer (a warning
    // does not); each read consumes at least a token, so the text's length
    // bounds the reads.
    bool drained = false;
    auto drain = [&] {
        for (std::size_t reads = 0; !drained && reads <= text.size() + 1; ++reads) {
            const std::size_t seen = messages.size();
            GraphPtr g(agread(&src, &disc));
            drained = (g && is_sentinel(g.get())) || (!g && messages.find("Error", seen) != std::string::npos);
        }
    };

    GraphPtr graph(agread(&src, &disc));
    if (!graph || is_sentinel(graph.get())) {
        drained = graph != nullptr || messages.find("Error") != std::string::npos;
        const std::string first = messages;
        drain();
        parse_error(first.empty() ? "no graph in the text" : in_the_text(first, text));
    }
    const std::size_t seen = messages.size();
    GraphPtr next(agread(&src, &disc));
    drained = (next && is_sentinel(next.get())) || (!next && messages.find("Error", seen) != std::string::npos);
    if (!messages.empty()) {
        const std::string first = messages;
        drain();
        parse_error(in_the_text(first, text));
    }
    if (!drained) {
        drain();
        if (const std::string unclosed = unclosed_at_end(text); !next && !unclosed.empty()) parse_error(unclosed);
        parse_error(next ? "a second graph follows the first" + in_line(dot_places::line_after_first_graph(text)) +
                               "; give one graph per text"
                         : "text after the graph" + in_line(dot_places::line_after_first_graph(text)) +
                               " ends it early (a bare '@'?)");
    }
    if (!agisdirected(graph.get()))
        parse_error("the graph is undirected ('graph'); a dependency graph needs a 'digraph' with '->' edges");
    return content_of(graph.get());
}

}  // namespace

void read_dot(std::string_view utf8, bool honour_charset, Graph &out) {
    DotContent content = parse(utf8);
    std::vector<const char *> names;
    names.reserve(content.names.size());
    for (std::string &name : content.names) {
        if (content.latin1 && honour_charset) name = latin1_to_utf8(name);
        if (name.empty())
            parse_error("a node" + node_line(utf8, [](std::string_view id) { return id.empty(); }) +
                        " has the empty ID \"\"; vertex names must not be empty");
        // Graphviz takes an ID that begins with % for a name local to the text
        // and gives the node one of its own (% and a number): the ID is lost.
        if (name.front() == '%')
            parse_error("a node ID" + node_line(utf8, [](std::string_view id) { return id.rfind('%', 0) == 0; }) +
                        " begins with %, which Graphviz does not keep (it calls the node \"" + printable_utf8(name) +
                        "\"); rename the node");
        // Only a name not converted from Latin-1 can fail here: the scan sees
        // the same bytes.
        if (!is_valid_utf8(name))
            throw Error(Errc::bad_utf8, "DOT: node ID \"" + printable_utf8(name) + "\"" +
                                            node_line(utf8, [&](std::string_view id) { return id == name; }) +
                                            " is not valid UTF-8" +
                                            (content.latin1 ? " (its charset=latin1 does not apply: the text begins "
                                                              "with a byte-order mark, which says it is Unicode)"
                                                            : " (a Latin-1 graph needs charset=latin1)"));
        names.push_back(name.c_str());
    }
    // Every name is checked above and cgraph keeps each once: one batch add
    // (names.size() consecutive ids).
    const VertexId first = out.add_vertices(names.data(), nullptr, names.size());
    for (VertexId &end : content.edges) end += first;
    out.connect_many(content.edges.data(), content.edges.size() / 2);
}

}  // namespace dag
