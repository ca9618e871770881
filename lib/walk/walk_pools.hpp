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
// each vertex needs is in its slot's word (walk_state.hpp, need_of): one
// pool there, several in arrays by dense index (the pools of vertex i are
// pools[offsets[i]] to pools[offsets[i + 1] - 1], made only when some
// vertex needs several), read without the lock; only the
// walked graph's own vertices need pools. Laying the needs out is one pass
// over them, writing the slots the walk has just initialised.
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
// Parked vertices are served oldest first, also across pools: the oldest
// vertex still parked (the head of `order_`) has a slot kept for it in each
// pool it needs. Nobody else, parked or newly ready, takes the last free
// slot of one of them under the lock while it waits (a lock-free start that
// read nothing parked just before the head counted itself may, once), and
// every slot freed in one is offered to it first; a vertex kept from a free
// slot parks on it. A vertex that needs several pools is otherwise
// overtaken for ever by vertices needing one of them, each taking the slot
// it waits for while another of its pools is full. That costs one idle slot
// a pool only while the head needs several pools and one of them is full.
// Only one vertex is kept for,
// so the keeping cannot deadlock: the slots it waits for are held by
// running (or handed, or a worker's kept) vertices' owners, which let go.
// When the head is served, or goes without being served (an update removed
// it or made it wait), the pools kept for it are looked at again before
// the lock is let go, for the vertices parked on them meanwhile.
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

#include "walk/walk_state.hpp"

namespace dag {
class Walk;
}

namespace dag::walk_detail {

class Pools {
public:
    // `offsets` (one per vertex of the walked graph, plus one; empty if no
    // vertex's word says several_needs) and `pools`: the pools (indices into
    // `capacities`) of each vertex that needs several, each pool once, none
    // of capacity 0 (checked by the walk). `vertex_count`: the walked graph's.
    Pools(const Walk &walk, std::size_t vertex_count, std::vector<std::size_t> capacities,
          std::vector<std::uint32_t> offsets, std::vector<std::uint32_t> pools);

    // `s`, claimed to run, may start: it needs no pool, or holds a slot in
    // each it needs (now, or handed to it while parked). Otherwise it is
    // parked, its phase back to waiting, and false is returned: a release
    // will queue it again. `kept` (null, `none` or a pool): the calling
    // worker's kept slot, taken over by `s` or given back; parked vertices
    // that a slot given back lets run are appended to `ready`.
    bool acquire(Slot *s, std::uint32_t *kept, std::vector<Slot *> &ready) {
        const std::uint32_t need = need_of(s->word.load(std::memory_order_relaxed));
        if (!kept || *kept == none) {
            if (need == 0) return true;
        } else if (need == *kept + 1 && parked_entries_.load() == 0) {
            // The common case inline: a chain's next link, a tree's first
            // child takes over the slot its worker kept (a kept pool always
            // fits the word, so `need` is not several_needs).
            std::atomic<std::uint8_t> &state = state_of(s);
            if (state.load(std::memory_order_acquire) == 0) {
                *kept = none;
                state.store(holding, std::memory_order_release);
                return true;
            }
        }
        return acquire_needed(s, kept, ready);
    }
    // `s` finished: frees its slots, if it holds any, and appends to `ready`
    // the parked vertices that now hold theirs. With `kept` (a worker's,
    // holding none), a single pool's slot may be kept there instead.
    void release(const Slot *s, std::vector<Slot *> &ready, std::uint32_t *kept = nullptr) {
        const std::uint32_t need = need_of(s->word.load(std::memory_order_relaxed));
        if (need == 0) return;
        if (kept && *kept == none && need != several_needs && parked_entries_.load() == 0) {
            // Only the vertex's own finisher changes a holding state; an
            // update releasing a vertex it held back or removed runs with
            // every worker out of its section (Executor::quiesce), after
            // any hand-out to it.
            std::atomic<std::uint8_t> &state = state_of(s);
            if (state.load(std::memory_order_relaxed) == holding) {
                state.store(0, std::memory_order_relaxed);
                *kept = need - 1;
            }
            return;
        }
        release_needed(s, ready);
    }
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

    // The dense index of `s`, one of the walked graph's own slots.
    std::size_t index_of(const Slot *s) const noexcept {
        return static_cast<std::size_t>(reinterpret_cast<const unsigned char *>(s) - slots_) >> slot_shift_;
    }
    std::atomic<std::uint8_t> &state_of(const Slot *s) const noexcept { return state_[index_of(s)]; }

    struct Range {
        const std::uint32_t *first, *last;
    };
    // The pools the vertex of `s` needs (its need_of `need`, not 0).
    Range needs(const Slot *s, std::uint32_t need) const noexcept;
    bool acquire_needed(Slot *s, std::uint32_t *kept, std::vector<Slot *> &ready);
    void release_needed(const Slot *s, std::vector<Slot *> &ready);
    // Takes a slot in each pool of `r`, all or none; returns the first pool
    // found full, or `none` once all are taken.
    std::uint32_t try_take(Range r) noexcept;
    bool take_one(std::uint32_t pool) noexcept;
    // Under the lock: hands pool `p`'s free slots to its parked vertices,
    // the head first, then those parked on `p` in turn.
    void hand_out(std::uint32_t p, std::vector<Slot *> &ready);
    // Under the lock: serves the vertices parked on `p`, in turn, while it
    // has room.
    void serve_parked(std::uint32_t p, std::vector<Slot *> &ready);
    // Under the lock: serves the head while it can have all its pools.
    void serve_head(std::vector<Slot *> &ready);
    // Under the lock: `h`, the head, holds its pools `r` now.
    void served_head(Slot *h, Range r, std::vector<Slot *> &ready);
    // Under the lock: serve_parked for each pool in revisit_, until none is
    // left (serving a head adds its pools).
    void serve_revisits(std::vector<Slot *> &ready);
    // Under the lock: the oldest vertex still parked (popping those that
    // are not any more), or null. When it is another than the one kept for
    // last, that one's pools go to revisit_.
    Slot *head();
    // Under the lock: the first pool of `r` whose last free slot is kept
    // for the head, unless `s` is the head; `none` if none is.
    std::uint32_t kept_for_head(const Slot *s, Range r);
    // A parked vertex's entry still counts: parked, ready, not made to wait
    // or removed by an update since.
    bool still_parked(const Slot *d) const noexcept;
    // A slot of `p` freed: hands it out if anything is parked.
    void freed(std::uint32_t p, std::vector<Slot *> &ready);

    // The walk's frozen slots (Walk::index_of), fixed while it runs.
    const unsigned char *const slots_;
    const unsigned slot_shift_;
    const std::vector<std::size_t> capacity_;
    // Pool p at index p: the range of a vertex that needs p alone.
    std::vector<std::uint32_t> identity_;
    const std::vector<std::uint32_t> offsets_, several_pools_;
    std::unique_ptr<std::atomic<std::size_t>[]> used_;
    std::unique_ptr<std::atomic<std::uint8_t>[]> state_;  // by dense index
    std::atomic<std::size_t> parked_entries_{0};          // in parked_, stale ones too
    std::mutex mu_;
    std::vector<std::deque<Slot *>> parked_;  // per pool, oldest first
    std::deque<Slot *> order_;                // every vertex parked, oldest first, stale ones too
    Slot *kept_head_ = nullptr;               // whose pools are kept; under the lock
    // Pools where a vertex served or a head gone may have left room for a
    // parked vertex, to serve before the lock is let go; under the lock.
    std::vector<std::uint32_t> revisit_;
};

}  // namespace dag::walk_detail
