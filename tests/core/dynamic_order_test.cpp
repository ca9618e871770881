#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "algorithms/dynamic_order.hpp"
#include "graph/error.hpp"
#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {
namespace {

// The order's view of a graph: its current edges.
class GraphView final : public EdgeView {
public:
    explicit GraphView(const Graph &g) : g_(g) {}
    void dependencies(Vertex v, std::vector<Vertex> &out) const override {
        for (auto [it, end] = boost::adjacent_vertices(v, g_.adjacency()); it != end; ++it) out.push_back(*it);
    }
    void dependents(Vertex v, std::vector<Vertex> &out) const override {
        for (auto [it, end] = boost::adjacent_vertices(v, g_.reverse_adjacency()); it != end; ++it) out.push_back(*it);
    }

private:
    const Graph &g_;
};

// Every edge has its dependency first, and no two vertices share a position.
void expect_agrees(const DynamicOrder &order, const Graph &g) {
    std::set<DynamicOrder::Position> used;
    for (Vertex v = 0; v < g.index_bound(); ++v) EXPECT_TRUE(used.insert(order.position(v)).second) << "vertex " << v;
    for (auto [from, to] : g.edges())
        EXPECT_LT(order.position(Graph::index_of(to)), order.position(Graph::index_of(from)))
            << from << " -> " << to;
}

// Does `from` depend on `to`, directly or not? (Brute force.)
bool depends_on(const Graph &g, Vertex from, Vertex to) {
    std::vector<char> seen(g.index_bound());
    std::vector<Vertex> frontier{from};
    while (!frontier.empty()) {
        Vertex v = frontier.back();
        frontier.pop_back();
        if (v == to) return true;
        for (auto [it, end] = boost::adjacent_vertices(v, g.adjacency()); it != end; ++it)
            if (!seen[*it]) {
                seen[*it] = 1;
                frontier.push_back(*it);
            }
    }
    return false;
}

std::vector<DynamicOrder::Position> positions(const DynamicOrder &order) {
    std::vector<DynamicOrder::Position> out;
    for (Vertex v = 0; v < order.size(); ++v) out.push_back(order.position(v));
    return out;
}

TEST(DynamicOrder, BuildPutsEveryDependencyFirst) {
    std::mt19937 rng(7);
    Graph g;
    for (int i = 0; i < 200; ++i) g.add_vertex(std::nullopt, nullptr);
    for (int i = 0; i < 800; ++i) {
        VertexId a = 1 + rng() % 200, b = 1 + rng() % 200;
        if (a != b) g.connect(std::max(a, b), std::min(a, b));
    }
    g.remove_vertex(17);
    DynamicOrder order;
    EXPECT_FALSE(order.built());
    order.build(freeze(g), g.index_bound());
    EXPECT_TRUE(order.built());
    EXPECT_EQ(order.size(), 200u);
    expect_agrees(order, g);
}

TEST(DynamicOrder, BuildRefusesACycle) {
    Graph g;
    VertexId a = g.add_vertex(std::nullopt, nullptr), b = g.add_vertex(std::nullopt, nullptr);
    g.connect(a, b);
    g.connect(b, a);
    DynamicOrder order;
    EXPECT_THROW(order.build(freeze(g), g.index_bound()), Error);
    EXPECT_FALSE(order.built());
}

// Random edges between random vertices, both directions: each is refused
// exactly when it would close a cycle, and the order keeps agreeing.
TEST(DynamicOrder, AddedEdgesKeepItATopologicalOrder) {
    for (unsigned seed = 1; seed <= 40; ++seed) {
        std::mt19937 rng(seed);
        const int n = 10 + static_cast<int>(rng() % 60);
        Graph g;
        for (int i = 0; i < n; ++i) g.add_vertex(std::nullopt, nullptr);
        DynamicOrder order;
        order.build(freeze(g), g.index_bound());
        GraphView view(g);
        int refused = 0, moved = 0;
        for (int k = 0; k < 4 * n; ++k) {
            const Vertex a = rng() % n, b = rng() % n;
            const bool cycle = a == b || depends_on(g, b, a);
            const auto before = positions(order);
            const bool agreed = order.position(b) < order.position(a);
            ASSERT_EQ(order.add_edge(a, b, view), !cycle) << "seed " << seed << ": " << a << " -> " << b;
            if (cycle) {
                ++refused;
                EXPECT_EQ(positions(order), before);
                continue;
            }
            if (!agreed) ++moved;
            if (agreed) { EXPECT_EQ(positions(order), before); }
            g.connect(Graph::id_of(a), Graph::id_of(b));
            expect_agrees(order, g);
        }
        EXPECT_GT(refused, 0) << "seed " << seed;
        EXPECT_GT(moved, 0) << "seed " << seed;
    }
}

TEST(DynamicOrder, NewVerticesGoFirstOrLast) {
    Graph g;
    VertexId a = g.add_vertex(std::nullopt, nullptr), b = g.add_vertex(std::nullopt, nullptr);
    g.connect(a, b);
    DynamicOrder order;
    order.build(freeze(g), g.index_bound());
    const Vertex first = g.add_vertex(std::nullopt, nullptr) - 1, last = g.add_vertex(std::nullopt, nullptr) - 1;
    order.place_first(first);
    order.place_last(last);
    for (Vertex v : {Graph::index_of(a), Graph::index_of(b)}) {
        EXPECT_LT(order.position(first), order.position(v));
        EXPECT_GT(order.position(last), order.position(v));
    }
}

TEST(DynamicOrder, RollbackReturnsToTheMark) {
    std::mt19937 rng(3);
    Graph g;
    for (int i = 0; i < 50; ++i) g.add_vertex(std::nullopt, nullptr);
    DynamicOrder order;
    order.build(freeze(g), g.index_bound());
    GraphView view(g);
    for (int k = 0; k < 40; ++k) {
        Vertex a = rng() % 50, b = rng() % 50;
        if (order.add_edge(a, b, view)) g.connect(Graph::id_of(a), Graph::id_of(b));
    }
    order.mark();
    const auto marked = positions(order);
    // Edges that move vertices (each against the order) and a new vertex.
    int moved = 0;
    for (int k = 0; k < 200 && moved < 5; ++k) {
        Vertex a = rng() % 50, b = rng() % 50;
        if (order.position(b) > order.position(a) && order.add_edge(a, b, view)) {
            ++moved;
            g.connect(Graph::id_of(a), Graph::id_of(b));
        }
    }
    ASSERT_EQ(moved, 5);
    order.place_last(50);
    EXPECT_NE(positions(order), marked);
    order.rollback();
    EXPECT_EQ(positions(order), marked);
}

}  // namespace
}  // namespace dag
