// The DOT importer against real files written by others (tests/resources/
// dot-corpus, see its INDEX.md): `terraform graph` output from 2015 to
// today, Bazel, CMake, dependency-cruiser and Graphviz's own test graphs.
// The expected counts are INDEX.md's, made by Graphviz's parser and networkx,
// not by libdag.
#include "capi_test_support.hpp"

#include <cctype>
#include <cstring>
#include <ostream>
#include <set>

namespace {

struct CorpusFile {
    const char *name;
    size_t vertices;
    size_t edges;  // distinct
    bool acyclic;
};

const CorpusFile corpus[] = {
    {"tf-01-sereneborg-nested-modules-plan.dot", 675, 1541, true},
    {"tf-02-aws-devops-eks-modules.dot", 273, 542, true},
    {"tf-03-aws-web-app-vpc-plan.dot", 177, 282, true},
    {"tf-04-aws-modules-utf16-crlf.dot", 82, 144, true},
    {"tf-05-gcp-cloudrun.dot", 85, 137, true},
    {"tf-06-oci-multiprovider-eachmode.dot", 79, 127, true},
    {"tf-07-aws-tf012-provider-alias.dot", 56, 94, true},
    {"tf-08-aws-modules-expand-close.dot", 52, 68, true},
    {"tf-09-azure-instance-and-expand.dot", 19, 24, true},
    {"tf-10-aws-tf011-count-boundary.dot", 8, 8, true},
    {"tf-11-scaleway-2017-tf09.dot", 12, 12, true},
    {"tf-12-draw-cycles-terraform-golden.dot", 7, 10, false},
    {"tf-13-oci-crlf.dot", 9, 10, true},
    {"tf-14-modern-tf17-utf16-large.dot", 468, 1414, true},
    {"tf-15-tf03-2015-clusters.dot", 18, 38, true},
    {"gv-01-graphviz-clust4.gv", 10, 13, false},
    {"gv-02-graphviz-world.gv", 48, 69, true},
    {"gv-03-graphviz-ports.gv", 12, 20, true},
    {"gv-04-graphviz-russian.gv", 11, 7, true},
    {"gv-05-graphviz-cairo-cyrillic.gv", 14, 71, true},
    {"gv-06-graphviz-unix.gv", 41, 49, true},
    {"gv-07-graphviz-b102-doxygen.gv", 302, 611, true},
    {"gv-08-graphviz-latin1.gv", 1, 0, true},
    {"gv-09-graphviz-big-continuation.gv", 3, 2, true},
    {"gv-10-pydot-escaped-newlines.gv", 1, 1, false},
    {"gv-11-pydot-hash-comment.gv", 11, 30, true},
    {"gv-12-kgllib-strict-comments.gv", 26, 26, true},
    {"gv-13-staticmon-edge-groups.gv", 8, 11, true},
    {"gv-14-go-modules-depgraph.gv", 79, 160, true},
    {"gv-15-terragrunt-graph-dependencies.gv", 8, 13, true},
    {"gv-16-cmake-graphviz-tempura.gv", 130, 227, true},
    {"gv-17-bazel-query-factored.gv", 379, 452, true},
    {"gv-18-bazel-query-large.gv", 2319, 14209, true},
    {"gv-19-dependency-cruiser-frontx.gv", 740, 1161, true},
    {"gv-20-taskflow-opentimer.gv", 34, 36, true},
};

// gtest prints a parameter through this instead of as raw bytes.
void PrintTo(const CorpusFile &f, std::ostream *os) { *os << f.name; }

GraphPtr load(const char *name) {
    const std::string path = std::string(DAG_CORPUS_DIR) + "/" + name;
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    EXPECT_EQ(dag_import_graph_file(DAG_FORMAT_AUTO, path.c_str(), &g, &err), DAG_OK)
        << name << ": " << (err ? dag_error_message(err) : "");
    dag_error_free(err);
    return GraphPtr(g);
}

class DotCorpus : public ::testing::TestWithParam<CorpusFile> {};

std::string test_name(const ::testing::TestParamInfo<CorpusFile> &info) {
    std::string out;
    for (const char *p = info.param.name; *p && *p != '.'; ++p) out += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
    return out;
}

}  // namespace

TEST_P(DotCorpus, ReadsEveryNodeAndEdge) {
    const CorpusFile &f = GetParam();
    GraphPtr g = load(f.name);
    ASSERT_TRUE(g);
    EXPECT_EQ(dag_vertex_count(g.get()), f.vertices);
    EXPECT_EQ(dag_edge_count(g.get()), f.edges);
    dag_ids *order = nullptr;
    dag_status st = dag_topological_order(g.get(), &order, nullptr);
    dag_ids_free(order);
    EXPECT_EQ(st == DAG_OK, f.acyclic) << dag_status_string(st);
    if (!f.acyclic) { EXPECT_EQ(st, DAG_E_CYCLE); }

    // What was read survives libdag's own formats unchanged.
    char *json = nullptr;
    ASSERT_EQ(dag_export_graph(g.get(), DAG_FORMAT_JSON, &json, nullptr), DAG_OK);
    dag_graph *back = nullptr;
    ASSERT_EQ(dag_import_graph(DAG_FORMAT_JSON, json, std::strlen(json), &back, nullptr), DAG_OK);
    GraphPtr held(back);
    char *again = nullptr;
    ASSERT_EQ(dag_export_graph(back, DAG_FORMAT_JSON, &again, nullptr), DAG_OK);
    EXPECT_EQ(take_string(again), take_string(json));
    char *dot = nullptr;
    ASSERT_EQ(dag_export_graph(g.get(), DAG_FORMAT_DOT, &dot, nullptr), DAG_OK);
    const std::string dot_text = take_string(dot);
    dag_graph *from_dot = nullptr;
    ASSERT_EQ(dag_import_graph(DAG_FORMAT_DOT, dot_text.data(), dot_text.size(), &from_dot, nullptr), DAG_OK);
    GraphPtr held_dot(from_dot);
    EXPECT_EQ(dag_vertex_count(from_dot), f.vertices);
    EXPECT_EQ(dag_edge_count(from_dot), f.edges);
}

INSTANTIATE_TEST_SUITE_P(RealFiles, DotCorpus, ::testing::ValuesIn(corpus), test_name);

TEST(DotCorpusDetail, TerraformGoldenCyclesAreReportedAsTerraformDoes) {
    GraphPtr g = load("tf-12-draw-cycles-terraform-golden.dot");
    dag_validate_options opts;
    ASSERT_EQ(dag_validate_options_init(&opts, sizeof opts, nullptr), DAG_OK);
    dag_validation *v = nullptr;
    EXPECT_EQ(dag_validate(g.get(), &opts, &v, nullptr), DAG_E_CYCLE);
    ASSERT_NE(v, nullptr);
    const std::string text = dag_validation_text(v);
    EXPECT_NE(text.find("Cycle:\n  [root] local.test1 (expand)\n  [root] local.test2 (expand)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("Cycle:\n  [root] test_instance.bar (expand)\n  [root] test_instance.foo (expand)"),
              std::string::npos)
        << text;
    dag_validation_free(v);
}

TEST(DotCorpusDetail, NamesComeThroughEveryEncoding) {
    // UTF-16LE with a byte-order mark and CRLF lines.
    GraphPtr utf16 = load("tf-04-aws-modules-utf16-crlf.dot");
    uint64_t id = 0;
    EXPECT_EQ(dag_find_vertex(utf16.get(), "[root] root", &id, nullptr), DAG_OK);
    // Unquoted Cyrillic identifiers.
    GraphPtr russian = load("gv-04-graphviz-russian.gv");
    size_t cyrillic = 0;
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_vertices(russian.get(), &ids, nullptr), DAG_OK);
    for (uint64_t v : take_ids(ids)) {
        const char *name = nullptr;
        ASSERT_EQ(dag_vertex_name(russian.get(), v, &name, nullptr), DAG_OK);
        cyrillic += static_cast<unsigned char>(name[0]) == 0xD0 || static_cast<unsigned char>(name[0]) == 0xD1;
    }
    EXPECT_GT(cyrillic, 0u);
    // ":" inside a quoted ID is part of the name, not a port.
    GraphPtr taskflow = load("gv-20-taskflow-opentimer.gv");
    EXPECT_EQ(dag_find_vertex(taskflow.get(), "[A31] bprop_f1:Q", &id, nullptr), DAG_OK);
}
