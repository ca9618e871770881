#include "graph/relocating_vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "graph/huge_pages.hpp"

namespace dag {
namespace {

// A record as the store's are: it owns heap memory through a std::vector,
// and counts the live ones, so a record destroyed twice or never shows.
struct Record {
    static inline long live = 0;
    // Copies and default records made before one throws.
    static inline long made_before_throwing = -1;
    std::vector<std::uint64_t> items;
    std::uint64_t key = 0;

    Record() {
        count_made();
        ++live;
    }
    explicit Record(std::uint64_t k) : items{k, k + 1}, key(k) { ++live; }
    Record(const Record &o) : items(o.items), key(o.key) {
        count_made();
        ++live;
    }
    Record(Record &&o) noexcept : items(std::move(o.items)), key(o.key) { ++live; }
    Record &operator=(const Record &) = default;
    ~Record() { --live; }

    static void count_made() {
        if (made_before_throwing == 0) throw std::runtime_error("record refused");
        if (made_before_throwing > 0) --made_before_throwing;
    }
};

bool holds(const Record &r, std::uint64_t k) {
    return r.key == k && r.items == std::vector<std::uint64_t>{k, k + 1};
}

constexpr std::uintptr_t two_mib = std::uintptr_t{2} << 20;

TEST(RelocatingVector, GrowingOneRecordAtATimeKeepsEveryRecordAcrossTheHugeThreshold) {
    {
        RelocatingVector<Record> v;
        // Past the threshold and through several moves of the mapping.
        const std::size_t n = huge_pages::threshold / sizeof(Record) * 9;
        const std::uint64_t *first_items = nullptr;
        for (std::size_t i = 0; i < n; ++i) {
            v.emplace_back(i);
            if (i == 0) first_items = v[0].items.data();
        }
        ASSERT_EQ(v.size(), n);
        EXPECT_EQ(Record::live, static_cast<long>(n));
        for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(holds(v[i], i)) << i;
        // Records moved as bytes: their heap memory never moved.
        EXPECT_EQ(v[0].items.data(), first_items);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % two_mib, 0u);
        EXPECT_GE(v.capacity(), n);
    }
    EXPECT_EQ(Record::live, 0);
}

TEST(RelocatingVector, APushedCopyOfItsOwnRecordSurvivesTheMove) {
    RelocatingVector<Record> v;
    v.emplace_back(7);
    for (int round = 0; round < 20; ++round) {
        while (v.size() < v.capacity()) v.emplace_back(v.size() + 7);
        // Full: this push moves the records, and `v[0]` with them.
        v.push_back(v[0]);
        ASSERT_TRUE(holds(v.back(), 7)) << round;
    }
    EXPECT_GT(v.capacity() * sizeof(Record), huge_pages::threshold);
}

TEST(RelocatingVector, CopiesAreDeepAndResizeAndClearDestroyEachRecordOnce) {
    {
        RelocatingVector<Record> v;
        v.resize(3);
        for (std::uint64_t k = 0; k < 3; ++k) v[k] = Record(k);
        RelocatingVector<Record> copy = v;
        copy[1].items.push_back(99);
        EXPECT_TRUE(holds(v[1], 1));
        EXPECT_EQ(copy[1].items.size(), 3u);

        v.pop_back();
        ASSERT_EQ(v.size(), 2u);
        EXPECT_TRUE(holds(v[0], 0));
        EXPECT_TRUE(holds(v[1], 1));

        v.resize(5);
        EXPECT_EQ(v.size(), 5u);
        EXPECT_TRUE(v[4].items.empty());
        v.resize(1);
        EXPECT_TRUE(holds(v.back(), 0));
        EXPECT_EQ(Record::live, 1 + 3);

        copy = v;
        EXPECT_EQ(copy.size(), 1u);
        v.clear();
        EXPECT_TRUE(v.empty());
        EXPECT_EQ(Record::live, 1);
    }
    EXPECT_EQ(Record::live, 0);
}

TEST(RelocatingVector, ACopyOrResizeThatThrowsPartWayLeavesNothingBehind) {
    {
        RelocatingVector<Record> v;
        for (std::uint64_t k = 0; k < 1000; ++k) v.emplace_back(k);
        Record::made_before_throwing = 500;
        EXPECT_THROW(RelocatingVector<Record> copy(v), std::runtime_error);
        EXPECT_EQ(Record::live, 1000);
        Record::made_before_throwing = 10;
        EXPECT_THROW(v.resize(2000), std::runtime_error);
        Record::made_before_throwing = -1;
        ASSERT_EQ(v.size(), 1000u);
        EXPECT_EQ(Record::live, 1000);
        for (std::uint64_t k = 0; k < 1000; ++k) ASSERT_TRUE(holds(v[k], k));
    }
    EXPECT_EQ(Record::live, 0);
}

TEST(RelocatingVector, GrowingByOneResizeAtATimeDoublesTheCapacity) {
    RelocatingVector<Record> v;
    std::size_t moves = 0, capacity = 0;
    // Past the huge threshold, as Boost's add_vertex(g) grows it.
    while (v.size() * sizeof(Record) < 3 * huge_pages::threshold) {
        v.resize(v.size() + 1);
        if (v.capacity() != capacity) ++moves;
        capacity = v.capacity();
    }
    EXPECT_LE(moves, 20u);
    EXPECT_EQ(Record::live, static_cast<long>(v.size()));
}

TEST(RelocatingVector, SwappedHugeAndSmallBlocksAreEachReleasedAsTheyWereMade) {
    {
        RelocatingVector<Record> huge_one, small_one;
        for (std::uint64_t k = 0; k < huge_pages::threshold / sizeof(Record) + 1; ++k) huge_one.emplace_back(k);
        small_one.emplace_back(3);
        huge_one.swap(small_one);
        ASSERT_EQ(huge_one.size(), 1u);
        EXPECT_TRUE(holds(huge_one[0], 3));
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small_one.data()) % two_mib, 0u);
        // A copy of a mostly empty huge block is a small one of its own.
        small_one.resize(2);
        const RelocatingVector<Record> copy = small_one;
        EXPECT_TRUE(holds(copy[1], 1));
        EXPECT_LT(copy.capacity() * sizeof(Record), huge_pages::threshold);
    }
    EXPECT_EQ(Record::live, 0);
}

TEST(RelocatingVector, AnImpossibleReserveThrowsAndKeepsTheRecords) {
    RelocatingVector<Record> v;
    for (std::uint64_t k = 0; k < 100; ++k) v.emplace_back(k);
    EXPECT_THROW(v.reserve(v.max_size() + 1), std::length_error);
    EXPECT_THROW(v.reserve(v.max_size()), std::bad_alloc);
    ASSERT_EQ(v.size(), 100u);
    for (std::uint64_t k = 0; k < 100; ++k) EXPECT_TRUE(holds(v[k], k));
}

TEST(HugePages, ReallocatingMovesTheContentsToALongerAlignedBlock) {
    const std::size_t old_bytes = std::size_t{3} << 20, new_bytes = std::size_t{40} << 20;
    auto *p = static_cast<std::uint32_t *>(huge_pages::allocate(old_bytes));
    for (std::size_t i = 0; i < old_bytes / 4; ++i) p[i] = static_cast<std::uint32_t>(i * 7);
    // Within the block's own huge pages it stays where it is.
    EXPECT_EQ(huge_pages::reallocate(p, old_bytes, old_bytes + 4), p);
    EXPECT_THROW(huge_pages::reallocate(p, old_bytes, std::size_t{1} << 62), std::bad_alloc);
    auto *q = static_cast<std::uint32_t *>(huge_pages::reallocate(p, old_bytes, new_bytes));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q) % two_mib, 0u);
    for (std::size_t i = 0; i < old_bytes / 4; ++i) ASSERT_EQ(q[i], static_cast<std::uint32_t>(i * 7)) << i;
    // The new part is fresh memory: zero, and writable to its end.
    EXPECT_EQ(q[old_bytes / 4], 0u);
    q[new_bytes / 4 - 1] = 5;
    EXPECT_EQ(q[new_bytes / 4 - 1], 5u);
    huge_pages::deallocate(q, new_bytes);
}

}  // namespace
}  // namespace dag
