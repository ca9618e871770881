#include "graph/granule_arena.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <cstring>
#include <set>
#include <vector>

#include "graph/graph.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define DAG_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DAG_TEST_ASAN 1
#endif
#endif
#if defined(DAG_TEST_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace dag {
namespace {

TEST(GranuleArena, BlocksAreAlignedApartAndKeepWhatIsWrittenAcrossChunks) {
    GranuleArena arena(512);
    EXPECT_EQ(arena.max_bytes(), 512u);
    // 2 MiB of blocks of every size: chunks from 4 KiB up to a huge page.
    std::vector<std::pair<unsigned char *, std::size_t>> blocks;
    std::size_t total = 0;
    for (std::size_t i = 0; total < (std::size_t{2} << 20); ++i) {
        const std::size_t bytes = 1 + i * 37 % 512;
        auto *p = static_cast<unsigned char *>(arena.allocate(bytes));
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % GranuleArena::granule, 0u);
        std::memset(p, static_cast<int>(i & 0xff), bytes);
        blocks.emplace_back(p, bytes);
        total += bytes;
    }
    std::set<unsigned char *> starts;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const auto [p, bytes] = blocks[i];
        EXPECT_TRUE(starts.insert(p).second);
        for (std::size_t k = 0; k < bytes; ++k) ASSERT_EQ(p[k], i & 0xff) << "block " << i << " byte " << k;
    }
}

TEST(GranuleArena, AReleasedBlockServesTheNextOfItsSizeOnly) {
    GranuleArena arena(64);
    void *a = arena.allocate(24);
    void *b = arena.allocate(17);  // three granules, as 24
    void *c = arena.allocate(8);
    arena.release(a, 24);
    EXPECT_NE(arena.allocate(8), a);  // another size: a fresh block
    EXPECT_EQ(arena.allocate(20), a);
    arena.release(b, 17);
    arena.release(c, 8);
    EXPECT_EQ(arena.allocate(8), c);
    EXPECT_EQ(arena.allocate(24), b);
    EXPECT_NE(arena.allocate(24), b);
}

TEST(GranuleArena, SwapExchangesBlocksAndFreeLists) {
    GranuleArena one(64), two(64);
    void *p = one.allocate(16);
    one.release(p, 16);
    one.swap(two);
    EXPECT_EQ(two.allocate(16), p);
    EXPECT_NE(one.allocate(16), p);
}

TEST(GranuleArena, RefusesBlocksItsFirstChunkCannotHold) {
    EXPECT_THROW(GranuleArena(0), std::invalid_argument);
    EXPECT_THROW(GranuleArena(4097), std::invalid_argument);
    GranuleArena arena(4096);
    auto *a = static_cast<unsigned char *>(arena.allocate(4096));
    auto *b = static_cast<unsigned char *>(arena.allocate(4096));
    std::memset(a, 1, 4096);
    std::memset(b, 2, 4096);
    EXPECT_EQ(a[4095], 1);
    EXPECT_EQ(b[0], 2);
}

#if defined(DAG_TEST_ASAN)
// What the arena has not handed out reads as freed memory does under
// AddressSanitizer, to the byte: past a 5-byte block, and a released block.
TEST(GranuleArena, UnderAddressSanitizerOnlyTheBytesHandedOutAreAddressable) {
    GranuleArena arena(64);
    auto *p = static_cast<char *>(arena.allocate(5));
    EXPECT_FALSE(__asan_address_is_poisoned(p + 4));
    EXPECT_TRUE(__asan_address_is_poisoned(p + 5));
    EXPECT_TRUE(__asan_address_is_poisoned(p + 8));
    arena.release(p, 5);
    EXPECT_TRUE(__asan_address_is_poisoned(p));
    auto *q = static_cast<char *>(arena.allocate(3));
    EXPECT_EQ(q, p);
    EXPECT_FALSE(__asan_address_is_poisoned(q + 2));
    EXPECT_TRUE(__asan_address_is_poisoned(q + 3));
}
#endif

// Each list keeps the arena it was made with, so its blocks go back there:
// a graph's own lists come from its arena, a copy's from the copy's, and a
// swap moves the arenas with the lists.
TEST(EdgeLists, AGraphsListsComeFromItsOwnArenaAndStayWithIt) {
    Graph g;
    const VertexId a = g.add_vertex(std::nullopt, nullptr), b = g.add_vertex(std::nullopt, nullptr);
    g.connect(a, b);
    const GranuleArena *own = g.adjacency().out_edge_list(0).get_allocator().arena;
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(g.reverse_adjacency().out_edge_list(1).get_allocator().arena, own);

    Graph copy(g);
    const GranuleArena *copied = copy.adjacency().out_edge_list(0).get_allocator().arena;
    EXPECT_NE(copied, nullptr);
    EXPECT_NE(copied, own);
    EXPECT_EQ(copy.reverse_adjacency().out_edge_list(1).get_allocator().arena, copied);

    Graph other;
    other.swap(g);
    EXPECT_EQ(other.adjacency().out_edge_list(0).get_allocator().arena, own);
    // A list made outside any graph's scope uses the heap.
    EXPECT_EQ(EdgeListAllocator<int>().arena, nullptr);
}

// Lists grow past the arena's largest block (64 entries) onto the heap and
// keep their entries, and a graph copied from them holds the same edges.
TEST(EdgeLists, ListsLongerThanTheArenasBlocksHoldEveryEdge) {
    Graph g;
    const VertexId hub = g.add_vertex(std::nullopt, nullptr);
    std::vector<VertexId> leaves;
    for (int i = 0; i < 300; ++i) {
        leaves.push_back(g.add_vertex(std::nullopt, nullptr));
        g.connect(leaves.back(), hub);
    }
    const Graph copy(g);
    for (const Graph *x : {static_cast<const Graph *>(&g), &copy}) {
        const auto &dependents = x->reverse_adjacency().out_edge_list(0);
        ASSERT_EQ(dependents.size(), leaves.size());
        for (std::size_t i = 0; i < leaves.size(); ++i) EXPECT_EQ(dependents[i].get_target() + 1, leaves[i]);
    }
}

}  // namespace
}  // namespace dag
