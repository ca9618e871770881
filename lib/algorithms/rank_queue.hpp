// A min-priority queue of distinct integer keys in [0, n), each pushed at
// most once between pops of it. Two parts:
//
//   - a sorted run: a key greater than the last one appended is appended to
//     a plain array. Orders of trees, chains and other graphs that free
//     vertices in rising key order push every key this way, and pop-min is
//     then an array read;
//   - for the other keys, a hierarchy of 64-bit occupancy words, so push and
//     pop-min each touch one word per level (four levels for a million
//     keys) instead of sifting a binary heap.
//
// pop_min() takes the smaller of the two minima. The topological orders pop
// a vertex's rank this way once per vertex.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace dag {

class RankQueue {
public:
    using Key = std::uint32_t;

    explicit RankQueue(std::size_t n) : run_(new Key[n ? n : 1]) {
        std::size_t words = (n + 63) / 64;
        do {
            words = words == 0 ? 1 : words;
            levels_.emplace_back(words, 0);
            words = (words + 63) / 64;
        } while (levels_.back().size() > 1);
    }

    bool empty() const noexcept { return head_ == tail_ && in_bits_ == 0; }

    void push(Key key) noexcept {
        if (head_ == tail_) {
            head_ = tail_ = 0;  // reuse the run's space from the start
        } else if (key < run_[tail_ - 1]) {
            push_bits(key);
            return;
        }
        run_[tail_++] = key;
    }

    // The key pop_min() would return, left in. Precondition: !empty().
    Key min() noexcept {
        if (in_bits_ == 0) return run_[head_];
        const std::size_t k = min_bits();
        return head_ != tail_ && run_[head_] < k ? run_[head_] : static_cast<Key>(k);
    }

    // Precondition: !empty().
    Key pop_min() noexcept {
        if (in_bits_ == 0) return run_[head_++];
        const std::size_t k = min_bits();
        if (head_ != tail_ && run_[head_] < k) return run_[head_++];
        erase_bits(k);
        return static_cast<Key>(k);
    }

private:
    void push_bits(Key key) noexcept {
        ++in_bits_;
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

    // Precondition: in_bits_ != 0.
    std::size_t min_bits() noexcept {
        // Keys mostly leave in rising order, so the leaf word at the floor
        // usually holds the minimum; only otherwise descend from the top.
        std::size_t k = floor_ / 64;
        if (k < levels_[0].size() && levels_[0][k] != 0)
            return k * 64 + static_cast<std::size_t>(__builtin_ctzll(levels_[0][k]));
        k = 0;
        for (std::size_t l = levels_.size(); l-- > 0;)
            k = k * 64 + static_cast<std::size_t>(__builtin_ctzll(levels_[l][k]));
        floor_ = k;
        return k;
    }

    void erase_bits(std::size_t k) noexcept {
        --in_bits_;
        floor_ = k + 1;
        for (auto &level : levels_) {
            std::uint64_t &word = level[k / 64];
            word &= ~(std::uint64_t{1} << (k % 64));
            if (word != 0) break;
            k /= 64;
        }
    }

    std::vector<std::vector<std::uint64_t>> levels_;  // leaves first, one word on top
    std::size_t floor_ = 0;                           // no key below it is in the words
    std::size_t in_bits_ = 0;                         // keys held by the words
    // Uninitialised on purpose: only [head_, tail_) is ever read, and a
    // million-key queue would otherwise pay a 4 MB memset per order.
    std::unique_ptr<Key[]> run_;
    std::size_t head_ = 0, tail_ = 0;  // the run is run_[head_, tail_)
};

}  // namespace dag
