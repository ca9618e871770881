// Helpers shared by the algorithm suites: graphs whose vertices are named
// after integers, as in Terraform's tests (testV(1) is the vertex "1").
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/error.hpp"
#include "graph/graph.hpp"
#include "algorithms/tarjan.hpp"

namespace dag::test {

class NumberedGraph {
public:
    VertexId add(int n) {
        VertexId id = g.add_vertex(std::to_string(n), nullptr);
        ids_[n] = id;
        return id;
    }
    void add_range(int first, int last) {
        for (int i = first; i <= last; ++i) add(i);
    }
    // "from depends on to".
    void connect(int from, int to) { g.connect(id(from), id(to)); }
    // Terraform's tests list edges one Connect call per line; a list reads the same.
    void connect(std::initializer_list<std::pair<int, int>> edges) {
        for (auto [from, to] : edges) connect(from, to);
    }
    VertexId id(int n) const { return ids_.at(n); }
    std::vector<VertexId> ids(std::initializer_list<int> ns) const {
        std::vector<VertexId> out;
        for (int n : ns) out.push_back(id(n));
        return out;
    }
    std::vector<std::string> names(const std::vector<VertexId> &vs) const {
        std::vector<std::string> out;
        for (VertexId v : vs) out.push_back(g.display_name(v));
        return out;
    }
    int number(VertexId v) const { return std::stoi(g.display_name(v)); }

    Graph g;

private:
    std::map<int, VertexId> ids_;
};

// Runs `f`, expecting a dag::Error with `code`; returns its message.
inline std::string error_of(Errc code, const std::function<void()> &f) {
    try {
        f();
    } catch (const Error &e) {
        EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(code)) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no dag::Error thrown";
    return {};
}

// strongly_connected_components(), one list per component.
inline std::vector<std::vector<VertexId>> component_lists(const Graph &g) {
    const ComponentIds c = strongly_connected_components(g);
    std::vector<std::vector<VertexId>> out;
    for (std::size_t i = 0; i < c.count(); ++i) out.emplace_back(c.begin(i), c.end(i));
    return out;
}

}  // namespace dag::test
