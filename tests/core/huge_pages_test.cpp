#include "graph/huge_pages.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace dag {
namespace {

TEST(HugePages, LargeArraysStartOnA2MiBBoundaryAndHoldWhatIsWritten) {
    const std::size_t n = (huge_pages::threshold / sizeof(std::uint32_t)) * 3 + 17;
    HugeVector<std::uint32_t> v(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % (std::uintptr_t{2} << 20), 0u);
    std::iota(v.begin(), v.end(), 0u);
    std::uint64_t sum = 0;
    for (auto x : v) sum += x;
    EXPECT_EQ(sum, std::uint64_t{n} * (n - 1) / 2);
}

TEST(HugePages, GrowingAcrossTheThresholdKeepsTheElements) {
    HugeVector<std::uint64_t> v;
    const std::size_t n = huge_pages::threshold / sizeof(std::uint64_t) * 2;
    for (std::size_t i = 0; i < n; ++i) v.push_back(i * 3);
    for (std::size_t i = 0; i < n; i += 4099) ASSERT_EQ(v[i], i * 3);
    HugeVector<std::uint64_t> copy = v;
    v.clear();
    v.shrink_to_fit();
    EXPECT_EQ(copy.size(), n);
    EXPECT_EQ(copy.back(), (n - 1) * 3);
}

TEST(HugePages, SmallArraysComeFromTheHeap) {
    HugeVector<char> v(100, 'x');
    EXPECT_EQ(std::string(v.begin(), v.end()), std::string(100, 'x'));
}

TEST(HugePages, LargeArraysUseHugePagesFrom32MiBOnly) {
    constexpr std::size_t from = std::size_t{32} << 20;
    LargeVector<std::uint64_t> big(from / sizeof(std::uint64_t) + 1, 7);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % (std::uintptr_t{2} << 20), 0u);
    EXPECT_EQ(big.back(), 7u);
    // Below the threshold the heap serves it, so it holds just the same.
    LargeVector<std::uint64_t> small(huge_pages::threshold / sizeof(std::uint64_t) * 2, 9);
    EXPECT_EQ(small.front() + small.back(), 18u);
    LargeVector<std::uint64_t> moved = std::move(big);
    EXPECT_EQ(moved.size(), from / sizeof(std::uint64_t) + 1);
}

TEST(HugePages, BuffersHoldWhatIsWrittenOnEitherSideOfTheThreshold) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1000}, (std::size_t{32} << 20) / sizeof(std::uint32_t) + 5}) {
        const LargeBuffer<std::uint32_t> b(n);
        std::iota(b.data(), b.data() + n, 1u);
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < n; ++i) sum += b.data()[i];
        EXPECT_EQ(sum, std::uint64_t{n} * (n + 1) / 2);
        if (n == 0) EXPECT_NE(b.data(), nullptr);
    }
}

TEST(HugePages, ImpossibleSizesThrowBadAlloc) {
    HugePageAllocator<std::uint64_t> a;
    EXPECT_THROW(a.allocate(static_cast<std::size_t>(-1) / 4), std::bad_alloc);
    EXPECT_THROW(huge_pages::allocate(static_cast<std::size_t>(1) << 62), std::bad_alloc);
}

}  // namespace
}  // namespace dag
