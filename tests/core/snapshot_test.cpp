#include "graph/snapshot.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

// A renumbered copy (a ranked walk's layout) moves each vertex to its new
// index and keeps each neighbour list's order, with or without gaps in the
// ids; an empty graph stays empty.
TEST(Snapshot, RenumberedCopyMovesEachVertexAndKeepsItsRows) {
    for (bool gaps : {false, true}) {
        Graph g;
        auto a = g.add_vertex("a", nullptr), b = g.add_vertex("b", nullptr), c = g.add_vertex("c", nullptr);
        auto d = g.add_vertex("d", nullptr), e = g.add_vertex("e", nullptr);
        g.connect(a, d);
        g.connect(a, c);
        g.connect(d, c);
        g.connect(e, a);
        g.connect(e, c);
        if (gaps) g.remove_vertex(b);
        const Snapshot s = freeze(g);
        const std::size_t n = s.size();
        // Reversed: the last dense index first.
        std::vector<std::uint32_t> to(n);
        for (std::uint32_t i = 0; i < n; ++i) to[i] = static_cast<std::uint32_t>(n - 1 - i);
        const Snapshot r = renumber(s, to.data());
        ASSERT_EQ(r.size(), n);
        EXPECT_EQ(r.edge_count(), s.edge_count());
        EXPECT_NE(r.id_table(), nullptr);
        EXPECT_EQ(r.index_of(b), gaps ? Snapshot::npos : to[s.index_of(b)]);
        EXPECT_EQ(r.index_of(0), Snapshot::npos);
        EXPECT_EQ(r.index_of(e + 1), Snapshot::npos);
        auto ids = [](const Snapshot &x, const Snapshot::Index *p, const Snapshot::Index *end) {
            std::vector<VertexId> out;
            for (; p != end; ++p) out.push_back(x.id_of(*p));
            return out;
        };
        for (std::uint32_t i = 0; i < n; ++i) {
            const VertexId v = s.id_of(i);
            ASSERT_EQ(r.index_of(v), to[i]) << v;
            ASSERT_EQ(r.id_of(to[i]), v);
            EXPECT_EQ(ids(r, r.out_begin(to[i]), r.out_end(to[i])), ids(s, s.out_begin(i), s.out_end(i))) << v;
            EXPECT_EQ(ids(r, r.in_begin(to[i]), r.in_end(to[i])), ids(s, s.in_begin(i), s.in_end(i))) << v;
        }
        EXPECT_EQ(ids(r, r.out_begin(r.index_of(a)), r.out_end(r.index_of(a))), (std::vector<VertexId>{d, c}));
        EXPECT_EQ(ids(r, r.in_begin(r.index_of(c)), r.in_end(r.index_of(c))), (std::vector<VertexId>{a, d, e}));
    }
    Graph empty;
    const Snapshot none = renumber(freeze(empty), nullptr);
    EXPECT_EQ(none.size(), 0u);
    EXPECT_EQ(none.out_offsets.size(), 1u);
    EXPECT_EQ(none.in_offsets.size(), 1u);
}

TEST(Snapshot, EmptyGraph) {
    Graph g;
    Snapshot s = freeze(g);
    EXPECT_EQ(s.size(), 0u);
    EXPECT_EQ(s.out_offsets.size(), 1u);
}

}  // namespace
}  // namespace dag
