// The executor's ready vertices in the order they start: first in, first
// out (ReadyQueue), or, for a walk with a priority (walk_priority.hpp), the
// smallest rank first and first in among equal ranks.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "walk/ready_queue.hpp"
#include "walk/walk_state.hpp"

namespace dag::walk_detail {

class ReadyOrder {
public:
    // `rank`: a vertex's rank, for a walk with a priority; null for none.
    using RankFn = std::uint32_t (*)(const Slot *) noexcept;
    explicit ReadyOrder(RankFn rank) noexcept : rank_(rank) {}

    bool ranked() const noexcept { return rank_ != nullptr; }
    bool empty() const noexcept { return rank_ ? heap_.empty() : fifo_.empty(); }
    std::size_t size() const noexcept { return rank_ ? heap_.size() : fifo_.size(); }
    // The size as of the last change, readable without the lock that guards
    // every change: a worker deciding whether others have work to go on with.
    std::size_t size_hint() const noexcept { return published_.load(std::memory_order_relaxed); }

    // Room for `extra` more entries; afterwards, pushing that many does not
    // allocate. Strong guarantee.
    void reserve_more(std::size_t extra) {
        if (rank_) {
            // Doubling: an exact reserve would copy the heap on every push.
            if (heap_.size() + extra > heap_.capacity()) heap_.reserve(std::max(heap_.size() + extra, 2 * heap_.capacity()));
        } else
            fifo_.reserve_more(extra);
    }

    template <class It>
    void push_back(It first, It last) {
        if (!rank_) {
            fifo_.push_back(first, last);
            return publish();
        }
        reserve_more(static_cast<std::size_t>(last - first));
        for (; first != last; ++first) {
            heap_.push_back(Entry{rank_(*first), sequence_++, *first});
            std::push_heap(heap_.begin(), heap_.end(), later);
        }
        publish();
    }

    // Back in front: in FIFO order, [first, last) starts next; ranked, the
    // ranks decide again.
    template <class It>
    void push_front(It first, It last) {
        if (!rank_) {
            fifo_.push_front(first, last);
            return publish();
        }
        push_back(first, last);
    }

    Slot *pop_front() noexcept {
        Slot *s;
        if (!rank_) {
            s = fifo_.pop_front();
        } else {
            std::pop_heap(heap_.begin(), heap_.end(), later);
            s = heap_.back().slot;
            heap_.pop_back();
        }
        publish();
        return s;
    }

private:
    struct Entry {
        std::uint32_t rank;
        std::uint64_t sequence;
        Slot *slot;
    };
    // std::push_heap keeps the greatest on top: the latest is the least.
    static bool later(const Entry &a, const Entry &b) noexcept {
        return a.rank != b.rank ? a.rank > b.rank : a.sequence > b.sequence;
    }

    void publish() noexcept { published_.store(size(), std::memory_order_relaxed); }

    RankFn rank_;
    ReadyQueue<Slot *> fifo_;
    std::vector<Entry> heap_;
    std::uint64_t sequence_ = 0;
    std::atomic<std::size_t> published_{0};
};

}  // namespace dag::walk_detail
