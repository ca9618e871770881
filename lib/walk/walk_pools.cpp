#include "walk/walk_pools.hpp"

#include <utility>

#include "walk/walker.hpp"

namespace dag::walk_detail {

Pools::Pools(const Walk &walk, std::vector<std::size_t> capacities, std::vector<std::uint32_t> offsets,
             std::vector<std::uint32_t> pools)
    : walk_(walk),
      offsets_(std::move(offsets)),
      pools_(std::move(pools)),
      capacity_(std::move(capacities)),
      used_(new std::atomic<std::size_t>[capacity_.size()]()),
      state_(new std::atomic<std::uint8_t>[offsets_.size() - 1]()),
      parked_(capacity_.size()) {}

Snapshot::Index Pools::needing(const Slot *s) const noexcept {
    if (s->walk != &walk_) return Snapshot::npos;
    const Snapshot::Index i = walk_.index_of(*s);
    return i != Snapshot::npos && offsets_[i] != offsets_[i + 1] ? i : Snapshot::npos;
}

bool Pools::take_one(std::uint32_t pool) noexcept {
    std::size_t used = used_[pool].load();
    while (used < capacity_[pool])
        if (used_[pool].compare_exchange_weak(used, used + 1)) return true;
    return false;
}

std::uint32_t Pools::try_take(Snapshot::Index i) noexcept {
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k)
        if (!take_one(pools_[k])) {
            // Held for an instant only, under the lock: a lock-free start
            // that found one of them full retries under the lock, after this.
            for (std::uint32_t j = offsets_[i]; j != k; ++j) used_[pools_[j]].fetch_sub(1);
            return pools_[k];
        }
    return none;
}

bool Pools::acquire(Slot *s, std::uint32_t *kept, std::vector<Slot *> &ready) {
    const Snapshot::Index i = needing(s);
    const bool single = i != Snapshot::npos && offsets_[i + 1] - offsets_[i] == 1;
    std::atomic<std::uint8_t> *state = i != Snapshot::npos ? &state_[i] : nullptr;
    const std::uint8_t now = state ? state->load(std::memory_order_acquire) : 0;
    if (kept && *kept != none) {
        // Parked vertices are served in order: they get it first.
        if (single && now == 0 && *kept == pools_[offsets_[i]] && parked_entries_.load() == 0) {
            *kept = none;
            state->store(holding, std::memory_order_release);
            return true;
        }
        give_back(*kept, ready);
    }
    if (!state || now == holding) return true;
    if (now == 0 && single && parked_entries_.load() == 0 && take_one(pools_[offsets_[i]])) {
        state->store(holding, std::memory_order_release);
        return true;
    }
    std::lock_guard<std::mutex> lk(mu_);
    if (state->load(std::memory_order_acquire) == holding) return true;
    // Counted before the last try: a lock-free release that frees a slot
    // after that try sees the count and hands the slot out under the lock.
    ++parked_entries_;
    const std::uint32_t full = try_take(i);
    if (full == none) {
        --parked_entries_;
        state->store(holding, std::memory_order_release);
        return true;
    }
    state->store(parked, std::memory_order_relaxed);
    // Waiting again before it is parked: a release may queue it as soon as
    // the lock is let go, and the queue only runs waiting vertices. The
    // store publishes the parked bit to whoever claims the vertex next.
    s->word.store(with_phase(s->word.load(std::memory_order_relaxed), Phase::waiting), std::memory_order_release);
    parked_[full].push_back(s);
    return false;
}

void Pools::release(const Slot *s, std::vector<Slot *> &ready, std::uint32_t *kept) {
    const Snapshot::Index i = needing(s);
    if (i == Snapshot::npos) return;
    // Only the vertex's own finisher changes a holding state; an update
    // releasing a vertex it held back or removed runs with every worker out
    // of its section (Executor::quiesce), after any hand-out to it.
    std::atomic<std::uint8_t> &state = state_[i];
    if (state.load(std::memory_order_relaxed) != holding) return;
    state.store(0, std::memory_order_relaxed);
    if (kept && *kept == none && offsets_[i + 1] - offsets_[i] == 1 && parked_entries_.load() == 0) {
        *kept = pools_[offsets_[i]];
        return;
    }
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k) used_[pools_[k]].fetch_sub(1);
    if (parked_entries_.load() == 0) return;
    std::lock_guard<std::mutex> lk(mu_);
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k) hand_out(pools_[k], ready);
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

void Pools::hand_out(std::uint32_t p, std::vector<Slot *> &ready) {
    auto &queue = parked_[p];
    while (!queue.empty() && used_[p].load() < capacity_[p]) {
        Slot *d = queue.front();
        queue.pop_front();
        const Snapshot::Index di = walk_.index_of(*d);
        std::atomic<std::uint8_t> &state = state_[di];
        const Word w = d->word.load(std::memory_order_acquire);
        // A stale entry: the vertex took its slots itself since (an update
        // made it wait and released it again), or was removed or made to
        // wait again by an update: when it is ready again it asks for itself.
        if (state.load(std::memory_order_relaxed) != parked || phase_of(w) != Phase::waiting || count_of(w) != 0) {
            --parked_entries_;
            continue;
        }
        const std::uint32_t full = try_take(di);
        if (full == p) {
            // A lock-free start took the slot first: still first in line.
            queue.push_front(d);
            return;
        }
        if (full != none) {
            // Full elsewhere: it waits on that pool instead.
            parked_[full].push_back(d);
            continue;
        }
        --parked_entries_;
        state.store(holding, std::memory_order_release);
        ready.push_back(d);
    }
}

}  // namespace dag::walk_detail
