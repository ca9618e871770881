// Ready vertices of a walk with a priority, smallest rank first, by their
// distinct ranks below `n` (walk_priority.hpp): a RankQueue of the ranks (a
// few words a push and a pop, where a binary heap of a 10^6-vertex walk's
// ready vertices sifted through cache misses) and a table of the vertex of
// each rank. A vertex pushed again while its entry still waits (an update
// held it back and released it) keeps that entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/rank_queue.hpp"

namespace dag::walk_detail {

template <class T>
class RankedSlots {
public:
    static constexpr std::uint32_t none = ~std::uint32_t{0};

    explicit RankedSlots(std::size_t n) : ranks_(n), by_rank_(n, nullptr) {}

    // `spare` (a past walk's) where it is empty and made for `n`, else a new
    // one: 8 bytes a rank, zeroed, that a warm walk need not page in again.
    static std::unique_ptr<RankedSlots> reuse_or_make(std::unique_ptr<RankedSlots> &spare, std::size_t n) {
        if (spare && spare->capacity() == n && spare->empty()) return std::move(spare);
        return std::make_unique<RankedSlots>(n);
    }

    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const noexcept { return size_; }
    // The `n` it was made for. An empty one holds no item, so a later walk
    // of as many ranks may use it again.
    std::size_t capacity() const noexcept { return by_rank_.size(); }

    // Precondition: rank < n.
    void push(std::uint32_t rank, T *item) noexcept {
        if (by_rank_[rank]) return;
        by_rank_[rank] = item;
        ranks_.push(rank);
        ++size_;
    }

    // The smallest rank held; `none` when empty.
    std::uint32_t min_rank() noexcept { return size_ != 0 ? ranks_.min() : none; }

    // Precondition: !empty().
    T *pop() noexcept {
        const RankQueue::Key r = ranks_.pop_min();
        T *item = by_rank_[r];
        by_rank_[r] = nullptr;
        --size_;
        return item;
    }

private:
    RankQueue ranks_;
    std::vector<T *> by_rank_;
    std::size_t size_ = 0;
};

}  // namespace dag::walk_detail
