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
    EXPECT_EQ(std::vector<VertexId>(s.ids.begin(), s.ids.end()), (std::vector<VertexId>{a, c, d}));
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

TEST(Snapshot, EmptyGraph) {
    Graph g;
    Snapshot s = freeze(g);
    EXPECT_EQ(s.size(), 0u);
    EXPECT_EQ(s.out_offsets.size(), 1u);
}

}  // namespace
}  // namespace dag
