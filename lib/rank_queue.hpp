// A min-priority queue of distinct integer keys in [0, n): a hierarchy of
// 64-bit occupancy words, so push and pop-min each touch one word per level
// (four levels for a million keys) instead of sifting a binary heap. The
// topological orders pop a vertex's rank this way once per vertex.
#pragma once

#include <cstdint>
#include <vector>

namespace dag {

class RankQueue {
public:
    using Key = std::uint32_t;

    explicit RankQueue(std::size_t n) {
        std::size_t words = (n + 63) / 64;
        do {
            words = words == 0 ? 1 : words;
            levels_.emplace_back(words, 0);
            words = (words + 63) / 64;
        } while (levels_.back().size() > 1);
    }

    bool empty() const noexcept { return levels_.back()[0] == 0; }

    void push(Key key) noexcept {
        if (key < floor_) floor_ = key;
        std::size_t k = key;
        for (auto &level : levels_) {
            std::uint64_t &word = level[k / 64];
            const bool was_empty = word == 0;
            word |= std::uint64_t{1} << (k % 64);
            if (!was_empty) return;  // the levels above already mark this word
            k /= 64;
        }
    }

    // Precondition: !empty().
    Key pop_min() noexcept {
        // Orders mostly pop in rising key order, so the leaf word at the
        // floor usually holds the minimum; only otherwise descend from the top.
        std::size_t k = floor_ / 64;
        if (k < levels_[0].size() && levels_[0][k] != 0) {
            k = k * 64 + static_cast<std::size_t>(__builtin_ctzll(levels_[0][k]));
        } else {
            k = 0;
            for (std::size_t l = levels_.size(); l-- > 0;)
                k = k * 64 + static_cast<std::size_t>(__builtin_ctzll(levels_[l][k]));
        }
        const Key key = static_cast<Key>(k);
        floor_ = k + 1;
        for (auto &level : levels_) {
            std::uint64_t &word = level[k / 64];
            word &= ~(std::uint64_t{1} << (k % 64));
            if (word != 0) break;
            k /= 64;
        }
        return key;
    }

private:
    std::vector<std::vector<std::uint64_t>> levels_;  // leaves first, one word on top
    std::size_t floor_ = 0;                           // no key below it is queued
};

}  // namespace dag
