// Every case of Terraform's internal/dag/graph_test.go, on dag::Graph.
#include <gtest/gtest.h>

#include <algorithm>

#include "algo_test_support.hpp"

namespace dag {
namespace {

using test::NumberedGraph;

TEST(TerraformGraph, Empty) {
    NumberedGraph t;
    t.add_range(1, 3);
    EXPECT_EQ(t.g.to_string(), "1\n2\n3\n");
}

TEST(TerraformGraph, Basic) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 3);
    EXPECT_EQ(t.g.to_string(), "1\n  3\n2\n3\n");
}

TEST(TerraformGraph, Remove) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 3);
    t.g.remove_vertex(t.id(3));
    EXPECT_EQ(t.g.to_string(), "1\n2\n");
}

// Terraform's Replace adds the replacement when missing; here it is added
// first.
TEST(TerraformGraph, Replace) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 2);
    t.connect(2, 3);
    t.add(42);
    t.g.replace_vertex(t.id(2), t.id(42));
    EXPECT_EQ(t.g.to_string(), "1\n  42\n3\n42\n  3\n");
}

TEST(TerraformGraph, ReplaceSelf) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 2);
    t.connect(2, 3);
    t.g.replace_vertex(t.id(2), t.id(2));
    EXPECT_EQ(t.g.to_string(), "1\n  2\n2\n  3\n3\n");
}

TEST(TerraformGraph, HasVertex) {
    NumberedGraph t;
    t.add(1);
    EXPECT_TRUE(t.g.has_vertex(t.id(1)));
    EXPECT_FALSE(t.g.has_vertex(t.id(1) + 1));
}

TEST(TerraformGraph, HasEdge) {
    NumberedGraph t;
    t.add_range(1, 2);
    t.connect(1, 2);
    EXPECT_TRUE(t.g.has_edge(t.id(1), t.id(2)));
    EXPECT_FALSE(t.g.has_edge(t.id(2), t.id(1) + 2));
}

TEST(TerraformGraph, EdgesFrom) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 3);
    t.connect(2, 3);
    EXPECT_EQ(t.g.dependencies(t.id(1)), t.ids({3}));
}

TEST(TerraformGraph, EdgesTo) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 3);
    t.connect(1, 2);
    EXPECT_EQ(t.g.dependents(t.id(3)), t.ids({1}));
}

// The listings are copies: changing one leaves the graph as it was.
TEST(TerraformGraph, UpdownEdges) {
    NumberedGraph t;
    t.add_range(1, 3);
    t.connect(1, 2);
    t.connect(2, 3);
    std::vector<VertexId> up = t.g.dependents(t.id(2));
    EXPECT_EQ(up, t.ids({1}));
    up.push_back(9);
    EXPECT_EQ(t.g.dependents(t.id(2)), t.ids({1}));
    std::vector<VertexId> down = t.g.dependencies(t.id(2));
    EXPECT_EQ(down, t.ids({3}));
    down.push_back(8);
    EXPECT_EQ(t.g.dependencies(t.id(2)), t.ids({3}));
}

}  // namespace
}  // namespace dag
