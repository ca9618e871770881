#include "walk/walk_pools.hpp"

#include <utility>

namespace dag::walk_detail {

Pools::Pools(std::vector<std::size_t> capacities, std::unordered_map<const Slot *, std::vector<std::uint32_t>> needs)
    : capacity_(std::move(capacities)), used_(capacity_.size(), 0), parked_(capacity_.size()) {
    needs_.reserve(needs.size());
    for (auto &[slot, pools] : needs) needs_.emplace(slot, Need{std::move(pools), false});
}

bool Pools::fits(const Need &n) const noexcept {
    for (std::uint32_t p : n.pools)
        if (used_[p] >= capacity_[p]) return false;
    return true;
}

void Pools::take(Need &n) noexcept {
    for (std::uint32_t p : n.pools) ++used_[p];
    n.holding = true;
}

bool Pools::acquire(Slot *s) {
    // The map's keys never change: a vertex that needs no pool is answered
    // without the lock.
    auto it = needs_.find(s);
    if (it == needs_.end()) return true;
    Need &n = it->second;
    std::lock_guard<std::mutex> lk(mu_);
    if (n.holding) return true;
    if (fits(n)) {
        take(n);
        return true;
    }
    std::uint32_t full = n.pools.front();
    for (std::uint32_t p : n.pools)
        if (used_[p] >= capacity_[p]) {
            full = p;
            break;
        }
    // Waiting again before it is parked: a release may queue it as soon as
    // the lock is let go, and the queue only runs waiting vertices.
    s->word.store(with_phase(s->word.load(std::memory_order_relaxed), Phase::waiting), std::memory_order_release);
    parked_[full].push_back(s);
    return false;
}

void Pools::release(const Slot *s, std::vector<Slot *> &ready) {
    auto it = needs_.find(s);
    if (it == needs_.end()) return;
    Need &n = it->second;
    std::lock_guard<std::mutex> lk(mu_);
    if (!n.holding) return;
    n.holding = false;
    for (std::uint32_t p : n.pools) --used_[p];
    for (std::uint32_t p : n.pools) {
        auto &queue = parked_[p];
        while (!queue.empty() && used_[p] < capacity_[p]) {
            Slot *d = queue.front();
            queue.pop_front();
            Need &dn = needs_.find(d)->second;
            const Word w = d->word.load(std::memory_order_acquire);
            // Already running with its slots, or removed or made to wait
            // again by an update since it parked: when it is ready again it
            // asks for itself.
            if (dn.holding || phase_of(w) != Phase::waiting || count_of(w) != 0) continue;
            if (!fits(dn)) {
                // Full elsewhere: it waits on that pool instead.
                for (std::uint32_t q : dn.pools)
                    if (used_[q] >= capacity_[q]) {
                        parked_[q].push_back(d);
                        break;
                    }
                continue;
            }
            take(dn);
            ready.push_back(d);
        }
    }
}

}  // namespace dag::walk_detail
