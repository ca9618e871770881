// Random operation sequences checked against a plain reference model after
// every step: ids, names, edges, counts and listings must always agree.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "graph/error.hpp"
#include "graph/graph.hpp"

namespace dag {
namespace {

struct Model {
    std::map<VertexId, std::string> vertices;  // "" = unnamed
    std::set<std::pair<VertexId, VertexId>> edges;
    VertexId next = 1;

    bool name_taken(const std::string &n) const {
        for (auto &[id, name] : vertices)
            if (name == n) return true;
        return false;
    }
    void remove(VertexId v) {
        vertices.erase(v);
        for (auto it = edges.begin(); it != edges.end();)
            it = (it->first == v || it->second == v) ? edges.erase(it) : std::next(it);
    }
};

void expect_same(const Graph &g, const Model &m) {
    ASSERT_EQ(g.vertex_count(), m.vertices.size());
    ASSERT_EQ(g.edge_count(), m.edges.size());
    std::vector<VertexId> ids;
    for (auto &[id, name] : m.vertices) {
        ids.push_back(id);
        const std::optional<std::string_view> n = g.name(id);
        if (name.empty()) {
            EXPECT_FALSE(n);
        } else {
            ASSERT_TRUE(n);
            EXPECT_EQ(*n, name);
            EXPECT_EQ(g.find(name), id);
        }
    }
    EXPECT_EQ(g.vertices(), ids);
    std::vector<std::pair<VertexId, VertexId>> edges(m.edges.begin(), m.edges.end());
    EXPECT_EQ(g.edges(), edges);
    for (auto [a, b] : m.edges) EXPECT_TRUE(g.has_edge(a, b));
}

TEST(GraphModel, RandomOperationSequencesMatchTheModel) {
    std::mt19937_64 rng(20261122);
    for (int round = 0; round < 40; ++round) {
        Graph g;
        Model m;
        auto pick = [&]() -> VertexId {
            // Mostly live vertices, sometimes a removed or never-issued id.
            if (m.vertices.empty() || rng() % 10 == 0) return rng() % (m.next + 2);
            auto it = m.vertices.begin();
            std::advance(it, static_cast<long>(rng() % m.vertices.size()));
            return it->first;
        };
        auto live = [&](VertexId v) { return m.vertices.count(v) != 0; };
        for (int step = 0; step < 300; ++step) {
            int op = static_cast<int>(rng() % 8);
            std::string name = rng() % 3 ? "v" + std::to_string(rng() % 40) : "";
            VertexId a = pick(), b = pick();
            try {
                switch (op) {
                    case 0:
                    case 1: {
                        bool clash = !name.empty() && m.name_taken(name);
                        VertexId id = g.add_vertex(name.empty() ? std::nullopt : std::optional<std::string_view>(name), nullptr);
                        ASSERT_FALSE(clash);
                        ASSERT_EQ(id, m.next);
                        m.vertices[m.next++] = name;
                        break;
                    }
                    case 2:
                        g.remove_vertex(a);
                        ASSERT_TRUE(live(a));
                        m.remove(a);
                        break;
                    case 3:
                    case 4:
                        g.connect(a, b);
                        ASSERT_TRUE(live(a) && live(b));
                        m.edges.insert({a, b});
                        break;
                    case 5:
                        g.disconnect(a, b);
                        ASSERT_TRUE(live(a) && live(b));
                        m.edges.erase({a, b});
                        break;
                    case 6: {
                        g.replace_vertex(a, b);
                        ASSERT_TRUE(live(a) && live(b));
                        if (a == b) break;
                        std::set<std::pair<VertexId, VertexId>> moved;
                        for (auto [x, y] : m.edges) {
                            if (x != a && y != a) continue;
                            moved.insert({x == a ? b : x, y == a ? b : y});
                        }
                        m.remove(a);
                        m.edges.insert(moved.begin(), moved.end());
                        break;
                    }
                    case 7: {
                        bool clash = !name.empty() && m.name_taken(name) && (!live(a) || m.vertices.at(a) != name);
                        g.set_name(a, name.empty() ? std::nullopt : std::optional<std::string_view>(name));
                        ASSERT_TRUE(live(a));
                        ASSERT_FALSE(clash);
                        m.vertices[a] = name;
                        break;
                    }
                }
            } catch (const Error &e) {
                // Failures must be the ones the model predicts, and change nothing.
                if (e.code() == Errc::unknown_vertex) {
                    EXPECT_TRUE(!live(a) || (op >= 3 && op <= 6 && !live(b))) << e.what();
                } else {
                    EXPECT_EQ(e.code(), Errc::duplicate_name) << e.what();
                }
            }
            expect_same(g, m);
            if (HasFatalFailure()) return;
        }
        Graph copy(g);
        expect_same(copy, m);
    }
}

TEST(GraphModel, SubsumeOfRandomGraphsEqualsTheUnionByName) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 50; ++round) {
        Graph g, h;
        std::set<std::pair<std::string, std::string>> expected;
        auto fill = [&](Graph &x) {
            std::vector<VertexId> ids;
            for (int i = 0; i < 12; ++i) {
                std::string n = "n" + std::to_string(rng() % 16);
                try {
                    ids.push_back(x.add_vertex(n, nullptr));
                } catch (const Error &) {
                    ids.push_back(x.find(n));
                }
            }
            for (int i = 0; i < 20; ++i) {
                VertexId a = ids[rng() % ids.size()], b = ids[rng() % ids.size()];
                x.connect(a, b);
                expected.insert({std::string(*x.name(a)), std::string(*x.name(b))});
            }
        };
        fill(g);
        fill(h);
        std::set<std::string> names;
        for (VertexId v : g.vertices()) names.emplace(*g.name(v));
        for (VertexId v : h.vertices()) names.emplace(*h.name(v));
        g.subsume(h);
        EXPECT_EQ(g.vertex_count(), names.size());
        std::set<std::pair<std::string, std::string>> got;
        for (auto [a, b] : g.edges()) got.insert({std::string(*g.name(a)), std::string(*g.name(b))});
        EXPECT_EQ(got, expected);
    }
}

}  // namespace
}  // namespace dag
