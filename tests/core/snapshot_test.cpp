#include "graph/snapshot.hpp"

#include <gtest/gtest.h>

namespace dag {
namespace {

TEST(Snapshot, RenumbersLiveVerticesDenselyInIdOrder) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
    auto d = g.add_vertex("d", nullptr);
    g.connect(a, d);
    g.connect(a, c);
    g.connect(d, c);
    g.remove_vertex(b);
    Snapshot s = freeze(g);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_NE(s.id_table(), nullptr);
    EXPECT_EQ((std::vector<VertexId>{s.id_of(0), s.id_of(1), s.id_of(2)}), (std::vector<VertexId>{a, c, d}));
    EXPECT_EQ(s.index_of(b), Snapshot::npos);
    EXPECT_EQ(s.index_of(0), Snapshot::npos);
    EXPECT_EQ(s.index_of(99), Snapshot::npos);
    auto ia = s.index_of(a), ic = s.index_of(c), id = s.index_of(d);
    // Neighbours in the order the edges were added, not by id.
    EXPECT_EQ(std::vector<Snapshot::Index>(s.out_begin(ia), s.out_end(ia)), (std::vector<Snapshot::Index>{id, ic}));
    EXPECT_EQ(std::vector<Snapshot::Index>(s.in_begin(ic), s.in_end(ic)), (std::vector<Snapshot::Index>{ia, id}));
    EXPECT_EQ(s.out_degree(ic), 0u);
    EXPECT_EQ(s.in_degree(ia), 0u);
    EXPECT_EQ(s.edge_count(), 3u);
}

// Without a removed vertex ids and indices differ by one and no table is
// kept; the accessors answer as the tables would.
TEST(Snapshot, GraphWithoutRemovalsNeedsNoIdTable) {
    Graph g;
    auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
    g.connect(c, a);
    g.connect(b, a);
    Snapshot s = freeze(g);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s.id_table(), nullptr);
    EXPECT_EQ((std::vector<VertexId>{s.id_of(0), s.id_of(1), s.id_of(2)}), (std::vector<VertexId>{a, b, c}));
    EXPECT_EQ(s.index_of(a), 0u);
    EXPECT_EQ(s.index_of(c), 2u);
    EXPECT_EQ(s.index_of(0), Snapshot::npos);
    EXPECT_EQ(s.index_of(c + 1), Snapshot::npos);
    EXPECT_EQ(std::vector<Snapshot::Index>(s.in_begin(0), s.in_end(0)), (std::vector<Snapshot::Index>{2, 1}));

    // Removing the last vertex leaves a gap past the live ones: a table again.
    g.remove_vertex(c);
    Snapshot after = freeze(g);
    ASSERT_EQ(after.size(), 2u);
    EXPECT_NE(after.id_table(), nullptr);
    EXPECT_EQ(after.index_of(c), Snapshot::npos);
    EXPECT_EQ(after.id_of(1), b);
}

TEST(Snapshot, EmptyGraph) {
    Graph g;
    Snapshot s = freeze(g);
    EXPECT_EQ(s.size(), 0u);
    EXPECT_EQ(s.out_offsets.size(), 1u);
}

}  // namespace
}  // namespace dag
