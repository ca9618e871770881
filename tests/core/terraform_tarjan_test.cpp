// Every case of Terraform's internal/dag/tarjan_test.go, compared the way
// Terraform compares them (names sorted within and across components), plus
// the exact order libdag gives.
#include <gtest/gtest.h>

#include <algorithm>

#include "algo_test_support.hpp"
#include "algorithms/tarjan.hpp"

namespace dag {
namespace {

using test::component_lists;
using test::NumberedGraph;

std::string scc_string(const NumberedGraph &t) {
    std::vector<std::string> lines;
    for (const auto &component : component_lists(t.g)) {
        std::vector<std::string> names = t.names(component);
        std::sort(names.begin(), names.end());
        std::string line;
        for (const auto &n : names) line += (line.empty() ? "" : ",") + n;
        lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto &l : lines) out += (out.empty() ? "" : "\n") + l;
    return out;
}

TEST(TerraformTarjan, GraphStronglyConnected) {
    NumberedGraph t;
    t.add_range(1, 2);
    t.connect(1, 2);
    t.connect(2, 1);
    EXPECT_EQ(scc_string(t), "1,2");
    // Tarjan pops 2 (found last) before 1.
    EXPECT_EQ(component_lists(t.g), (std::vector<std::vector<VertexId>>{t.ids({2, 1})}));
}

TEST(TerraformTarjan, GraphStronglyConnectedTwo) {
    NumberedGraph t;
    t.add_range(1, 2);
    t.connect(1, 2);
    t.connect(2, 1);
    t.add(3);
    EXPECT_EQ(scc_string(t), "1,2\n3");
}

TEST(TerraformTarjan, GraphStronglyConnectedThree) {
    NumberedGraph t;
    t.add_range(1, 2);
    t.connect(1, 2);
    t.connect(2, 1);
    t.add_range(3, 6);
    t.connect({{4, 5}, {5, 6}, {6, 4}});
    EXPECT_EQ(scc_string(t), "1,2\n3\n4,5,6");
    EXPECT_EQ(component_lists(t.g),
              (std::vector<std::vector<VertexId>>{t.ids({2, 1}), t.ids({3}), t.ids({6, 5, 4})}));
}

}  // namespace
}  // namespace dag
