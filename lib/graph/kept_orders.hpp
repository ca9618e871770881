// The two topological orders of a graph, kept once computed, and kept past
// the changes that can only insert into them.
//
// The next call on the unchanged graph copies the ids (O(V), a few
// nanoseconds a vertex) instead of running Kahn's pass again, whose reads
// jump about memory on a large graph with names in random order
// (bench/README.md, "Orders of an unchanged graph are kept").
//
// Adding vertices and edges keeps the orders and logs the edges: the next
// call may then extend the kept order instead of computing it again
// (order_extension.hpp says when that gives the same order). Every other
// change (a removal, a disconnect, a rename, a replace, a copy) drops them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "graph/huge_pages.hpp"

namespace dag {

using VertexId = std::uint64_t;

class KeptOrders {
public:
    // An edge added since: (a, b), graph indices, a depends on b.
    using Edge = std::pair<std::uint32_t, std::uint32_t>;

    struct Order {
        std::shared_ptr<const HugeVector<VertexId>> ids;  // null: none kept
        // For a graph with names: each position's rank (name, then id)
        // among the order's own vertices; null for a graph without names.
        std::shared_ptr<const HugeVector<std::uint32_t>> keys;
        std::size_t bound = 0;  // Graph::index_bound() when it was made
        std::size_t edges = 0;  // how many edges logged so far it includes
    };
    // What a computation is handed: the order kept before (ids null when
    // none) and the edges added since it was made.
    struct Since {
        Order order;
        std::vector<Edge> edges;
    };

    KeptOrders() = default;
    KeptOrders(const KeptOrders &) = delete;
    KeptOrders &operator=(const KeptOrders &) = delete;

    // The order going dependencies first (`dependencies_first`) or
    // dependents first, for a graph whose index bound is `bound`: the kept
    // one while nothing changed since, otherwise `make(since)`'s, which is
    // then kept (other threads asking meanwhile wait for it). An exception
    // from `make` (a cycle, no memory) propagates and keeps nothing new, so
    // the next call computes again. A mutex, not std::call_once:
    // ThreadSanitizer's call_once never lets a flag whose function threw be
    // tried again (the next call hangs).
    template <class Make>
    std::shared_ptr<const HugeVector<VertexId>> get(bool dependencies_first, std::size_t bound, const Make &make) const {
        Slot &slot = slots_[dependencies_first ? 1 : 0];
        std::lock_guard<std::mutex> computing(slot.mu);
        Since since;
        std::size_t logged = 0;
        {
            std::lock_guard<std::mutex> lk(mu_);
            since.order = slot.order;
            logged = trimmed_ + log_.size();
            if (since.order.ids) {
                if (since.order.bound == bound && since.order.edges == logged) return since.order.ids;
                since.edges.assign(log_.begin() + static_cast<std::ptrdiff_t>(since.order.edges - trimmed_), log_.end());
            }
        }
        Order made = make(static_cast<const Since &>(since));
        made.bound = bound;
        made.edges = logged;
        std::lock_guard<std::mutex> lk(mu_);
        slot.order = made;
        kept_.store(true, std::memory_order_release);
        trim_locked();
        return made.ids;
    }

    // Whether an order is kept, so that connects must be logged.
    bool kept() const noexcept { return kept_.load(std::memory_order_acquire); }
    // Logs `count` added edges, edge_at(i) for each i < count. Past the
    // log's cap (computing again is then cheaper than replaying it), or out
    // of memory, drops the orders instead. Never throws.
    template <class EdgeAt>
    void connected(std::size_t count, const EdgeAt &edge_at) noexcept {
        if (!kept()) return;
        std::lock_guard<std::mutex> lk(mu_);
        std::size_t smallest = 0;
        for (const Slot &s : slots_)
            if (s.order.ids && (smallest == 0 || s.order.ids->size() < smallest)) smallest = s.order.ids->size();
        if (log_.size() + count > smallest / 8 + 1024) return drop_locked();
        try {
            log_.reserve(log_.size() + count);
        } catch (...) {
            return drop_locked();
        }
        for (std::size_t i = 0; i < count; ++i) log_.push_back(edge_at(i));
    }
    // Forgets both orders and the log. Never throws.
    void drop() noexcept {
        if (!kept()) return;
        std::lock_guard<std::mutex> lk(mu_);
        drop_locked();
    }

private:
    struct Slot {
        std::mutex mu;  // held while the order is computed
        Order order;    // guarded by KeptOrders::mu_
    };
    // Forgets the edges every kept order includes already (an order being
    // computed meanwhile counts from an earlier point: counts are absolute).
    void trim_locked() const noexcept {
        std::size_t first = trimmed_ + log_.size();
        for (const Slot &s : slots_)
            if (s.order.ids) first = std::min(first, s.order.edges);
        if (first == trimmed_) return;
        log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(first - trimmed_));
        trimmed_ = first;
    }
    void drop_locked() noexcept {
        for (Slot &s : slots_) s.order = Order{};
        std::vector<Edge>().swap(log_);
        trimmed_ = 0;
        kept_.store(false, std::memory_order_release);
    }

    mutable std::mutex mu_;
    mutable Slot slots_[2];
    mutable std::vector<Edge> log_;
    mutable std::size_t trimmed_ = 0;  // edges logged before log_'s first
    mutable std::atomic<bool> kept_{false};
};

}  // namespace dag
