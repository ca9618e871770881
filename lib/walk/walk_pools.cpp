#include "walk/walk_pools.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "walk/walker.hpp"

namespace dag::walk_detail {

Pools::Pools(const Walk &walk, std::size_t vertex_count, std::vector<std::size_t> capacities,
             std::vector<std::uint32_t> offsets, std::vector<std::uint32_t> pools)
    : slots_(walk.slot_mem_.get()),
      slot_shift_(walk.slot_shift_),
      capacity_(std::move(capacities)),
      identity_(capacity_.size()),
      offsets_(std::move(offsets)),
      several_pools_(std::move(pools)),
      used_(new std::atomic<std::size_t>[capacity_.size()]()),
      state_(new std::atomic<std::uint8_t>[vertex_count]()),
      parked_(capacity_.size()) {
    std::iota(identity_.begin(), identity_.end(), std::uint32_t{0});
}

Pools::Range Pools::needs(const Slot *s, std::uint32_t need) const noexcept {
    if (need != several_needs) return {&identity_[need - 1], &identity_[need - 1] + 1};
    const std::size_t i = index_of(s);
    return {several_pools_.data() + offsets_[i], several_pools_.data() + offsets_[i + 1]};
}

bool Pools::take_one(std::uint32_t pool) noexcept {
    std::size_t used = used_[pool].load();
    while (used < capacity_[pool])
        if (used_[pool].compare_exchange_weak(used, used + 1)) return true;
    return false;
}

std::uint32_t Pools::try_take(Range r) noexcept {
    for (const std::uint32_t *k = r.first; k != r.last; ++k)
        if (!take_one(*k)) {
            // Held for an instant only, under the lock: a lock-free start
            // that found one of them full retries under the lock, after this.
            for (const std::uint32_t *j = r.first; j != k; ++j) used_[*j].fetch_sub(1);
            return *k;
        }
    return none;
}

bool Pools::acquire_needed(Slot *s, std::uint32_t *kept, std::vector<Slot *> &ready) {
    const std::uint32_t need = need_of(s->word.load(std::memory_order_relaxed));
    // A slot carrying a need is one of the walked graph's own.
    std::atomic<std::uint8_t> *state = need ? &state_of(s) : nullptr;
    const bool single = need && need != several_needs;
    const std::uint8_t now = state ? state->load(std::memory_order_acquire) : 0;
    if (kept && *kept != none) {
        // Parked vertices are served in order: they get it first.
        if (single && now == 0 && *kept == need - 1 && parked_entries_.load() == 0) {
            *kept = none;
            state->store(holding, std::memory_order_release);
            return true;
        }
        give_back(*kept, ready);
    }
    if (!state || now == holding) return true;
    if (now == 0 && single && parked_entries_.load() == 0 && take_one(need - 1)) {
        state->store(holding, std::memory_order_release);
        return true;
    }
    std::lock_guard<std::mutex> lk(mu_);
    if (state->load(std::memory_order_acquire) == holding) return true;
    // Counted before the last try: a lock-free release that frees a slot
    // after that try sees the count and hands the slot out under the lock.
    ++parked_entries_;
    const Range r = needs(s, need);
    revisit_.clear();
    std::uint32_t full = kept_for_head(s, r);
    if (full == none) full = try_take(r);
    if (full == none) {
        --parked_entries_;
        state->store(holding, std::memory_order_release);
        serve_revisits(ready);
        return true;
    }
    state->store(parked, std::memory_order_relaxed);
    // Waiting again before it is parked: a release may queue it as soon as
    // the lock is let go, and the queue only runs waiting vertices. The
    // store publishes the parked bit to whoever claims the vertex next.
    s->word.store(with_phase(s->word.load(std::memory_order_relaxed), Phase::waiting), std::memory_order_release);
    parked_[full].push_back(s);
    order_.push_back(s);
    serve_revisits(ready);
    return false;
}

void Pools::release_needed(const Slot *s, std::vector<Slot *> &ready) {
    const std::uint32_t need = need_of(s->word.load(std::memory_order_relaxed));
    std::atomic<std::uint8_t> &state = state_of(s);
    if (state.load(std::memory_order_relaxed) == parked) {
        // Removed or made to wait by an update while parked: if it was the
        // head, the pools kept for it go to the next.
        std::lock_guard<std::mutex> lk(mu_);
        revisit_.clear();
        serve_head(ready);
        serve_revisits(ready);
        return;
    }
    if (state.load(std::memory_order_relaxed) != holding) return;
    state.store(0, std::memory_order_relaxed);
    const Range r = needs(s, need);
    for (const std::uint32_t *k = r.first; k != r.last; ++k) used_[*k].fetch_sub(1);
    if (parked_entries_.load() == 0) return;
    std::lock_guard<std::mutex> lk(mu_);
    for (const std::uint32_t *k = r.first; k != r.last; ++k) hand_out(*k, ready);
}

void Pools::give_back(std::uint32_t &kept, std::vector<Slot *> &ready) {
    if (kept == none) return;
    const std::uint32_t p = kept;
    kept = none;
    freed(p, ready);
}

void Pools::freed(std::uint32_t p, std::vector<Slot *> &ready) {
    used_[p].fetch_sub(1);
    if (parked_entries_.load() == 0) return;
    std::lock_guard<std::mutex> lk(mu_);
    hand_out(p, ready);
}

bool Pools::still_parked(const Slot *d) const noexcept {
    const Word w = d->word.load(std::memory_order_acquire);
    return state_of(d).load(std::memory_order_relaxed) == parked && phase_of(w) == Phase::waiting &&
           count_of(w) == 0;
}

Slot *Pools::head() {
    while (!order_.empty() && !still_parked(order_.front())) order_.pop_front();
    Slot *h = order_.empty() ? nullptr : order_.front();
    if (h != kept_head_) {
        // The one kept for before is gone without being served (removed or
        // made to wait by an update, or claimed again): vertices parked on
        // its free slots for it may start.
        if (kept_head_) {
            const Range r = needs(kept_head_, need_of(kept_head_->word.load(std::memory_order_relaxed)));
            revisit_.insert(revisit_.end(), r.first, r.last);
        }
        kept_head_ = h;
    }
    return h;
}

std::uint32_t Pools::kept_for_head(const Slot *s, Range r) {
    const Slot *h = head();
    if (!h || h == s) return none;
    const Range kept = needs(h, need_of(h->word.load(std::memory_order_relaxed)));
    // One slot of each is kept, not the whole pool: the others stay for the
    // vertices that need them (with aws=10 and rds=1, a vertex waiting for
    // rds idled all of aws). A release read late only overstates `used`.
    for (const std::uint32_t *k = r.first; k != r.last; ++k)
        if (std::find(kept.first, kept.last, *k) != kept.last && used_[*k].load() + 1 >= capacity_[*k]) return *k;
    return none;
}

void Pools::served_head(Slot *h, Range r, std::vector<Slot *> &ready) {
    state_of(h).store(holding, std::memory_order_release);
    ready.push_back(h);
    // Its pools are no longer kept: vertices parked on them for it may
    // start (its own entry in parked_ goes as a hand-out meets it).
    kept_head_ = nullptr;
    revisit_.insert(revisit_.end(), r.first, r.last);
}

void Pools::serve_head(std::vector<Slot *> &ready) {
    for (Slot *h = head(); h; h = head()) {
        const Range r = needs(h, need_of(h->word.load(std::memory_order_relaxed)));
        if (try_take(r) != none) return;
        order_.pop_front();
        served_head(h, r, ready);
    }
}

void Pools::serve_revisits(std::vector<Slot *> &ready) {
    while (!revisit_.empty()) {
        const std::uint32_t q = revisit_.back();
        revisit_.pop_back();
        serve_parked(q, ready);
    }
}

void Pools::hand_out(std::uint32_t p, std::vector<Slot *> &ready) {
    revisit_.clear();
    revisit_.push_back(p);
    serve_head(ready);
    serve_revisits(ready);
}

void Pools::serve_parked(std::uint32_t p, std::vector<Slot *> &ready) {
    auto &queue = parked_[p];
    while (!queue.empty()) {
        Slot *d = queue.front();
        // A stale entry: the vertex took its slots itself since (an update
        // made it wait and released it again), or was served as the head,
        // or was removed or made to wait again by an update: when it is
        // ready again it asks for itself. Dropped also when the pool is
        // full: while it is counted, starts and ends take the lock.
        if (!still_parked(d)) {
            queue.pop_front();
            --parked_entries_;
            continue;
        }
        if (used_[p].load() >= capacity_[p]) return;
        queue.pop_front();
        const Range r = needs(d, need_of(d->word.load(std::memory_order_relaxed)));
        std::uint32_t full = kept_for_head(d, r);
        if (full == none) full = try_take(r);
        if (full == p) {
            // A lock-free start took the slot first, or the head needs it:
            // still first in line here.
            queue.push_front(d);
            return;
        }
        if (full != none) {
            // Full elsewhere, or kept there: it waits on that pool instead.
            parked_[full].push_back(d);
            continue;
        }
        --parked_entries_;
        if (head() == d) {
            order_.pop_front();
            served_head(d, r, ready);
            // The next head may have all it needs now.
            serve_head(ready);
        } else {
            state_of(d).store(holding, std::memory_order_release);
            ready.push_back(d);
        }
    }
}

}  // namespace dag::walk_detail
