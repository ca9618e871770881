// dag_export_graph / dag_import_graph / dag_import_graph_file: every format's
// exact output, the JSON round trip, the real-world DOT corpus, and every
// kind of bad input.
#include "capi_test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>
#include <thread>

namespace {

std::string export_as(const dag_graph *g, dag_format format) {
    char *out = nullptr;
    EXPECT_EQ(dag_export_graph(g, format, &out, nullptr), DAG_OK) << dag_format_name(format);
    return take_string(out);
}

GraphPtr import_ok(dag_format format, const std::string &text) {
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    EXPECT_EQ(dag_import_graph(format, text.data(), text.size(), &g, &err), DAG_OK)
        << (err ? dag_error_message(err) : "") << "\n" << text;
    dag_error_free(err);
    return GraphPtr(g);
}

std::string import_error(dag_status expected, dag_format format, const std::string &text) {
    dag_graph *g = reinterpret_cast<dag_graph *>(0x1);
    std::string msg = expect_error(expected, [&](dag_error **err) {
        return dag_import_graph(format, text.data(), text.size(), &g, err);
    });
    EXPECT_EQ(g, reinterpret_cast<dag_graph *>(0x1)) << "out written on failure";
    return msg;
}

// Everything an import must reproduce: ids, names (unnamed as empty), edges.
struct Shape {
    std::vector<uint64_t> ids;
    std::vector<std::string> names;
    std::vector<uint64_t> edges;
    bool operator==(const Shape &o) const { return ids == o.ids && names == o.names && edges == o.edges; }
};

Shape shape_of(const dag_graph *g) {
    Shape s;
    dag_ids *ids = nullptr;
    EXPECT_EQ(dag_vertices(g, &ids, nullptr), DAG_OK);
    s.ids = take_ids(ids);
    for (uint64_t id : s.ids) {
        const char *name = nullptr;
        EXPECT_EQ(dag_vertex_name(g, id, &name, nullptr), DAG_OK);
        s.names.push_back(name ? name : "");
    }
    dag_ids *edges = nullptr;
    EXPECT_EQ(dag_edges(g, &edges, nullptr), DAG_OK);
    s.edges = take_ids(edges);
    return s;
}

// Edges by name, for formats that carry names but not ids.
std::set<std::pair<std::string, std::string>> named_edges(const dag_graph *g) {
    std::set<std::pair<std::string, std::string>> out;
    const Shape s = shape_of(g);
    std::map<uint64_t, std::string> name;
    for (size_t i = 0; i < s.ids.size(); ++i) name[s.ids[i]] = s.names[i];
    for (size_t i = 0; i < s.edges.size(); i += 2) out.insert({name[s.edges[i]], name[s.edges[i + 1]]});
    return out;
}

// A name as a test failure shows it.
std::string json_escaped(const std::string &s) {
    std::string out;
    for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
    return out;
}

uint64_t find(const dag_graph *g, const char *name) {
    uint64_t id = 0;
    EXPECT_EQ(dag_find_vertex(g, name, &id, nullptr), DAG_OK) << name;
    return id;
}

// a -> b -> c, c -> b (a cycle), d alone, and a name that needs quoting.
GraphPtr sample() {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    add(g.get(), "say \"hi\"");
    EXPECT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    EXPECT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    EXPECT_EQ(dag_connect(g.get(), c, b, nullptr), DAG_OK);
    return g;
}

}  // namespace

TEST(FormatExport, DotInTerraformLayoutWithCyclesInRed) {
    GraphPtr g = sample();
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_DOT),
              "digraph {\n"
              "\tcompound = \"true\"\n"
              "\tnewrank = \"true\"\n"
              "\tsubgraph \"root\" {\n"
              "\t\t\"a\"\n"
              "\t\t\"b\"\n"
              "\t\t\"c\"\n"
              "\t\t\"say \\\"hi\\\"\"\n"
              "\t\t\"a\" -> \"b\"\n"
              "\t\t\"b\" -> \"c\" [color = \"red\", penwidth = \"2.0\"]\n"
              "\t\t\"c\" -> \"b\" [color = \"red\", penwidth = \"2.0\"]\n"
              "\t}\n"
              "}\n");
}

namespace {

// The lines of a DOT text that are edges, in order.
std::vector<std::string> edge_lines(const std::string &dot) {
    std::istringstream text(dot);
    std::vector<std::string> edges;
    for (std::string line; std::getline(text, line);)
        if (line.find(" -> ") != std::string::npos) edges.push_back(line);
    return edges;
}

}  // namespace

// `terraform graph` sorts its edge lines as text, so the quote that ends a
// name counts (' ' and '!' come before it) and so does a quote's escape;
// the node statements go by name.
TEST(FormatExport, DotEdgesInTheOrderOfTheirLinesAsTerraformSortsThem) {
    GraphPtr g = new_graph();
    const uint64_t root = add(g.get(), "r");
    const uint64_t a = add(g.get(), "a"), expand = add(g.get(), "a (expand)"), bang = add(g.get(), "a!");
    const uint64_t quote = add(g.get(), "q\"x"), hash = add(g.get(), "q#");
    for (uint64_t to : {a, expand, bang, quote, hash}) ASSERT_EQ(dag_connect(g.get(), root, to, nullptr), DAG_OK);
    for (uint64_t from : {a, expand}) ASSERT_EQ(dag_connect(g.get(), from, hash, nullptr), DAG_OK);
    const std::string dot = export_as(g.get(), DAG_FORMAT_DOT);
    EXPECT_NE(dot.find("\t\t\"a\"\n\t\t\"a (expand)\"\n\t\t\"a!\"\n\t\t\"q\\\"x\"\n\t\t\"q#\"\n\t\t\"r\"\n"),
              std::string::npos)
        << dot;
    EXPECT_EQ(edge_lines(dot), (std::vector<std::string>{"\t\t\"a (expand)\" -> \"q#\"", "\t\t\"a\" -> \"q#\"",
                                                        "\t\t\"r\" -> \"a (expand)\"", "\t\t\"r\" -> \"a!\"",
                                                        "\t\t\"r\" -> \"a\"", "\t\t\"r\" -> \"q#\"",
                                                        "\t\t\"r\" -> \"q\\\"x\""}));
}

TEST(FormatExport, DotEdgeLinesAreSortedAsTextOnRandomNames) {
    std::mt19937 rng(2112);
    // Backslashes that DOT quotes as they are (in pairs, or before a
    // space): where two names first differ, an escaped quote then meets a
    // backslash, and what follows each decides (`x\ ` before `x"`).
    const std::vector<std::string> pieces = {"a", "b", " ", "!", "\"", "#", "\\\\", "\\ "};
    for (int round = 0; round < 400; ++round) {
        GraphPtr g = new_graph();
        std::set<std::string> names;
        while (names.size() < 12) {
            std::string name;
            for (std::size_t n = 1 + rng() % 4; n > 0; --n) name += pieces[rng() % pieces.size()];
            names.insert(name);
        }
        std::vector<uint64_t> ids;
        for (const std::string &name : names) ids.push_back(add(g.get(), name.c_str()));
        for (int e = 0; e < 40; ++e)
            ASSERT_EQ(dag_connect(g.get(), ids[rng() % ids.size()], ids[rng() % ids.size()], nullptr), DAG_OK);
        const std::vector<std::string> edges = edge_lines(export_as(g.get(), DAG_FORMAT_DOT));
        EXPECT_FALSE(edges.empty());
        EXPECT_TRUE(std::is_sorted(edges.begin(), edges.end())) << "round " << round;
    }
}

TEST(FormatExport, DotMarksASelfReferenceAndWritesUnnamedVerticesById) {
    GraphPtr g = new_graph();
    uint64_t x = add(g.get(), nullptr);
    uint64_t y = add(g.get(), "y");
    ASSERT_EQ(dag_connect(g.get(), y, y, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), y, x, nullptr), DAG_OK);
    const std::string dot = export_as(g.get(), DAG_FORMAT_DOT);
    EXPECT_NE(dot.find("\t\t\"1\"\n\t\t\"y\"\n"), std::string::npos) << dot;
    EXPECT_NE(dot.find("\t\t\"y\" -> \"1\"\n"), std::string::npos) << dot;
    EXPECT_NE(dot.find("\t\t\"y\" -> \"y\" [color = \"red\", penwidth = \"2.0\"]\n"), std::string::npos) << dot;
}

TEST(FormatExport, MermaidFlowchart) {
    GraphPtr g = sample();
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_MERMAID),
              "flowchart TD\n"
              "    v1[\"a\"]\n"
              "    v2[\"b\"]\n"
              "    v3[\"c\"]\n"
              "    v4[\"say #34;hi#34;\"]\n"
              "    v1 --> v2\n"
              "    v2 --> v3\n"
              "    v3 --> v2\n"
              "    linkStyle 1,2 stroke:red,stroke-width:2px\n");
}

TEST(FormatExport, MermaidWritesWhatItWouldReadAsEntityCodes) {
    GraphPtr g = new_graph();
    add(g.get(), "<b>#1\nend");
    add(g.get(), "`**x**` &lt; a\r%%b");
    add(g.get(), "style:a#b; direction TB");
    add(g.get(), "[root] aws_instance.web (expand) \xE2\x80\xA8\xC3\xA9");
    // Mermaid's placeholders for & (U+FB02 U+00B0) and ; (U+00B6 U+00DF),
    // which it turns back into & and ; in its output, a name's own too.
    add(g.get(), "Ma\xC3\x9F\xC2\xB6\xC3\x9Fx \xEF\xAC\x82\xC2\xB0\xC2\xB0" "60\xC2\xB6\xC3\x9F");
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_MERMAID),
              "flowchart TD\n"
              "    v1[\"#60;b#62;#35;1<br/>end\"]\n"
              "    v5[\"Ma\xC3\x9F#182;\xC3\x9Fx #64258;\xC2\xB0\xC2\xB0" "60#182;\xC3\x9F\"]\n"
              "    v4[\"[root] aws_instance.web (expand) #8232;\xC3\xA9\"]\n"
              "    v2[\"#96;#42;#42;x#42;#42;#96; #38;lt#59; a#13;#37;#37;b\"]\n"
              "    v3[\"style#58;a#35;b#59; #100;irection TB\"]\n");
}

TEST(FormatExport, TextIsTerraformString) {
    GraphPtr g = sample();
    char *s = nullptr;
    ASSERT_EQ(dag_to_string(g.get(), &s, nullptr), DAG_OK);
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_TEXT), take_string(s));
}

TEST(FormatExport, JsonListsIdsNamesAndEdges) {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a");
    uint64_t gone = add(g.get(), "gone");
    uint64_t anon = add(g.get(), nullptr);
    uint64_t q = add(g.get(), "q\"\\\n\xc3\xa9");
    ASSERT_EQ(dag_remove_vertex(g.get(), gone, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), q, a, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), a, anon, nullptr), DAG_OK);
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_JSON),
              "{\n"
              "  \"format\": \"libdag\",\n"
              "  \"version\": 1,\n"
              "  \"next_id\": 5,\n"
              "  \"vertices\": [\n"
              "    {\"id\": 1, \"name\": \"a\"},\n"
              "    {\"id\": 3},\n"
              "    {\"id\": 4, \"name\": \"q\\\"\\\\\\n\xc3\xa9\"}\n"
              "  ],\n"
              "  \"edges\": [\n"
              "    [1, 3],\n"
              "    [4, 1]\n"
              "  ]\n"
              "}\n");
}

TEST(FormatExport, EmptyGraphInEveryFormat) {
    GraphPtr g = new_graph();
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_TEXT), "");
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_DOT),
              "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n\t}\n}\n");
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_MERMAID), "flowchart TD\n");
    EXPECT_EQ(export_as(g.get(), DAG_FORMAT_JSON),
              "{\n  \"format\": \"libdag\",\n  \"version\": 1,\n  \"next_id\": 1,\n  \"vertices\": [],\n"
              "  \"edges\": []\n}\n");
    for (dag_format f : {DAG_FORMAT_DOT, DAG_FORMAT_JSON}) {
        GraphPtr back = import_ok(f, export_as(g.get(), f));
        EXPECT_EQ(dag_vertex_count(back.get()), 0u) << dag_format_name(f);
    }
}

TEST(FormatExport, BadArguments) {
    GraphPtr g = sample();
    char *out = reinterpret_cast<char *>(0x1);
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_export_graph(nullptr, DAG_FORMAT_DOT, &out, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_export_graph(g.get(), DAG_FORMAT_DOT, nullptr, e); });
    std::string msg = expect_error(DAG_E_INVALID_ARGUMENT,
                                   [&](dag_error **e) { return dag_export_graph(g.get(), DAG_FORMAT_AUTO, &out, e); });
    EXPECT_NE(msg.find("dag_export_graph"), std::string::npos) << msg;
    expect_error(DAG_E_INVALID_ARGUMENT,
                 [&](dag_error **e) { return dag_export_graph(g.get(), static_cast<dag_format>(99), &out, e); });
    EXPECT_EQ(out, reinterpret_cast<char *>(0x1)) << "out written on failure";
}

TEST(FormatExport, DotRefusesNamesGraphvizWouldReadBackChanged) {
    for (const char *name : {"ends in \\", "line\\\nbreak", "x\\\"y", "\n"}) {
        GraphPtr g = new_graph();
        uint64_t id = add(g.get(), name);
        char *out = nullptr;
        std::string msg = expect_error(DAG_E_INVALID_ARGUMENT,
                                       [&](dag_error **e) { return dag_export_graph(g.get(), DAG_FORMAT_DOT, &out, e); });
        EXPECT_NE(msg.find("vertex " + std::to_string(id) + " (\""), std::string::npos) << msg;
        // JSON carries the same name through unchanged.
        GraphPtr back = import_ok(DAG_FORMAT_JSON, export_as(g.get(), DAG_FORMAT_JSON));
        EXPECT_EQ(shape_of(back.get()), shape_of(g.get()));
    }
}

// Graphviz takes a node ID that begins with % for a name local to the text
// and names the node % and a number of its own, so such a name cannot go
// through DOT (found by tests/fuzz/dot_import_fuzzer: "%ayer2/frontend" came
// back as "%69153", and that as yet another number).
TEST(FormatExport, DotRefusesANameGraphvizTakesForALocalName) {
    for (const char *name : {"%", "%x", "%3", "%\"q"}) {
        GraphPtr g = new_graph();
        const uint64_t id = add(g.get(), name);
        char *out = nullptr;
        const std::string msg = expect_error(
            DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_export_graph(g.get(), DAG_FORMAT_DOT, &out, e); });
        EXPECT_NE(msg.find("vertex " + std::to_string(id) + " (\""), std::string::npos) << msg;
        // Not refused for nothing: written anyway, it would not come back as
        // it was (it came back renamed before the import refused it).
        std::string text = "digraph { \"";
        for (const char *c = name; *c; ++c) text += *c == '"' ? std::string("\\\"") : std::string(1, *c);
        text += "\" }";
        dag_graph *back = nullptr;
        EXPECT_NE(dag_import_graph(DAG_FORMAT_DOT, text.data(), text.size(), &back, nullptr), DAG_OK) << text;
        dag_free(back);
    }
    GraphPtr g = new_graph();
    add(g.get(), "a%");
    EXPECT_EQ(shape_of(import_ok(DAG_FORMAT_DOT, export_as(g.get(), DAG_FORMAT_DOT)).get()), shape_of(g.get()));
}

TEST(FormatImport, DotNodeIdThatGraphvizRenamesIsRefused) {
    for (const char *text : {"digraph { \"%ayer2/frontend\" -> b }", "digraph { \"%3\" }", "digraph { a -> \"%\" }"}) {
        const std::string msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, text);
        EXPECT_NE(msg.find("a node ID in line 1 begins with %"), std::string::npos) << msg;
    }
    GraphPtr g = import_ok(DAG_FORMAT_DOT, "digraph { \"a%\" -> b }");
    EXPECT_EQ(dag_vertex_count(g.get()), 2u);
}

TEST(FormatRoundTrip, DotKeepsNamesAndEdges) {
    GraphPtr g = new_graph();
    const char *names[] = {"plain", "with space", "quote\"in", "back\\slash", "new\nline", "\xd0\x9f\xd1\x80\xd0\xb8",
                           "[root] provider[\"registry.terraform.io/hashicorp/aws\"]", "a:port", "{x}", "->"};
    std::vector<uint64_t> ids;
    for (const char *n : names) ids.push_back(add(g.get(), n));
    for (size_t i = 0; i + 1 < ids.size(); ++i) ASSERT_EQ(dag_connect(g.get(), ids[i], ids[i + 1], nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), ids.back(), ids.front(), nullptr), DAG_OK);
    GraphPtr back = import_ok(DAG_FORMAT_DOT, export_as(g.get(), DAG_FORMAT_DOT));
    EXPECT_EQ(named_edges(back.get()), named_edges(g.get()));
    EXPECT_EQ(dag_vertex_count(back.get()), dag_vertex_count(g.get()));
    EXPECT_EQ(export_as(back.get(), DAG_FORMAT_DOT), export_as(g.get(), DAG_FORMAT_DOT));
}

TEST(FormatRoundTrip, JsonIsIdentityOnRandomGraphs) {
    std::mt19937 rng(20261123);
    for (int round = 0; round < 200; ++round) {
        GraphPtr g = new_graph();
        const int n = 1 + static_cast<int>(rng() % 40);
        std::vector<uint64_t> ids;
        for (int i = 0; i < n; ++i) {
            std::string name = "v" + std::to_string(i) + (rng() % 3 == 0 ? " \"\\\n\xe2\x82\xac" : "");
            ids.push_back(add(g.get(), rng() % 4 == 0 ? nullptr : name.c_str()));
        }
        for (int e = 0, m = static_cast<int>(rng() % (3 * n)); e < m; ++e)
            ASSERT_EQ(dag_connect(g.get(), ids[rng() % n], ids[rng() % n], nullptr), DAG_OK);
        for (uint64_t id : ids)
            if (rng() % 5 == 0) { ASSERT_EQ(dag_remove_vertex(g.get(), id, nullptr), DAG_OK); }
        const std::string json = export_as(g.get(), DAG_FORMAT_JSON);
        GraphPtr back = import_ok(DAG_FORMAT_AUTO, json);
        ASSERT_EQ(shape_of(back.get()), shape_of(g.get())) << json;
        EXPECT_EQ(export_as(back.get(), DAG_FORMAT_JSON), json);
        // Removed ids stay used up: both graphs issue the same id next.
        EXPECT_EQ(add(back.get(), nullptr), add(g.get(), nullptr)) << json;
    }
}

TEST(FormatImport, JsonGapsBecomeRemovedIds) {
    GraphPtr g = import_ok(DAG_FORMAT_JSON, R"({"vertices": [{"id": 5, "name": "e"}, {"id": 2}], "edges": [[5, 2]]})");
    EXPECT_EQ(shape_of(g.get()).ids, (std::vector<uint64_t>{2, 5}));
    EXPECT_EQ(dag_has_edge(g.get(), 5, 2), 1);
    const char *name = nullptr;
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_vertex_name(g.get(), 3, &name, e); });
    EXPECT_EQ(add(g.get(), "next"), 6u);
}

TEST(FormatImport, AutoDetectsJsonAndDot) {
    GraphPtr j = import_ok(DAG_FORMAT_AUTO, " \n\t{\"vertices\": [{\"id\": 1, \"name\": \"a\"}]}");
    EXPECT_EQ(find(j.get(), "a"), 1u);
    GraphPtr d = import_ok(DAG_FORMAT_AUTO, "/* c */ digraph { a -> b }");
    EXPECT_EQ(dag_has_edge(d.get(), find(d.get(), "a"), find(d.get(), "b")), 1);
}

TEST(FormatImport, DotSyntaxEdgeGroupsChainsSubgraphsAndPorts) {
    GraphPtr g = import_ok(DAG_FORMAT_DOT,
                           "strict digraph \"x\" {\n"
                           "  node [shape=box]; a -> b -> c;\n"
                           "  a -> {d e} [color=red]\n"
                           "  subgraph cluster_1 { label=\"m\"; f; subgraph { g } }\n"
                           "  f:p1:ne -> g:s\n"
                           "  a -> b  // repeated\n"
                           "  \"h\" [label=<<b>h</b>>]\n"
                           "}\n");
    EXPECT_EQ(dag_vertex_count(g.get()), 8u);
    EXPECT_EQ(named_edges(g.get()), (std::set<std::pair<std::string, std::string>>{
                                        {"a", "b"}, {"b", "c"}, {"a", "d"}, {"a", "e"}, {"f", "g"}}));
    // Ids follow the order the file first names each node.
    EXPECT_EQ(find(g.get(), "a"), 1u);
    EXPECT_EQ(find(g.get(), "h"), 8u);
}

TEST(FormatImport, TerraformDirectionIsDependsOn) {
    GraphPtr g = import_ok(DAG_FORMAT_DOT,
                           "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n"
                           "\t\t\"[root] aws_instance.web (expand)\" -> \"[root] aws_subnet.a (expand)\"\n"
                           "\t\t\"[root] aws_subnet.a (expand)\" -> \"[root] provider[\\\"registry.terraform.io/hashicorp/aws\\\"]\"\n"
                           "\t}\n}\n");
    dag_ids *order = nullptr;
    ASSERT_EQ(dag_reverse_topological_order(g.get(), &order, nullptr), DAG_OK);
    std::vector<uint64_t> ids = take_ids(order);
    std::vector<std::string> names;
    for (uint64_t id : ids) {
        const char *n = nullptr;
        ASSERT_EQ(dag_vertex_name(g.get(), id, &n, nullptr), DAG_OK);
        names.push_back(n);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"[root] provider[\"registry.terraform.io/hashicorp/aws\"]",
                                               "[root] aws_subnet.a (expand)", "[root] aws_instance.web (expand)"}));
}

TEST(FormatImport, Encodings) {
    // UTF-16 with a byte-order mark, both byte orders, with a name beyond the BMP.
    const std::u16string text = u"digraph { \"\U0001F600\" -> \"\u00e9\" }\r\n";
    std::string le = "\xFF\xFE", be = "\xFE\xFF";
    for (char16_t c : text) {
        le += static_cast<char>(c & 0xFF);
        le += static_cast<char>(c >> 8);
        be += static_cast<char>(c >> 8);
        be += static_cast<char>(c & 0xFF);
    }
    for (const std::string &bytes : {le, be}) {
        GraphPtr g = import_ok(DAG_FORMAT_AUTO, bytes);
        EXPECT_EQ(dag_has_edge(g.get(), find(g.get(), "\xF0\x9F\x98\x80"), find(g.get(), "\xC3\xA9")), 1);
    }
    GraphPtr bom = import_ok(DAG_FORMAT_AUTO, "\xEF\xBB\xBF{\"vertices\": [{\"id\": 1, \"name\": \"a\"}]}");
    EXPECT_EQ(dag_vertex_count(bom.get()), 1u);
    // charset=latin1: node IDs are Latin-1 bytes, stored as UTF-8.
    GraphPtr latin = import_ok(DAG_FORMAT_DOT, "digraph { graph [charset=\"Latin1\"]; \"caf\xE9\" -> b }");
    EXPECT_EQ(dag_has_edge(latin.get(), find(latin.get(), "caf\xC3\xA9"), find(latin.get(), "b")), 1);
}

TEST(FormatImport, BadEncodings) {
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_AUTO, std::string("\xFF\xFEx", 3)).find("odd number"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_AUTO, std::string("\xFF\xFE\x00\xD8x\x00", 6)).find("surrogate"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_AUTO, std::string("\xFF\xFE\x00\xDC", 4)).find("surrogate"),
              std::string::npos);
    // UTF-32 with its mark, both byte orders: it was told as a NUL at offset 0.
    for (const std::string bytes : {std::string("\xFF\xFE\0\0{\0\0\0}\0\0\0", 12), std::string("\0\0\xFE\xFF\0\0\0{\0\0\0}", 12)})
        EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_AUTO, bytes).find("the text is UTF-32"), std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, std::string("digraph { a\0 }", 15)).find("NUL"),
              std::string::npos);
    EXPECT_EQ(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, std::string("digraph { a\0 }", 15)).find("UTF-16"),
              std::string::npos);
    // UTF-16 without its mark: the NUL told, and what it likely means.
    const std::string ascii = "digraph { a -> b }";
    std::string le, be;
    for (char c : ascii) le += std::string{c, '\0'}, be += std::string{'\0', c};
    for (const std::string &bytes : {le, be}) {
        const std::string message = import_error(DAG_E_PARSE, DAG_FORMAT_AUTO, bytes);
        EXPECT_NE(message.find("NUL character at offset"), std::string::npos) << message;
        EXPECT_NE(message.find("it looks like UTF-16 without a byte-order mark"), std::string::npos) << message;
    }
    std::string msg = import_error(DAG_E_BAD_UTF8, DAG_FORMAT_DOT, "digraph { \"caf\xE9\" }");
    EXPECT_NE(msg.find("caf\\xe9"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a Latin-1 graph needs charset=latin1"), std::string::npos) << msg;
    // A byte-order mark overrides the charset the graph declares: the
    // advice to declare it was no help.
    msg = import_error(DAG_E_BAD_UTF8, DAG_FORMAT_DOT, "\xEF\xBB\xBF" "digraph { charset=latin1; \"caf\xE9\" }");
    EXPECT_NE(msg.find("its charset=latin1 does not apply: the text begins with a byte-order mark"), std::string::npos)
        << msg;
}

TEST(FormatImport, MalformedDot) {
    std::string msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph {\n  a -> b\n  c -> \n}\n");
    EXPECT_NE(msg.find("dag_import_graph: DOT: syntax error in line 4"), std::string::npos) << msg;
    // Line numbers start again for every import.
    msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph {\n  ->\n}");
    EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
    // cgraph does not count a newline inside a quoted ID: the lines after
    // one were told short by as many. Those in comments, HTML IDs and
    // escaped by a backslash it counts.
    const std::vector<std::pair<const char *, const char *>> multi_line = {
        {"digraph {\n \"x\ny\nz\" -> b\n c -> -> d\n}\n", "syntax error in line 5 near '->'"},
        {"digraph {\n \"x\ny\" -> \"b\n\nc\" -> 1a\n}\n", "in line 5 of input"},
        {"digraph {\n <x\ny\nz> -> b\n c -> -> d\n}\n", "syntax error in line 5 near '->'"},
        {"digraph {\n /* \"x\ny */ a -> \"b\"\n c -> -> d\n}\n", "syntax error in line 4 near '->'"},
        {"digraph {\n \"x\\\ny\\\nz\" -> b\n c -> -> d\n}\n", "syntax error in line 5 near '->'"},
        {"digraph {\n // \"x\n \"y\nz\" -> -> d\n}\n", "syntax error in line 4 near '->'"},
        // After the error on its line: not before it.
        {"digraph {\na -> -> b [label=\"1\n2\n3\"]\n}\n", "syntax error in line 2 near '->'"}};
    for (const auto &[text, expected] : multi_line) {
        msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, text);
        EXPECT_NE(msg.find(expected), std::string::npos) << text << "\n" << msg;
    }
    // A text ending inside a quoted ID, HTML ID or comment ran on into the
    // text libdag appends: a line past the text's end, its \x01 as the token.
    const std::vector<std::pair<const char *, const char *>> unclosed = {
        {"digraph {\n  a -> \"b\n  b -> c\n}\n", "syntax error in line 2: a quoted ID ('\"') begun there"},
        {"digraph { \"a -> b }", "syntax error in line 1: a quoted ID ('\"') begun there"},
        {"digraph {\n a -> <b\n}\n", "syntax error in line 2: an HTML ID ('<') begun there"},
        {"digraph {\n a -> b\n /* c -> d\n}\n", "syntax error in line 3: a comment ('/*') begun there"},
        {"digraph { a -> b }\n/* note", "syntax error in line 2: a comment ('/*') begun there"},
        // An error before it is the one told.
        {"digraph {\n a -> -> b\n c -> \"d\n}\n", "syntax error in line 2 near '->'"}};
    for (const auto &[text, expected] : unclosed) {
        msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, text);
        EXPECT_NE(msg.find(expected), std::string::npos) << text << "\n" << msg;
        EXPECT_EQ(msg.find('\x01'), std::string::npos) << msg;
    }
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "").find("no graph"), std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "  \n").find("no graph"), std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "graph { a -- b }").find("undirected"), std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph { a } digraph { b }").find("second graph"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph { a } trailing").find("syntax error"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph { \"\" -> a }").find("empty"), std::string::npos);
    import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph { a -> b ");
    import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "{\"vertices\": []}");
    // cgraph's parser stack, filled by one long edge chain, was told only as
    // "memory exhausted", which read as libdag out of memory.
    std::string chain = "digraph { v0";
    for (int i = 1; i < 2500; ++i) chain += " -> v" + std::to_string(i);
    msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, chain + " }");
    EXPECT_NE(msg.find("DOT: memory exhausted in line 1 near '}' (Graphviz's DOT parser ran out of stack: one "
                       "statement holds too much"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("write one edge per statement)"), std::string::npos) << msg;
    chain.erase(chain.rfind(" -> "));
    EXPECT_EQ(dag_vertex_count(import_ok(DAG_FORMAT_DOT, chain + " }").get()), 2499u);
    // A good import after all those failures still reads from line 1.
    GraphPtr g = import_ok(DAG_FORMAT_DOT, "digraph { a -> b }");
    EXPECT_EQ(dag_edge_count(g.get()), 1u);
}

// cgraph keeps no line for a node, and its lexer's line after the first
// graph is that graph's end: these refusals name the text's own line,
// counted past quoted IDs, escaped line breaks, '+' joins and comments
// spanning lines, and not for an attribute, port or graph name alike.
TEST(FormatImport, DotRefusalsCgraphGivesNoLineForSayWhere) {
    const std::vector<std::tuple<dag_status, std::string, const char *>> cases = {
        {DAG_E_PARSE, "digraph {\n a\n}\n\n digraph { b }", "a second graph follows the first in line 5;"},
        {DAG_E_PARSE, "digraph \"{\" {\n \"}\" -> a /* } */\n}\ndigraph x {}", "a second graph follows the first in line 4;"},
        {DAG_E_PARSE, "digraph { a }\n\n@ digraph { x }", "text after the graph in line 3 ends it early"},
        {DAG_E_PARSE, "digraph {\n a -> b\n c [label=\"\"]\n \"\" -> d\n}", "a node in line 4 has the empty ID"},
        {DAG_E_PARSE, "digraph {\n \"p\nq\" -> r\n s -> \"\"\n}", "a node in line 4 has the empty ID"},
        {DAG_E_PARSE, "digraph {\n \"x\\\ny\" + \"z\n\" -> \"\" }", "a node in line 4 has the empty ID"},
        {DAG_E_PARSE, "digraph {\n label=\"\"\n a:\"\" -> b\n <> -> c\n}", "a node in line 4 has the empty ID"},
        {DAG_E_PARSE, "digraph {\n // \"\" ->\n a\n b -> \"%x\"\n}", "a node ID in line 4 begins with %"},
        {DAG_E_BAD_UTF8, "digraph {\n a [label=\"\xff\"]\n \"\xff\" -> b\n}", "\" in line 3 is not valid UTF-8"},
        {DAG_E_BAD_UTF8, "digraph \"\xff\" {\n x -> \"\"+\"\xff\"\n}", "\" in line 2 is not valid UTF-8"}};
    for (const auto &[status, text, expected] : cases) {
        const std::string msg = import_error(status, DAG_FORMAT_DOT, text);
        EXPECT_NE(msg.find(expected), std::string::npos) << text << "\n" << msg;
    }
}

TEST(FormatImport, MalformedJson) {
    struct Case {
        dag_status status;
        const char *text;
        const char *needle;
    };
    const Case cases[] = {
        {DAG_E_PARSE, "{", "parse error at line 1, column 2"},
        {DAG_E_PARSE, "[]", "top level: must be an object"},
        {DAG_E_PARSE, "{}", "no \"vertices\""},
        {DAG_E_PARSE, "{\"vertices\": 3}", "vertices: must be an array"},
        {DAG_E_PARSE, "{\"vertices\": [3]}", "vertices[0]: must be an object"},
        {DAG_E_PARSE, "{\"vertices\": [{}]}", "vertices[0]: no \"id\""},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 0}]}", "out of range"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": -1}]}", "out of range"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 4294967295}]}", "out of range"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1.5}]}", "must be an integer"},
        // An integer too wide for 64 bits, which nlohmann reads as a double,
        // was called no integer ("not 1.8446744073709552e+19").
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 18446744073709551616}]}",
         "JSON: vertices[0].id: id 18446744073709551616 is out of range (1 to 4294967294)"},
        {DAG_E_PARSE, "{\"vertices\": [{\"name\": \"a\", \"id\": -18446744073709551617}]}",
         "vertices[0].id: id -18446744073709551617 is out of range"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"next_id\": 99999999999999999999}",
         "next_id: id 99999999999999999999 is out of range"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"edges\": [[1, 1], [1, 99999999999999999999]]}",
         "edges[1]: id 99999999999999999999 is out of range"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"edges\": [[99999999999999999999.0, 1]]}",
         "edges[0]: an id must be an integer, not 1e+20"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 18446744073709551616.0}]}",
         "an id must be an integer, not 1.8446744073709552e+19"},
        // A number no double holds, anywhere (json_import_fuzzer found it
        // reported as DAG_E_INTERNAL).
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1e310}]}",
         "parse error at line 1, column 22: number overflow parsing '1e310'"},
        {DAG_E_PARSE, "{\"vertices\": [],\n \"x\": [2,\n   -1e400]}", "at line 3, column 4: number overflow"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": \"1\"}]}", "must be an integer"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1, \"name\": 7}]}", "vertices[0].name: must be a string"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}, {\"id\": 1}]}", "listed twice"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 4000000000}]}", "too large"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"edges\": {}}", "edges: must be an array"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"edges\": [[1]]}", "edges[0]: must be an array of two"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"edges\": [[1, 2]]}", "vertex id 2 is not listed"},
        {DAG_E_PARSE, "{\"format\": \"other\", \"vertices\": []}", "format: must be \"libdag\""},
        {DAG_E_PARSE, "{\"version\": 2, \"vertices\": []}", "reads version 1"},
        // 1.0 is not 1 here, as an id 1.0 is refused.
        {DAG_E_PARSE, "{\"version\": 1.0, \"vertices\": []}", "reads version 1, not 1.0"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1, \"name\": \"\xff\"}]}", "UTF-8"},
        {DAG_E_DUPLICATE_NAME, "{\"vertices\": [{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, \"name\": \"a\"}]}", "\"a\""},
        {DAG_E_INVALID_ARGUMENT, "{\"vertices\": [{\"id\": 1, \"name\": \"\"}]}", "vertices[0].name: is empty"},
        {DAG_E_PARSE, "{\"x\": [{\"name\": 1}], \"vertices\": [{\"id\": 1}, {\"id\": 2, \"name\": \"b\", \"name\": \"c\"}]}",
         "vertices[1]: key \"name\" is given twice"},
        // A key read twice: the first's vertices, edges or name would be lost.
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}], \"vertices\": [{\"id\": 2}]}",
         "top level: key \"vertices\" is given twice"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1}, {\"id\": 2}], \"edges\": [[1, 2]], \"edges\": []}",
         "key \"edges\" is given twice"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1, \"name\": \"a\", \"name\": \"b\"}]}",
         "vertices[0]: key \"name\" is given twice"},
        {DAG_E_PARSE, "{\"vertices\": [{\"id\": 1, \"\\u0069d\": 2}]}", "key \"id\" is given twice"},
    };
    for (const Case &c : cases) {
        std::string msg = import_error(c.status, DAG_FORMAT_JSON, c.text);
        EXPECT_NE(msg.find(c.needle), std::string::npos) << c.text << " -> " << msg;
    }
    // A key libdag does not read may repeat, as may one nested in it.
    for (const char *text : {"{\"vertices\": [{\"id\": 1, \"x\": 1, \"x\": 2}], \"meta\": {\"id\": 1, \"id\": 2}}",
                             "{\"meta\": 1, \"vertices\": [], \"meta\": 2}"}) {
        dag_graph *g = nullptr;
        EXPECT_EQ(dag_import_graph(DAG_FORMAT_JSON, text, std::strlen(text), &g, nullptr), DAG_OK) << text;
        dag_free(g);
    }
    // Deep nesting is an error, not a stack overflow.
    std::string deep = "{\"vertices\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    import_error(DAG_E_PARSE, DAG_FORMAT_JSON, deep);
}

TEST(FormatImport, BadArguments) {
    dag_graph *g = nullptr;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_import_graph(DAG_FORMAT_DOT, "x", 1, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_import_graph(DAG_FORMAT_DOT, nullptr, 1, &g, e); });
    // No bytes at all, NULL allowed: DOT finds no graph.
    expect_error(DAG_E_PARSE, [&](dag_error **e) { return dag_import_graph(DAG_FORMAT_DOT, nullptr, 0, &g, e); });
    // Ints, not dag_format variables: copying an out-of-range enum is undefined.
    for (int f : {int{DAG_FORMAT_TEXT}, int{DAG_FORMAT_MERMAID}, -1, 5})
        expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) {
            return dag_import_graph(static_cast<dag_format>(f), "digraph {}", 10, &g, e);
        });
    EXPECT_EQ(g, nullptr);
}

TEST(FormatImport, Files) {
    const std::string dir = ::testing::TempDir();
    const std::string path = dir + "/libdag_format_test.json";
    {
        std::ofstream f(path, std::ios::binary);
        f << "{\"vertices\": [{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, \"name\": \"b\"}], \"edges\": [[1, 2]]}";
    }
    dag_graph *g = nullptr;
    ASSERT_EQ(dag_import_graph_file(DAG_FORMAT_AUTO, path.c_str(), &g, nullptr), DAG_OK);
    GraphPtr held(g);
    EXPECT_EQ(dag_has_edge(g, 1, 2), 1);
    std::remove(path.c_str());

    dag_graph *none = nullptr;
    std::string msg = expect_error(DAG_E_IO, [&](dag_error **e) {
        return dag_import_graph_file(DAG_FORMAT_AUTO, "/nonexistent/libdag.dot", &none, e);
    });
    EXPECT_NE(msg.find("\"/nonexistent/libdag.dot\": No such file or directory"), std::string::npos) << msg;
    msg = expect_error(DAG_E_IO,
                       [&](dag_error **e) { return dag_import_graph_file(DAG_FORMAT_AUTO, dir.c_str(), &none, e); });
    EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_import_graph_file(DAG_FORMAT_AUTO, nullptr, &none, e); });
    expect_error(DAG_E_NULL_ARGUMENT,
                 [&](dag_error **e) { return dag_import_graph_file(DAG_FORMAT_AUTO, path.c_str(), nullptr, e); });
    expect_error(DAG_E_INVALID_ARGUMENT,
                 [&](dag_error **e) { return dag_import_graph_file(DAG_FORMAT_MERMAID, "/nonexistent", &none, e); });
    EXPECT_EQ(none, nullptr);
}

TEST(FormatImport, ConcurrentDotImportsDoNotMix) {
    // Graphviz's parser is global state: libdag must serialise it.
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([t, &failures] {
            for (int i = 0; i < 100; ++i) {
                std::string name = "t" + std::to_string(t) + "_" + std::to_string(i);
                std::string text = "digraph {\n" + name + " -> x\n" + (i % 7 == 0 ? "->\n" : "") + "}";
                dag_graph *g = nullptr;
                dag_status st = dag_import_graph(DAG_FORMAT_DOT, text.data(), text.size(), &g, nullptr);
                if (i % 7 == 0) {
                    failures[t] += st != DAG_E_PARSE;
                    continue;
                }
                uint64_t id = 0;
                failures[t] += st != DAG_OK || dag_vertex_count(g) != 2 ||
                               dag_find_vertex(g, name.c_str(), &id, nullptr) != DAG_OK;
                dag_free(g);
            }
        });
    for (auto &th : threads) th.join();
    EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST(FormatNames, EveryFormatHasOne) {
    EXPECT_STREQ(dag_format_name(DAG_FORMAT_AUTO), "auto");
    EXPECT_STREQ(dag_format_name(DAG_FORMAT_TEXT), "text");
    EXPECT_STREQ(dag_format_name(DAG_FORMAT_DOT), "dot");
    EXPECT_STREQ(dag_format_name(DAG_FORMAT_MERMAID), "mermaid");
    EXPECT_STREQ(dag_format_name(DAG_FORMAT_JSON), "json");
    EXPECT_STREQ(dag_format_name(static_cast<dag_format>(42)), "unknown");
}

TEST(FormatExport, DotRefusesAnUnnamedVertexWrittenLikeAnotherVertexsName) {
    GraphPtr g = new_graph();
    uint64_t anon = add(g.get(), nullptr);
    uint64_t named = add(g.get(), "1");
    ASSERT_EQ(anon, 1u);
    char *out = nullptr;
    std::string msg = expect_error(DAG_E_INVALID_ARGUMENT,
                                   [&](dag_error **e) { return dag_export_graph(g.get(), DAG_FORMAT_DOT, &out, e); });
    EXPECT_NE(msg.find("vertices 1 and " + std::to_string(named) + " would both be written as \"1\""),
              std::string::npos)
        << msg;
}

TEST(FormatRoundTrip, DotQuotesExactlyTheNamesGraphvizReadsBack) {
    // Every name of up to 5 characters over the ones Graphviz's quoted
    // strings treat specially: what the writer accepts must come back as it
    // was, and what it refuses must really come back changed.
    const char alphabet[] = {'a', '\\', '"', '\n'};
    std::vector<std::string> names{""};
    for (size_t len = 1, begin = 0; len <= 5; ++len) {
        const size_t end = names.size();
        for (size_t i = begin; i < end; ++i)
            for (char c : alphabet) names.push_back(names[i] + c);
        begin = end;
    }
    for (size_t i = 1; i < names.size(); ++i) {
        const std::string &name = names[i];
        GraphPtr g = new_graph();
        add(g.get(), name.c_str());
        char *dot = nullptr;
        const bool writable = dag_export_graph(g.get(), DAG_FORMAT_DOT, &dot, nullptr) == DAG_OK;
        std::string text;
        if (writable) {
            text = take_string(dot);
        } else {
            // What a writer that did not refuse would write.
            text = "digraph { \"";
            for (char c : name) text += c == '"' ? std::string("\\\"") : std::string(1, c);
            text += "\" }";
        }
        dag_graph *back = nullptr;
        const bool same = dag_import_graph(DAG_FORMAT_DOT, text.data(), text.size(), &back, nullptr) == DAG_OK &&
                          dag_vertex_count(back) == 1 && shape_of(back).names == std::vector<std::string>{name};
        dag_free(back);
        EXPECT_EQ(writable, same) << json_escaped(name) << (writable ? " written but changed" : " refused but fine");
    }
}

TEST(FormatImport, NothingIsLeftInGraphvizsLexerForTheNextImport) {
    // A refused second graph, a bare '@' (cgraph's end of input) and
    // unclosed text must not leak into the import that follows.
    for (const char *first : {"digraph { a } digraph { b } digraph { c }", "digraph { a } @ digraph { x }",
                              "@ digraph { y }", "digraph { a } /* unclosed", "digraph { \"unclosed }"}) {
        dag_graph *g = nullptr;
        EXPECT_EQ(dag_import_graph(DAG_FORMAT_DOT, first, std::strlen(first), &g, nullptr), DAG_E_PARSE) << first;
        for (const char *next : {"", "digraph { z }"}) {
            dag_graph *n = nullptr;
            dag_status st = dag_import_graph(DAG_FORMAT_DOT, next, std::strlen(next), &n, nullptr);
            GraphPtr held(n);
            if (*next == '\0') {
                EXPECT_EQ(st, DAG_E_PARSE) << "after " << first;
            } else {
                ASSERT_EQ(st, DAG_OK) << "after " << first;
                EXPECT_EQ(shape_of(n).names, std::vector<std::string>{"z"}) << "after " << first;
            }
        }
    }
}

TEST(FormatImport, GraphvizWarningsAreErrors) {
    // Graphviz reads "1a" as two nodes, 1 and a, and only warns.
    std::string msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, "digraph { 1a -> b }");
    EXPECT_NE(msg.find("1a"), std::string::npos) << msg;
    GraphPtr g = import_ok(DAG_FORMAT_DOT, "digraph { \"1a\" -> b }");
    EXPECT_EQ(find(g.get(), "1a"), 1u);
    // The first of several: the others came after it on lines of their own,
    // each "Warning: ...", which a host printing the message showed as
    // Graphviz's own output.
    for (const char *text : {"digraph { c -> 1a -> 2b }", "Name: x\n a 0x1\n"}) {
        msg = import_error(DAG_E_PARSE, DAG_FORMAT_DOT, text);
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        EXPECT_EQ(msg.find("Warning"), std::string::npos) << msg;
    }
}

TEST(FormatImport, MessagesAreUtf8WhateverTheInput) {
    for (const char *text : {"digraph { a -> b } \xE9\xE9", "{\"vertices\": [\xE9]}"}) {
        dag_graph *g = nullptr;
        dag_error *err = nullptr;
        EXPECT_EQ(dag_import_graph(DAG_FORMAT_AUTO, text, std::strlen(text), &g, &err), DAG_E_PARSE) << text;
        ASSERT_NE(err, nullptr);
        const std::string msg = dag_error_message(err);
        dag_error_free(err);
        EXPECT_NE(msg.find("\\xe9"), std::string::npos) << msg;
        for (unsigned char c : msg) EXPECT_LT(c, 0x80) << msg;
    }
    dag_graph *g = nullptr;
    std::string msg = expect_error(
        DAG_E_IO, [&](dag_error **e) { return dag_import_graph_file(DAG_FORMAT_AUTO, "/nonexistent/\xFF.dot", &g, e); });
    EXPECT_NE(msg.find("/nonexistent/\\xff.dot"), std::string::npos) << msg;
}

TEST(FormatImport, Utf16TextIsNotConvertedFromLatin1AgainWhateverItDeclares) {
    const std::u16string text = u"digraph { graph [charset=latin1]; \"caf\u00e9\" }";
    std::string le = "\xFF\xFE";
    for (char16_t c : text) {
        le += static_cast<char>(c & 0xFF);
        le += static_cast<char>(c >> 8);
    }
    GraphPtr g = import_ok(DAG_FORMAT_DOT, le);
    EXPECT_EQ(shape_of(g.get()).names, std::vector<std::string>{"caf\xC3\xA9"});
}

TEST(FormatImport, JsonNextIdAndNames) {
    GraphPtr g = import_ok(DAG_FORMAT_JSON, R"({"next_id": 9, "vertices": [{"id": 2, "name": "b"}]})");
    EXPECT_EQ(add(g.get(), nullptr), 9u);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_JSON, R"({"next_id": 2, "vertices": [{"id": 2}]})")
                  .find("next_id: 2 is not above the largest id, 2"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_JSON, R"({"next_id": 1048594, "vertices": [{"id": 2}]})")
                  .find("next_id: 1048594 is too large for 1 vertex (at most 1048593)"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_JSON, R"({"vertices": [{"id": 1048593}]})")
                  .find("id 1048593 is too large for 1 vertex (at most 1048592)"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_JSON, R"({"next_id": "3", "vertices": []})").find("integer"),
              std::string::npos);
    EXPECT_NE(import_error(DAG_E_PARSE, DAG_FORMAT_JSON, R"({"vertices": [{"id": 1, "name": "a\u0000b"}]})")
                  .find("vertices[0].name: holds a NUL"),
              std::string::npos);
}

TEST(FormatImport, JsonOfAGraphThatRemovedManyVerticesReadsBack) {
    // 70,000 ids issued for two vertices: the export listed ids the import
    // refused as too large (its bound was 16 per vertex plus 65536).
    GraphPtr g = new_graph();
    for (int i = 0; i < 70000; ++i) {
        uint64_t id = 0;
        ASSERT_EQ(dag_add_vertex(g.get(), nullptr, nullptr, &id, nullptr), DAG_OK);
        ASSERT_EQ(dag_remove_vertex(g.get(), id, nullptr), DAG_OK);
    }
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    const std::string text = export_as(g.get(), DAG_FORMAT_JSON);
    GraphPtr back = import_ok(DAG_FORMAT_JSON, text);
    EXPECT_EQ(export_as(back.get(), DAG_FORMAT_JSON), text);
    EXPECT_EQ(add(back.get(), "c"), b + 1);
}

TEST(FormatImport, DeeplyNestedValuesInMessagesDoNotOverflowTheStack) {
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    for (const std::string &text : {"{\"format\": " + deep + ", \"vertices\": []}",
                                    "{\"vertices\": [{\"id\": " + deep + "}]}",
                                    "{\"version\": " + deep + ", \"vertices\": []}"}) {
        const std::string msg = import_error(DAG_E_PARSE, DAG_FORMAT_JSON, text);
        EXPECT_NE(msg.find("an array"), std::string::npos) << msg.substr(0, 200);
    }
}

TEST(FormatImport, SizeNoTextCanHave) {
    dag_graph *g = nullptr;
    expect_error(DAG_E_INVALID_ARGUMENT,
                 [&](dag_error **e) { return dag_import_graph(DAG_FORMAT_DOT, "digraph {}", SIZE_MAX, &g, e); });
    EXPECT_EQ(g, nullptr);
}
