// Named limits (pools) of a walk: a vertex that needs slots in some pools
// starts only once it holds one in each, all taken at once, so no vertex
// holds a slot while it waits for another and pools needed together cannot
// deadlock. A vertex that cannot have them all is parked off the ready
// queue, on a full pool it needs: ready vertices that need other pools, or
// none, run meanwhile. A vertex that finishes frees its slots and hands
// them, in the order they parked, to parked vertices that can now have all
// of theirs: they go back to the queue holding them.
//
// The executor asks only when the walk declares pools, once per vertex as it
// starts and once as it finishes; a walk without pools pays nothing. What
// each vertex needs sits in arrays by the walked graph's dense index (the
// pools of vertex i are pools[offsets[i]] to pools[offsets[i + 1] - 1]),
// read without the lock: only the walked graph's own vertices need pools.
//
// Slot counts are atomics. While nothing is parked, a vertex needing one
// pool takes and frees its slot without the lock (the common case: a
// provider's or a resource type's limit): two atomic operations a vertex
// instead of two lock round trips. Everything else (several pools, a full
// pool, anything parked) goes under the lock. No wake-up is lost between a
// lock-free release and a vertex parking: the parker counts itself parked
// before it tries the pools a last time, the releaser frees its slot before
// it reads that count (both sequentially consistent), so either the parker
// sees the slot or the releaser sees the parker and hands out under the
// lock.
//
// A worker that finishes a vertex needing one pool, with nothing parked,
// keeps the slot for the next vertex it starts (`kept`: a chain's next link,
// a tree's first child): if that one needs the same pool it takes the slot
// with no atomic operation at all. Anything else the worker does next gives
// the slot back first: starting a vertex that needs another pool or none
// (what that hands out is queued before the vertex's callback runs), or
// leaving the queue's work, after counting what it finished, which may end a
// sub-walk and free its parent's slot (Executor::leave_queue_work). No slot
// is kept while an observer runs. So a kept slot is never held while user
// code runs that does not use it, and a vertex that parks meanwhile is
// handed it at once then (it counted itself parked).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
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
    // will queue it again. `kept` (null, `none` or a pool): the calling
    // worker's kept slot, taken over by `s` or given back; parked vertices
    // that a slot given back lets run are appended to `ready`.
    bool acquire(Slot *s, std::uint32_t *kept, std::vector<Slot *> &ready);
    // `s` finished: frees its slots, if it holds any, and appends to `ready`
    // the parked vertices that now hold theirs. With `kept` (a worker's,
    // holding none), a single pool's slot may be kept there instead.
    void release(const Slot *s, std::vector<Slot *> &ready, std::uint32_t *kept = nullptr);
    // Frees the slot in `kept`, if any, as release() would.
    void give_back(std::uint32_t &kept, std::vector<Slot *> &ready);

    static constexpr std::uint32_t none = ~std::uint32_t{0};

private:
    // A vertex's state_ bits. Holding and parked never go together. Parked
    // is set and cleared under the lock only, and a vertex with it set takes
    // the locked path, so a hand-out and a lock-free take never race for one
    // vertex. A parked vertex may have left stale entries in parked_ (an
    // update made it wait and released it again): an entry counts only while
    // its vertex is parked.
    static constexpr std::uint8_t holding = 1, parked = 2;

    // The dense index of `s` if it needs pools, npos otherwise.
    Snapshot::Index needing(const Slot *s) const noexcept;
    // Takes a slot in each pool vertex `i` needs, all or none; returns the
    // first pool found full, or `none` once all are taken.
    std::uint32_t try_take(Snapshot::Index i) noexcept;
    bool take_one(std::uint32_t pool) noexcept;
    // Under the lock: hands pool `p`'s free slots to its parked vertices.
    void hand_out(std::uint32_t p, std::vector<Slot *> &ready);
    // A slot of `p` freed: hands it out if anything is parked.
    void freed(std::uint32_t p, std::vector<Slot *> &ready);

    const Walk &walk_;
    const std::vector<std::uint32_t> offsets_, pools_;
    const std::vector<std::size_t> capacity_;
    std::unique_ptr<std::atomic<std::size_t>[]> used_;
    std::unique_ptr<std::atomic<std::uint8_t>[]> state_;  // by dense index
    std::atomic<std::size_t> parked_entries_{0};          // in parked_, stale ones too
    std::mutex mu_;
    std::vector<std::deque<Slot *>> parked_;  // per pool, oldest first
};

}  // namespace dag::walk_detail
