// The executor's ready vertices in the order they start: first in, first
// out (ReadyQueue), or, for a walk with a priority (walk_priority.hpp), the
// smallest rank first (a RankQueue: a few words a push and a pop where a
// binary heap of a 10^6-vertex walk's ready vertices sifted through cache
// misses), then the unranked first in, first out.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/rank_queue.hpp"
#include "walk/ready_queue.hpp"
#include "walk/walk_state.hpp"

namespace dag::walk_detail {

class ReadyOrder {
public:
    // `rank`: a vertex's rank, for a walk with a priority; null for none.
    using RankFn = std::uint32_t (*)(const Slot *) noexcept;
    explicit ReadyOrder(RankFn rank) noexcept : rank_(rank) {}

    // The ranks a walk with a priority hands out are distinct and below
    // `n` (walk_priority.hpp): they index a RankQueue and a table of the
    // queued vertex of each rank. Called once, before the first push.
    void set_rank_count(std::size_t n) {
        ranks_ = std::make_unique<RankQueue>(n);
        by_rank_.assign(n, nullptr);
    }

    bool ranked() const noexcept { return rank_ != nullptr; }
    bool empty() const noexcept { return size() == 0; }
    std::size_t size() const noexcept { return in_ranks_ + fifo_.size(); }
    // The size as of the last change, readable without the lock that guards
    // every change: a worker deciding whether others have work to go on with.
    std::size_t size_hint() const noexcept { return published_.load(std::memory_order_relaxed); }
    // Ranked: a vertex's rank, and the smallest rank queued as of the last
    // change (`none_queued` if no ranked vertex is), read without the lock:
    // a worker deciding whether a vertex it released starts before
    // everything queued, so that it may run it itself.
    static constexpr std::uint32_t none_queued = ~std::uint32_t{0};
    std::uint32_t rank_of(const Slot *s) const noexcept { return rank_(s); }
    std::uint32_t best_hint() const noexcept { return best_.load(std::memory_order_relaxed); }

    // Room for `extra` more entries; afterwards, pushing that many does not
    // allocate. Strong guarantee. (The ranked part never allocates.)
    void reserve_more(std::size_t extra) { fifo_.reserve_more(extra); }

    template <class It>
    void push_back(It first, It last) {
        if (!rank_) {
            fifo_.push_back(first, last);
            return publish();
        }
        fifo_.reserve_more(static_cast<std::size_t>(last - first));  // nothing below throws
        for (; first != last; ++first) push_ranked(*first);
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
        if (in_ranks_ != 0) {
            const RankQueue::Key r = ranks_->pop_min();
            s = by_rank_[r];
            by_rank_[r] = nullptr;
            --in_ranks_;
        } else {
            s = fifo_.pop_front();
        }
        publish();
        return s;
    }

private:
    // Vertices without a rank (of sub-walks, or added by updates) start
    // after every ranked one, first in first out. A vertex queued again
    // while its entry still waits (an update held it back and released it)
    // keeps that entry: it is claimed once either way.
    void push_ranked(Slot *s) noexcept {
        const std::uint32_t r = rank_(s);
        if (r >= by_rank_.size()) {
            fifo_.push_back(&s, &s + 1);
            return;
        }
        if (by_rank_[r]) return;
        by_rank_[r] = s;
        ranks_->push(r);
        ++in_ranks_;
    }

    void publish() noexcept {
        published_.store(size(), std::memory_order_relaxed);
        if (rank_) best_.store(in_ranks_ != 0 ? ranks_->min() : none_queued, std::memory_order_relaxed);
    }

    RankFn rank_;
    ReadyQueue<Slot *> fifo_;
    std::unique_ptr<RankQueue> ranks_;
    std::vector<Slot *> by_rank_;
    std::size_t in_ranks_ = 0;
    std::atomic<std::size_t> published_{0};
    std::atomic<std::uint32_t> best_{none_queued};
};

}  // namespace dag::walk_detail
