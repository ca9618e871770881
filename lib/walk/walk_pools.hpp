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
// starts and once as it finishes; a walk without pools pays nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "walk/walk_state.hpp"

namespace dag::walk_detail {

class Pools {
public:
    // `needs`: the pools (indices into `capacities`) each slot needs, each
    // pool once, none of capacity 0 (checked by the walk).
    Pools(std::vector<std::size_t> capacities, std::unordered_map<const Slot *, std::vector<std::uint32_t>> needs);

    // `s`, claimed to run, may start: it needs no pool, or holds a slot in
    // each it needs (now, or handed to it while parked). Otherwise it is
    // parked, its phase back to waiting, and false is returned: a release
    // will queue it again.
    bool acquire(Slot *s);
    // `s` finished: frees its slots, if it holds any, and appends to `ready`
    // the parked vertices that now hold theirs.
    void release(const Slot *s, std::vector<Slot *> &ready);

private:
    struct Need {
        std::vector<std::uint32_t> pools;
        bool holding = false;
    };

    bool fits(const Need &n) const noexcept;
    void take(Need &n) noexcept;

    std::mutex mu_;
    std::vector<std::size_t> capacity_, used_;
    std::vector<std::deque<Slot *>> parked_;  // per pool, oldest first
    std::unordered_map<const Slot *, Need> needs_;  // keys fixed from construction on
};

}  // namespace dag::walk_detail
