// dag build: the example plan builds examples/graphs/deploy.dot edge for
// edge; --walk runs the built graph; bad plans and unresolved references
// are errors with their exit statuses.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "timed_dag.hpp"

namespace {

using namespace cli_test;

using NamedEdges = std::set<std::pair<std::string, std::string>>;

NamedEdges edges_of_json(const std::string &text, std::set<std::string> *names) {
    const nlohmann::json doc = nlohmann::json::parse(text);
    std::map<uint64_t, std::string> by_id;
    for (const auto &v : doc["vertices"]) {
        by_id[v["id"].get<uint64_t>()] = v["name"].get<std::string>();
        names->insert(v["name"].get<std::string>());
    }
    NamedEdges edges;
    for (const auto &e : doc["edges"]) edges.insert({by_id.at(e[0].get<uint64_t>()), by_id.at(e[1].get<uint64_t>())});
    return edges;
}

const std::string source_dir = DAG_SOURCE_DIR;

TEST(CliBuild, ExamplePlanBuildsTheDeployGraphEdgeForEdge) {
    ScratchDir dir;
    const Outcome built = shell(dir, dag_command({"build", source_dir + "/examples/plan.json", "--to", "json"}));
    ASSERT_EQ(built.status, 0) << built.err;
    EXPECT_EQ(built.err, "");
    const Outcome expected =
        shell(dir, dag_command({"convert", source_dir + "/examples/graphs/deploy.dot", "--to", "json"}));
    ASSERT_EQ(expected.status, 0) << expected.err;
    std::set<std::string> built_names, expected_names;
    const NamedEdges built_edges = edges_of_json(built.out, &built_names);
    const NamedEdges expected_edges = edges_of_json(expected.out, &expected_names);
    EXPECT_EQ(built_edges, expected_edges);
    EXPECT_EQ(built_names, expected_names);
    EXPECT_EQ(built_edges.size(), 13u);
}

TEST(CliBuild, StepsAreReportedInOrderWithTheirCounts) {
    ScratchDir dir;
    const Outcome r = shell(dir, dag_command({"build", source_dir + "/examples/plan.json", "--steps"}));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.err);
    const std::vector<std::string> names = {"references", "destroy order", "shared", "root", "transitive reduction"};
    ASSERT_EQ(lines.size(), names.size()) << r.err;
    for (std::size_t i = 0; i < names.size(); ++i)
        EXPECT_EQ(lines[i].rfind("step " + names[i] + ": ", 0), 0u) << lines[i];
    EXPECT_NE(lines[0].find("9 -> 9 vertices, 0 -> 8 edges"), std::string::npos) << lines[0];
    EXPECT_NE(lines[4].find("11 -> 11 vertices"), std::string::npos) << lines[4];
}

TEST(CliBuild, WalkRunsTheBuiltGraphInExecutionOrder) {
    ScratchDir dir;
    const std::string plan = dir.path + "/plan.json";
    std::ofstream(plan) << R"({"vertices": [
        {"name": "app", "references": ["db.url"], "action": "replace"},
        {"name": "db", "provides": ["db"]}]})";
    const Outcome r =
        shell(dir, dag_command({"build", plan, "--walk", "--parallelism", "1", "--exec", "echo ran $DAG_VERTEX"}));
    EXPECT_EQ(r.status, 0) << r.err;
    // Critical path, the default: "app (destroy)" and "db" both have "app" still to run; ties by name.
    EXPECT_EQ(r.out, "app (destroy): ran app (destroy)\ndb: ran db\napp: ran app\n");
    EXPECT_NE(r.err.find("3 ok, 0 failed"), std::string::npos) << r.err;
}

TEST(CliBuild, UnresolvedReferencesFailOrWarn) {
    ScratchDir dir;
    const std::string plan = dir.path + "/plan.json";
    std::ofstream(plan) << R"({"vertices": [{"name": "web", "references": ["var.region", "var.ami"]}]})";
    Outcome r = shell(dir, dag_command({"build", plan}));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("dag: " + plan + ": step 'references': 2 unresolved references:\n"
                         "  web: nothing provides \"var.ami\"\n"
                         "  web: nothing provides \"var.region\""),
              std::string::npos)
        << r.err;
    r = shell(dir, dag_command({"build", plan, "--warn-unresolved"}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "web\n");
    EXPECT_EQ(r.err, "dag: warning: web: nothing provides \"var.ami\"\n"
                     "dag: warning: web: nothing provides \"var.region\"\n");
}

TEST(CliBuild, APlanVertexMayBeTheRootByItsName) {
    ScratchDir dir;
    const std::string plan = dir.path + "/plan.json";
    // The only root already, named as the root step would name one: the
    // step changes nothing. The name was refused as taken.
    for (const std::string root : {"", R"("root": "top", )"}) {
        const std::string name = root.empty() ? "root" : "top";
        std::ofstream(plan) << "{" << root << R"("vertices": [{"name": ")" << name
                            << R"(", "depends_on": ["a"]}, {"name": "a"}]})";
        const Outcome r = shell(dir, dag_command({"build", plan}));
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, "a\n" + name + "\n  a\n") << r.out;
    }
}

TEST(CliBuild, BadPlansAreInputErrors) {
    ScratchDir dir;
    const std::string plan = dir.path + "/plan.json";
    const std::pair<std::string, std::string> bad[] = {
        {"{", "not valid JSON"},
        {R"({"vertices": 3})", "\"vertices\" array"},
        {R"({"vertices": [{"name": "a", "action": "destroy"}]})", "\"action\" is none, create"},
        {R"({"vertices": [{"name": "a", "depends_on": ["b"]}]})", "depends_on names \"b\""},
        // The plan's numbering only (libdag's id of the first "a" read as another vertex).
        {R"({"vertices": [{"name": "a"}, {"name": "a"}]})", ": vertex 1: the name \"a\" is taken by vertex 0\n"},
        // The line where the syntax error is, not line 1.
        {"{\n \"vertices\": [\n  {\"name\": \"a\"},\n  {\"name\": b}\n ]\n}\n",
         ": line 4: not valid JSON: parse error at line 4, column 12: syntax error while parsing value - invalid "
         "literal; last read: '\"name\": b'\n"},
        // A key twice: the first one's edge, vertices or action was dropped without a word.
        {R"({"vertices": [{"name": "a", "depends_on": ["b"], "depends_on": ["c"]}, {"name": "b"}, {"name": "c"}]})",
         ": line 1: \"depends_on\" is given twice in one object\n"},
        {R"({"vertices": [{"name": "a"}], "vertices": [{"name": "c"}]})", ": line 1: \"vertices\" is given twice"},
        // The key's line; and a syntax error after a repeated key is what the file needs fixed first.
        {"{\"vertices\": [\n {\"name\": \"a\",\n  \"name\": \"b\"}\n]}", ": line 3: \"name\" is given twice in one object\n"},
        {"{\"vertices\": [\n {\"name\": \"b\",\n  \"name\": }\n]}",
         ": line 3: not valid JSON: parse error at line 3, column 11: syntax error while parsing value - unexpected "
         "'}'; expected '[', '{', or a literal\n"},
        // The root's name held by a vertex a step added or renamed: told as such, not by libdag's id.
        {R"x({"root": "a (destroy)", "vertices": [{"name": "a", "action": "delete"}, {"name": "b"}]})x",
         ": step 'root': vertex name \"a (destroy)\" is already used by vertex 0 of the plan, \"a\", which a step "
         "renamed\n"},
        {R"({"root": "p", "vertices": [{"name": "a", "needs": ["p"]}, {"name": "b"}]})",
         ": step 'root': vertex name \"p\" is already used by a vertex a step added\n"},
        {R"({"vertices": [{"name": "a"}], "root": ""})", ": \"root\": not a vertex name"},
        // libdag's advice, "pass no name for an unnamed vertex", is no plan's.
        {R"({"vertices": [{"name": ""}]})", ": vertex 0: the name is empty; every vertex of a plan has a non-empty name"},
        {R"({"vertices": [{"name": "a", "provide": ["x"]}]})", "unknown field \"provide\""},
        {R"({"vertices": [{"name": "a", "needs": "x"}]})", "\"needs\" is not an array of strings"},
        // In the plan's terms, not the C argument's ("'address' is empty").
        {R"({"vertices": [{"name": "a", "references": [""]}]})", ": a: \"references\" holds an empty string\n"},
        {R"({"vertices": [{"name": "a", "needs": ["k", ""]}]})", ": a: \"needs\" holds an empty string\n"},
        // A number beyond a double's range: exit 1 and nlohmann's tag, with no file or line.
        {"{\"vertices\": [{\"name\": \"a\"}],\n \"x\": 1e999}", ": line 2: not valid JSON: number overflow parsing '1e999'\n"},
        // A NUL cut the name there: "a\u0000b" built a vertex named "a".
        {R"({"vertices": [{"name": "a\u0000b"}]})", ": vertex 0: \"name\" holds a NUL character"},
        {R"({"vertices": [{"name": "a", "provides": ["x\u0000y"]}]})", ": a: \"provides\" holds a NUL character"},
        {R"({"root": "r\u0000", "vertices": [{"name": "a"}]})", ": \"root\": the name holds a NUL character"},
        // The root vertex the build adds: this was a failed build (exit 1) naming libdag's id.
        {R"({"root": "a", "vertices": [{"name": "b"}, {"name": "a"}]})",
         ": \"root\": the name \"a\" is taken by vertex 1, and the graph has more than one root\n"},
        {R"({"vertices": [{"name": "root"}, {"name": "a"}]})", ": \"root\": the name \"root\" is taken by vertex 0"},
        // nlohmann stopped at the NUL, and what followed it went unread.
        {std::string("{\"vertices\": [{\"name\": \"a\"}]}\0 not JSON {{{", 43), ": line 1: not valid JSON: NUL character at offset 29"},
        // A UTF-16 plan was refused with a raw byte in nlohmann's words.
        {std::string("\xff\xfe{\0}\0", 6), ": line 1: not valid JSON: the text is UTF-16 (it begins with a byte-order mark); only UTF-8"},
        // A byte no UTF-8 has, which nlohmann's message quoted as it was (the
        // message was no longer UTF-8): shown as libdag shows one, \xNN.
        {"{\"vertices\": \xff}", "; last read: '\"vertices\": \\xff'\n"},
        {"{\"vertices\": [{\"name\": \"caf\xe9\"}]}",
         ": line 1: not valid JSON: parse error at line 1, column 29: syntax error while parsing value - invalid string: "
         "ill-formed UTF-8 byte; last read: '\"caf\\xe9\"'\n"},
        // UTF-32LE's mark begins as UTF-16LE's does: it was told as UTF-16.
        {std::string("\xff\xfe\0\0{\0\0\0}\0\0\0", 12), ": line 1: not valid JSON: the text is UTF-32 (it begins with a byte-order mark)"},
    };
    for (const auto &[text, gist] : bad) {
        std::ofstream(plan) << text;
        const Outcome r = shell(dir, dag_command({"build", plan}));
        EXPECT_EQ(r.status, 2) << text << "\n" << r.err;
        EXPECT_NE(r.err.find(gist), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(plan), std::string::npos) << r.err;
    }
    // Another step's clash is that step's, though a plan vertex is named "root".
    std::ofstream(plan) << R"x({"vertices": [{"name": "root"}, {"name": "a", "action": "delete"}, {"name": "a (destroy)"}]})x";
    const Outcome destroy_clash = shell(dir, dag_command({"build", plan}));
    EXPECT_EQ(destroy_clash.status, 2) << destroy_clash.err;  // the plan's names, as the root's (it exited 1)
    EXPECT_NE(destroy_clash.err.find("dag: " + plan + ": step 'destroy order': the destroy vertex of a"),
              std::string::npos)
        << destroy_clash.err;
    const Outcome missing = shell(dir, dag_command({"build", dir.path + "/none.json"}));
    EXPECT_EQ(missing.status, 2);
    // As a graph file that cannot be read is told (it was `cannot open PATH: ...`).
    EXPECT_EQ(missing.err, "dag: cannot read \"" + dir.path + "/none.json\": No such file or directory\n");
    const Outcome exec_alone = shell(dir, dag_command({"build", plan, "--exec", "true"}));
    EXPECT_EQ(exec_alone.status, 2);
    EXPECT_NE(exec_alone.err.find("--walk"), std::string::npos) << exec_alone.err;
    // A name DOT cannot carry is the input's, as for `dag convert` (it exited 1).
    std::ofstream(plan) << R"({"vertices": [{"name": "%x"}]})";
    const Outcome uncarried = shell(dir, dag_command({"build", plan, "--to", "dot"}));
    EXPECT_EQ(uncarried.status, 2) << uncarried.err;
    // Named by the plan file and the plan's numbering (it said "vertex 1", libdag's id, and no file).
    EXPECT_EQ(uncarried.err, "dag: " + plan + ": vertex 0 of the plan (\"%x\") has a name DOT cannot quote (Graphviz "
                             "would read it back changed); write JSON instead\n");
    const Outcome walk_and_to = shell(dir, dag_command({"build", plan, "--walk", "--to", "dot"}));
    EXPECT_EQ(walk_and_to.status, 2);
    EXPECT_NE(walk_and_to.err.find("--to"), std::string::npos) << walk_and_to.err;
}

}  // namespace
