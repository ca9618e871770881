// The executor's ready vertices in the order they start: first in, first
// out (ReadyQueue), or, for a walk with a priority (walk_priority.hpp), the
// smallest rank first, then the unranked first in, first out. The ranked
// part is a RankedSlots sized by the walk, or, where a walk's only worker
// keeps what it releases itself and only other threads queue ranked
// vertices here, a RankHeap of those few.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "walk/rank_heap.hpp"
#include "walk/ranked_slots.hpp"
#include "walk/ready_queue.hpp"
#include "walk/walk_state.hpp"

namespace dag::walk_detail {

class ReadyOrder {
public:
    // `rank`: a vertex's rank, for a walk with a priority; null for none.
    using RankFn = std::uint32_t (*)(const Slot *) noexcept;
    explicit ReadyOrder(RankFn rank) noexcept : rank_(rank) {}

    // The ranks a walk with a priority hands out are distinct and below
    // `n` (walk_priority.hpp). `few`: only a few ranked vertices are ever
    // queued here at once. `bulk`, where it is empty and made for `n`, is
    // used for the others instead of a new one. Called once, before the
    // first push.
    void set_rank_count(std::size_t n, bool few, std::unique_ptr<RankedSlots<Slot>> &bulk) {
        if (!few) bulk_ = RankedSlots<Slot>::reuse_or_make(bulk, n);
        rank_count_ = n;
    }

    // Once the walk is over, what a later walk's queue may use again: the
    // ring (for adopt()), and the ranked slots where they hold nothing (for
    // set_rank_count()).
    void release(std::vector<Slot *> &ring, std::unique_ptr<RankedSlots<Slot>> &bulk) noexcept {
        ring = fifo_.release();
        if (bulk_ && bulk_->empty()) bulk = std::move(bulk_);
    }
    // Precondition: empty(), and no rank count set yet.
    void adopt(std::vector<Slot *> &&ring) noexcept { fifo_.adopt(std::move(ring)); }

    bool ranked() const noexcept { return rank_ != nullptr; }
    bool empty() const noexcept { return size() == 0; }
    std::size_t size() const noexcept { return ranked_size() + fifo_.size(); }
    // The size as of the last change, readable without the lock that guards
    // every change: a worker deciding whether others have work to go on with.
    std::size_t size_hint() const noexcept { return published_.load(std::memory_order_relaxed); }
    // Ranked: a vertex's rank, and the smallest rank queued as of the last
    // change (`none_queued` if no ranked vertex is), read without the lock:
    // a worker deciding whether a vertex it released starts before
    // everything queued, so that it may run it itself.
    static constexpr std::uint32_t none_queued = ~std::uint32_t{0};
    std::uint32_t rank_of(const Slot *s) const noexcept { return rank_(s); }
    // Whether `rank` is one a ranked vertex has (the others start after every
    // ranked one, first in first out). Fixed before the first push.
    bool has_rank(std::uint32_t rank) const noexcept { return rank < rank_count_; }
    std::uint32_t best_hint() const noexcept { return best_.load(std::memory_order_relaxed); }

    // Room for `extra` more entries; afterwards, pushing that many does not
    // allocate. Strong guarantee.
    void reserve_more(std::size_t extra) {
        fifo_.reserve_more(extra);
        if (rank_ && !bulk_) few_.reserve_more(extra);
    }

    template <class It>
    void push_back(It first, It last) {
        if (!rank_) {
            fifo_.push_back(first, last);
            return publish();
        }
        reserve_more(static_cast<std::size_t>(last - first));  // nothing below throws
        for (; first != last; ++first) push_ranked(*first);
        publish();
    }

    // push_back() with each vertex's rank read already, `ranks[i]` for
    // `first[i]`, so that a caller reads them (a cache miss each where the
    // ranks are far apart) before it takes the lock that guards the queue.
    // Room is made only for the vertices without a rank in the first in,
    // first out part (a fan-out's million released leaves would otherwise
    // reserve 8 MB there, unused, at every walk).
    template <class It>
    void push_back_ranked(It first, It last, const std::uint32_t *ranks) {
        const std::size_t n = static_cast<std::size_t>(last - first);
        fifo_.reserve_more(static_cast<std::size_t>(
            std::count_if(ranks, ranks + n, [&](std::uint32_t r) { return r >= rank_count_; })));
        if (!bulk_) few_.reserve_more(n);  // nothing below throws
        for (; first != last; ++first, ++ranks) push_ranked(*first, *ranks);
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

    // Pops `n` into out[n - 1], out[n - 2], ..., out[0] (a batch runs from
    // the back), publishing once. Precondition: n <= size().
    void pop_front_reversed(Slot **out, std::size_t n) noexcept {
        while (n-- > 0) out[n] = take_front();
        publish();
    }

private:
    Slot *take_front() noexcept {
        if (bulk_ && !bulk_->empty()) return bulk_->pop();
        if (!few_.empty()) return few_.pop();
        return fifo_.pop_front();
    }

    std::size_t ranked_size() const noexcept { return bulk_ ? bulk_->size() : few_.size(); }

    // Vertices without a rank (of sub-walks, or added by updates) start
    // after every ranked one, first in first out. A vertex queued again
    // while its entry still waits (an update held it back and released it)
    // may be claimed from either entry, once.
    void push_ranked(Slot *s) noexcept { push_ranked(s, rank_(s)); }
    void push_ranked(Slot *s, std::uint32_t r) noexcept {
        if (r >= rank_count_)
            fifo_.push_back(&s, &s + 1);
        else if (bulk_)
            bulk_->push(r, s);
        else
            few_.push(r, s);
    }

    void publish() noexcept {
        published_.store(size(), std::memory_order_relaxed);
        if (rank_) best_.store(bulk_ ? bulk_->min_rank() : few_.min_rank(), std::memory_order_relaxed);
    }

    RankFn rank_;
    ReadyQueue<Slot *> fifo_;
    std::size_t rank_count_ = 0;
    std::unique_ptr<RankedSlots<Slot>> bulk_;
    RankHeap<Slot *> few_;
    std::atomic<std::size_t> published_{0};
    std::atomic<std::uint32_t> best_{none_queued};
};

}  // namespace dag::walk_detail
