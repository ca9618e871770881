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
      used_(capacity_.size(), 0),
      parked_(capacity_.size()),
      holding_(offsets_.size() - 1, 0) {}

Snapshot::Index Pools::needing(const Slot *s) const noexcept {
    if (s->walk != &walk_) return Snapshot::npos;
    const Snapshot::Index i = walk_.index_of(*s);
    return i != Snapshot::npos && offsets_[i] != offsets_[i + 1] ? i : Snapshot::npos;
}

bool Pools::fits(Snapshot::Index i) const noexcept {
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k)
        if (used_[pools_[k]] >= capacity_[pools_[k]]) return false;
    return true;
}

void Pools::take(Snapshot::Index i) noexcept {
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k) ++used_[pools_[k]];
    holding_[i] = 1;
}

bool Pools::acquire(Slot *s) {
    const Snapshot::Index i = needing(s);
    if (i == Snapshot::npos) return true;
    std::lock_guard<std::mutex> lk(mu_);
    if (holding_[i]) return true;
    if (fits(i)) {
        take(i);
        return true;
    }
    std::uint32_t full = pools_[offsets_[i]];
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k)
        if (used_[pools_[k]] >= capacity_[pools_[k]]) {
            full = pools_[k];
            break;
        }
    // Waiting again before it is parked: a release may queue it as soon as
    // the lock is let go, and the queue only runs waiting vertices.
    s->word.store(with_phase(s->word.load(std::memory_order_relaxed), Phase::waiting), std::memory_order_release);
    parked_[full].push_back(s);
    return false;
}

void Pools::release(const Slot *s, std::vector<Slot *> &ready) {
    const Snapshot::Index i = needing(s);
    if (i == Snapshot::npos) return;
    std::lock_guard<std::mutex> lk(mu_);
    if (!holding_[i]) return;
    holding_[i] = 0;
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k) --used_[pools_[k]];
    for (std::uint32_t k = offsets_[i]; k != offsets_[i + 1]; ++k) {
        const std::uint32_t p = pools_[k];
        auto &queue = parked_[p];
        while (!queue.empty() && used_[p] < capacity_[p]) {
            Slot *d = queue.front();
            queue.pop_front();
            const Snapshot::Index di = walk_.index_of(*d);
            const Word w = d->word.load(std::memory_order_acquire);
            // Already running with its slots, or removed or made to wait
            // again by an update since it parked: when it is ready again it
            // asks for itself.
            if (holding_[di] || phase_of(w) != Phase::waiting || count_of(w) != 0) continue;
            if (!fits(di)) {
                // Full elsewhere: it waits on that pool instead.
                for (std::uint32_t q = offsets_[di]; q != offsets_[di + 1]; ++q)
                    if (used_[pools_[q]] >= capacity_[pools_[q]]) {
                        parked_[pools_[q]].push_back(d);
                        break;
                    }
                continue;
            }
            take(di);
            ready.push_back(d);
        }
    }
}

}  // namespace dag::walk_detail
