#include "graph.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "error.hpp"

namespace dag {
namespace {

Errc code_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const Error &e) {
        return e.code();
    }
    ADD_FAILURE() << "no dag::Error thrown";
    return Errc::state;
}

TEST(Graph, AddVerticesGetsSequentialStableIds) {
    Graph g;
    EXPECT_EQ(g.add_vertex("a", nullptr), 1u);
    EXPECT_EQ(g.add_vertex(std::nullopt, nullptr), 2u);
    g.remove_vertex(1);
    EXPECT_EQ(g.add_vertex("a", nullptr), 3u) << "ids are never reused";
    EXPECT_EQ(g.vertex_count(), 2u);
    EXPECT_FALSE(g.has_vertex(1));
    EXPECT_TRUE(g.has_vertex(3));
    EXPECT_EQ(g.find("a"), 3u);
}

TEST(Graph, StringMatchesTerraformLayout) {
    Graph g;
    auto v1 = g.add_vertex("1", nullptr);
    g.add_vertex("2", nullptr);
    auto v3 = g.add_vertex("3", nullptr);
    g.connect(v1, v3);
    EXPECT_EQ(g.to_string(), "1\n  3\n2\n3\n");
}

TEST(Graph, StringSortsByNameThenIdAndPrintsUnnamedAsId) {
    Graph g;
    auto b = g.add_vertex("b", nullptr);
    auto a = g.add_vertex("a", nullptr);
    auto u = g.add_vertex(std::nullopt, nullptr);
    g.connect(b, a);
    g.connect(b, u);
    EXPECT_EQ(g.to_string(), "3\na\nb\n  3\n  a\n");
    EXPECT_EQ(Graph().to_string(), "");
}

TEST(Graph, ConnectTwiceIsNoOpAndSelfEdgeIsStored) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr);
    g.connect(a, b);
    g.connect(a, b);
    EXPECT_EQ(g.edge_count(), 1u);
    g.connect(a, a);
    EXPECT_TRUE(g.has_edge(a, a));
    EXPECT_EQ(g.edge_count(), 2u);
    g.disconnect(a, b);
    g.disconnect(a, b);
    EXPECT_FALSE(g.has_edge(a, b));
    EXPECT_EQ(g.edge_count(), 1u);
}

TEST(Graph, DuplicateDetectionScansTheShorterSide) {
    Graph g;
    auto hub = g.add_vertex("hub", nullptr);
    std::vector<VertexId> leaves;
    for (int i = 0; i < 1000; ++i) leaves.push_back(g.add_vertex(std::nullopt, nullptr));
    for (auto l : leaves) g.connect(hub, l);
    for (auto l : leaves) g.connect(hub, l);
    for (auto l : leaves) g.connect(l, hub);
    for (auto l : leaves) g.connect(l, hub);
    EXPECT_EQ(g.edge_count(), 2000u);
}

TEST(Graph, DependenciesAndDependentsAreSorted) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
    g.connect(a, c);
    g.connect(a, b);
    g.connect(c, b);
    EXPECT_EQ(g.dependencies(a), (std::vector<VertexId>{b, c}));
    EXPECT_EQ(g.dependents(b), (std::vector<VertexId>{a, c}));
    EXPECT_TRUE(g.dependencies(b).empty());
    EXPECT_EQ(g.edges(), (std::vector<std::pair<VertexId, VertexId>>{{a, b}, {a, c}, {c, b}}));
    EXPECT_EQ(g.vertices(), (std::vector<VertexId>{a, b, c}));
}

TEST(Graph, RemoveVertexDropsItsEdgesAndFreesItsName) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
    g.connect(a, b);
    g.connect(b, c);
    g.remove_vertex(b);
    EXPECT_EQ(g.edge_count(), 0u);
    EXPECT_EQ(code_of([&] { g.find("b"); }), Errc::not_found);
    EXPECT_EQ(g.add_vertex("b", nullptr), 4u);
    EXPECT_EQ(code_of([&] { g.remove_vertex(b); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.connect(a, b); }), Errc::unknown_vertex);
    EXPECT_EQ(g.dependencies(a), std::vector<VertexId>{});
    (void)c;
}

TEST(Graph, ReplaceTakesOverEveryEdge) {
    // Terraform's TestGraphReplace: a -> b -> c, replace b with 42.
    Graph g;
    auto a = g.add_vertex("1", nullptr), b = g.add_vertex("2", nullptr), c = g.add_vertex("3", nullptr);
    g.connect(a, b);
    g.connect(b, c);
    auto r = g.add_vertex("42", nullptr);
    g.replace_vertex(b, r);
    EXPECT_EQ(g.to_string(), "1\n  42\n3\n42\n  3\n");
    EXPECT_FALSE(g.has_vertex(b));
}

TEST(Graph, ReplaceKeepsSelfReference) {
    // Terraform's TestGraphReplaceSelf.
    Graph g;
    auto a = g.add_vertex("1", nullptr), b = g.add_vertex("2", nullptr), c = g.add_vertex("3", nullptr);
    g.connect(a, b);
    g.connect(b, c);
    g.connect(b, b);
    auto r = g.add_vertex("42", nullptr);
    g.replace_vertex(b, r);
    EXPECT_EQ(g.to_string(), "1\n  42\n3\n42\n  3\n  42\n");
    g.replace_vertex(r, r);
    EXPECT_TRUE(g.has_vertex(r));
}

TEST(Graph, NamesAreCheckedAndUnique) {
    Graph g;
    g.add_vertex("x", nullptr);
    EXPECT_EQ(code_of([&] { g.add_vertex("x", nullptr); }), Errc::duplicate_name);
    EXPECT_EQ(code_of([&] { g.add_vertex("", nullptr); }), Errc::invalid_argument);
    EXPECT_EQ(code_of([&] { g.add_vertex(std::string_view("\xff", 1), nullptr); }), Errc::bad_utf8);
    EXPECT_EQ(g.vertex_count(), 1u) << "failed adds leave nothing behind";
    auto y = g.add_vertex("y", nullptr);
    EXPECT_EQ(code_of([&] { g.set_name(y, "x"); }), Errc::duplicate_name);
    EXPECT_EQ(*g.name(y), "y");
    g.set_name(y, "z");
    EXPECT_EQ(g.find("z"), y);
    EXPECT_EQ(code_of([&] { g.find("y"); }), Errc::not_found);
    g.set_name(y, std::nullopt);
    EXPECT_EQ(g.name(y), nullptr);
    EXPECT_EQ(g.display_name(y), std::to_string(y));
}

TEST(Graph, CopyIsDeepAndKeepsIds) {
    Graph g;
    int tag = 0;
    auto a = g.add_vertex("a", &tag), b = g.add_vertex("b", nullptr);
    g.connect(a, b);
    g.remove_vertex(g.add_vertex("gone", nullptr));
    Graph c(g);
    EXPECT_EQ(c.to_string(), g.to_string());
    EXPECT_EQ(c.find("a"), a);
    EXPECT_EQ(c.user(a), &tag);
    c.set_name(a, "renamed");
    EXPECT_EQ(*g.name(a), "a") << "renaming the copy leaves the original alone";
    EXPECT_EQ(c.add_vertex("n", nullptr), 4u) << "the copy continues the id sequence";
    EXPECT_NE(c.name(a)->c_str(), g.name(a)->c_str());
}

TEST(Graph, SubsumeMergesByName) {
    Graph g, other;
    auto a = g.add_vertex("a", nullptr);
    int tag = 0;
    auto oa = other.add_vertex("a", &tag), ob = other.add_vertex("b", &tag), ou = other.add_vertex(std::nullopt, nullptr);
    other.connect(oa, ob);
    other.connect(ob, ou);
    g.subsume(other);
    EXPECT_EQ(g.vertex_count(), 3u);
    EXPECT_EQ(g.edge_count(), 2u);
    EXPECT_EQ(g.user(a), nullptr) << "the existing vertex keeps its own user data";
    EXPECT_EQ(g.user(g.find("b")), &tag);
    EXPECT_TRUE(g.has_edge(a, g.find("b")));
    EXPECT_EQ(code_of([&] { g.subsume(g); }), Errc::invalid_argument);
}

TEST(Graph, MutationDuringWalkIsBusy) {
    Graph g;
    auto a = g.add_vertex("a", nullptr);
    g.begin_walk();
    EXPECT_EQ(code_of([&] { g.add_vertex("b", nullptr); }), Errc::busy);
    EXPECT_EQ(code_of([&] { g.connect(a, a); }), Errc::busy);
    EXPECT_EQ(code_of([&] { g.remove_vertex(a); }), Errc::busy);
    EXPECT_EQ(code_of([&] { g.set_name(a, "c"); }), Errc::busy);
    g.set_user(a, &g);
    g.end_walk();
    g.connect(a, a);
    EXPECT_EQ(g.edge_count(), 1u);
}

TEST(Graph, UnknownIdsAreRejected) {
    Graph g;
    EXPECT_EQ(code_of([&] { g.name(0); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.name(7); }), Errc::unknown_vertex);
    EXPECT_EQ(code_of([&] { g.dependencies(1); }), Errc::unknown_vertex);
    EXPECT_FALSE(g.has_edge(1, 2));
    EXPECT_FALSE(g.has_vertex(0));
}

}  // namespace
}  // namespace dag
