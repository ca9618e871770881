#include "dot_node_attribute.hpp"

#include <graphviz/cgraph.h>

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "graphviz_messages.hpp"
#include "libdag.hpp"
#include "text_decoding.hpp"

// Flex's full reset of cgraph's lexer (buffer and start state), which
// libcgraph exports without declaring it; weak, as libdag's DOT reader
// declares it, so that a Graphviz that hides it still links.
extern "C" int aaglex_destroy(void) __attribute__((weak));

namespace dagcli {
namespace {

std::string latin1_to_utf8(const char *latin1) {
    std::string out;
    for (const char *p = latin1; *p; ++p) append_utf8(out, static_cast<unsigned char>(*p));
    return out;
}

bool declares_latin1(Agraph_t *g) {
    const char *charset = agget(g, const_cast<char *>("charset"));
    if (!charset) return false;
    std::string cs;
    for (const char *p = charset; *p; ++p) cs += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    return cs == "latin1" || cs == "latin-1" || cs == "l1" || cs == "iso-8859-1" || cs == "iso_8859-1" ||
           cs == "iso8859-1" || cs == "iso-ir-100";
}

struct Closer {
    void operator()(Agraph_t *g) const noexcept { agclose(g); }
};

}  // namespace

std::map<std::string, std::string> dot_node_attribute(const std::string &text, const char *attribute) {
    const DecodedText decoded = decode_text(text);
    const bool had_bom = decoded.had_bom;
    std::unique_ptr<Agraph_t, Closer> g;
    std::vector<std::string> said;
    {
        // Graphviz would print why straight to standard error.
        GraphvizMessages messages;
        // The lexer outlives a read and reads ahead: a comment after the
        // graph, over several lines, left it inside the comment, and the
        // next read here (exported_pools.cpp reads each list back) began
        // there and failed.
        if (aaglex_destroy) aaglex_destroy();
        agsetfile(nullptr);
        g.reset(agmemread(decoded.utf8.c_str()));
        said = GraphvizMessages::lines();
    }
    if (!g) {
        std::string why;
        for (const std::string &line : said) why += (why.empty() ? ": " : "; ") + line;
        throw Failure("DOT: Graphviz could not read the graph again for its attributes" + why, bad_input);
    }
    std::map<std::string, std::string> values;
    Agsym_t *symbol = agattr(g.get(), AGNODE, const_cast<char *>(attribute), nullptr);
    if (!symbol) return values;
    const bool latin1 = !had_bom && declares_latin1(g.get());
    for (Agnode_t *n = agfstnode(g.get()); n; n = agnxtnode(g.get(), n)) {
        const char *value = agxget(n, symbol);
        if (value && *value)
            values.emplace(latin1 ? latin1_to_utf8(agnameof(n)) : agnameof(n), latin1 ? latin1_to_utf8(value) : value);
    }
    return values;
}

}  // namespace dagcli
