// A few ranked items, smallest rank first, with no table sized by the walk:
// the part of a ranked walk's shared queue that, with one worker, only other
// threads fill (completions, updates, retries), the worker keeping what it
// releases itself (ranked_slots.hpp).
//
// Two parts, as in RankQueue: ranks pushed in rising order are appended to a
// run and popped from its front; the others go to a binary heap. Each item
// keeps its rank beside it, so no comparison looks a rank up. An item may be
// held twice; whoever pops it claims it once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "graph/growth.hpp"

namespace dag::walk_detail {

template <class T>
class RankHeap {
public:
    static constexpr std::uint32_t none = ~std::uint32_t{0};

    bool empty() const noexcept { return size() == 0; }
    std::size_t size() const noexcept { return run_.size() - head_ + heap_.size(); }

    // Room for `extra` more items; afterwards, pushing that many does not
    // allocate. Strong guarantee.
    void reserve_more(std::size_t extra) {
        dag::reserve_more(run_, extra);
        dag::reserve_more(heap_, extra);
    }

    void push(std::uint32_t rank, T item) {
        if (head_ == run_.size()) {
            run_.clear();
            head_ = 0;
        }
        if (run_.empty() || rank > run_.back().first) {
            run_.emplace_back(rank, item);
        } else {
            heap_.emplace_back(rank, item);
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        }
    }

    // The smallest rank held; `none` when empty.
    std::uint32_t min_rank() const noexcept {
        const std::uint32_t a = head_ != run_.size() ? run_[head_].first : none;
        const std::uint32_t b = heap_.empty() ? none : heap_.front().first;
        return std::min(a, b);
    }

    // Precondition: !empty().
    T pop() noexcept {
        if (heap_.empty() || (head_ != run_.size() && run_[head_].first < heap_.front().first))
            return run_[head_++].second;
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
        const T item = heap_.back().second;
        heap_.pop_back();
        return item;
    }

private:
    std::vector<std::pair<std::uint32_t, T>> run_;  // rising ranks, from head_
    std::size_t head_ = 0;
    std::vector<std::pair<std::uint32_t, T>> heap_;  // a min-heap
};

}  // namespace dag::walk_detail
