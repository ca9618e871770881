// The ranked walk's queues and batch sizes (lib/walk/rank_heap.hpp,
// ranked_slots.hpp, RankedBatch in walk_executor.hpp), against plain
// references.
#include "walk/rank_heap.hpp"
#include "walk/ranked_slots.hpp"
#include "walk/walk_executor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

using dag::walk_detail::RankedBatch;
using dag::walk_detail::RankedSlots;
using dag::walk_detail::RankHeap;

// Pushes in rising runs, falling runs and at random, with pops between:
// every pop gives the smallest rank held, as a multiset would.
TEST(RankHeap, PopsTheSmallestRankHeld) {
    std::mt19937 rng(5);
    for (int round = 0; round < 50; ++round) {
        RankHeap<int> heap;
        std::multiset<std::uint32_t> held;
        std::uint32_t next_rising = 0;
        for (int step = 0; step < 400; ++step) {
            const int what = static_cast<int>(rng() % 4);
            if (what == 3 && !held.empty()) {
                EXPECT_EQ(heap.min_rank(), *held.begin());
                const std::uint32_t r = static_cast<std::uint32_t>(heap.pop());
                EXPECT_EQ(r, *held.begin());
                held.erase(held.begin());
                continue;
            }
            const std::uint32_t r = what == 0 ? next_rising++ : static_cast<std::uint32_t>(rng() % 1000);
            heap.push(r, static_cast<int>(r));
            held.insert(r);
            EXPECT_EQ(heap.size(), held.size());
        }
        while (!held.empty()) {
            EXPECT_EQ(static_cast<std::uint32_t>(heap.pop()), *held.begin());
            held.erase(held.begin());
        }
        EXPECT_TRUE(heap.empty());
        EXPECT_EQ(heap.min_rank(), RankHeap<int>::none);
    }
}

// Distinct ranks below n, in any order, come out smallest first; a rank
// pushed again while it waits keeps its first entry.
TEST(RankedSlots, PopsInRankOrderAndKeepsTheFirstEntryOfARank) {
    std::mt19937 rng(9);
    const std::size_t n = 5000;
    std::vector<int> items(n);
    std::vector<std::uint32_t> ranks(n);
    for (std::uint32_t i = 0; i < n; ++i) ranks[i] = i;
    std::shuffle(ranks.begin(), ranks.end(), rng);
    RankedSlots<int> slots(n);
    std::set<std::uint32_t> held;
    for (std::size_t i = 0; i < n; ++i) {
        slots.push(ranks[i], &items[ranks[i]]);
        held.insert(ranks[i]);
        if (i % 3 == 0) {
            slots.push(ranks[i], &items[(ranks[i] + 1) % n]);  // again: ignored
            ASSERT_EQ(slots.min_rank(), *held.begin());
            EXPECT_EQ(slots.pop(), &items[*held.begin()]);
            held.erase(held.begin());
        }
        ASSERT_EQ(slots.size(), held.size());
    }
    for (std::uint32_t r : held) EXPECT_EQ(slots.pop(), &items[r]);
    EXPECT_TRUE(slots.empty());
    EXPECT_EQ(slots.min_rank(), RankedSlots<int>::none);
}

// Quick batches double the next up to the most; slow ones halve it to one.
TEST(RankedBatch, GrowsWhileBatchesAreQuickAndShrinksWhenTheyAreSlow) {
    RankedBatch batch;
    auto t = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
    EXPECT_EQ(batch.size(), 1u);
    batch.taken(t);  // the first batch: nothing ran before it
    EXPECT_EQ(batch.size(), 1u);
    std::vector<std::size_t> sizes;
    for (int i = 0; i < 11; ++i) {
        t += RankedBatch::quick / 2;
        batch.taken(t);
        sizes.push_back(batch.size());
    }
    EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 4, 8, 16, 32, 64, 128, 256, 512, 512, 512}));
    EXPECT_EQ(RankedBatch::most, 512u);
    sizes.clear();
    for (int i = 0; i < 11; ++i) {
        t += RankedBatch::quick * 3;
        batch.taken(t);
        sizes.push_back(batch.size());
    }
    EXPECT_EQ(sizes, (std::vector<std::size_t>{256, 128, 64, 32, 16, 8, 4, 2, 1, 1, 1}));
}

}  // namespace
