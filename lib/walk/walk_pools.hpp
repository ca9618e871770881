// Named limits (pools) of a walk: a vertex that needs slots in some pools
// starts only once it holds one in each, all taken at once under one lock,
// so no vertex holds a slot while it waits for another and pools needed
// together cannot deadlock. A vertex that cannot have them all is parked
// off the ready queue, on a full pool it needs: ready vertices that need
// other pools, or none, run meanwhile. A vertex that finishes frees its
// slots and hands them, in the order they parked, to parked vertices that
// can now have all of theirs: they go back to the queue holding them.
//
// The executor asks only when the walk declares pools, once per vertex as it
// starts and once as it finishes; a walk without pools pays nothing. What
// each vertex needs sits in arrays by the walked graph's dense index (the
// pools of vertex i are pools[offsets[i]] to pools[offsets[i + 1] - 1]),
// read without the lock: only the walked graph's own vertices need pools.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "graph/snapshot.hpp"
#include "walk/walk_state.hpp"

namespace dag {
class Walk;
}

namespace dag::walk_detail {

class Pools {
public:
    // `offsets` (one per vertex of `walk`'s snapshot, plus one) and `pools`:
    // the pools (indices into `capacities`) each vertex needs, each pool
    // once, none of capacity 0 (checked by the walk).
    Pools(const Walk &walk, std::vector<std::size_t> capacities, std::vector<std::uint32_t> offsets,
          std::vector<std::uint32_t> pools);

    // `s`, claimed to run, may start: it needs no pool, or holds a slot in
    // each it needs (now, or handed to it while parked). Otherwise it is
    // parked, its phase back to waiting, and false is returned: a release
    // will queue it again.
    bool acquire(Slot *s);
    // `s` finished: frees its slots, if it holds any, and appends to `ready`
    // the parked vertices that now hold theirs.
    void release(const Slot *s, std::vector<Slot *> &ready);

private:
    // The dense index of `s` if it needs pools, npos otherwise.
    Snapshot::Index needing(const Slot *s) const noexcept;
    bool fits(Snapshot::Index i) const noexcept;
    void take(Snapshot::Index i) noexcept;

    const Walk &walk_;
    const std::vector<std::uint32_t> offsets_, pools_;
    std::mutex mu_;
    std::vector<std::size_t> capacity_, used_;
    std::vector<std::deque<Slot *>> parked_;  // per pool, oldest first
    std::vector<std::uint8_t> holding_;       // by dense index
};

}  // namespace dag::walk_detail
