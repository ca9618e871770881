// Per-vertex scheduling state shared by the scheduler (walker.cpp) and the
// update path (walk_update.cpp).
//
// Each vertex has one 64-bit atomic word: the number of dependencies it still
// waits for (low 32 bits), its phase, its final status and a few flags, so
// one store or one read-modify-write moves a vertex from one state to the
// next. A worker that is a word's only writer at that moment (the vertex it
// runs, a waiter with one dependency) uses plain stores; waiters several
// dependencies may release at once take a CAS, which also claims the last
// one for running; updates run while the walk is quiesced and race with
// neither (walk_executor.hpp, "Sections").
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "walk/walk_types.hpp"

namespace dag::walk_detail {

using Word = std::uint64_t;

inline constexpr Word count_mask = 0xffffffffu;
inline constexpr int phase_shift = 32;
inline constexpr Word phase_mask = Word{0xf} << phase_shift;

enum class Phase : Word {
    waiting = 0,          // dependencies outstanding, or queued to run
    running = 1,          // callback in progress
    pending = 2,          // callback returned pending; dag_walk_complete finishes it
    completed_early = 3,  // completed while its callback still runs
    expanded = 4,         // finishes when its sub-walk does
    removed = 5,          // removed by an update before it started
    finishing = 6,        // was pending; a completion or a cancel is finishing it
    retrying = 7,         // an attempt failed; waits for its back-off to pass
    done = 0xf,           // all bits, so fetch_or can publish it from any phase
};

// A dependency did not finish ok.
inline constexpr Word dep_failed = Word{1} << 40;
// Its waiter list was changed by an update; read the overlay under the lock.
inline constexpr Word overlay = Word{1} << 41;
// Runs even when a dependency failed.
inline constexpr Word always = Word{1} << 42;
// Waited for exactly one vertex when the walk began (set by the walk, for a
// frozen vertex): until an update changes counts, its one dependency is its
// only releaser.
inline constexpr Word sole = Word{1} << 43;
// The final status (VertexStatus), published together with the done phase.
inline constexpr int status_shift = 44;
inline constexpr Word status_mask = Word{7} << status_shift;

inline constexpr Phase phase_of(Word w) noexcept { return static_cast<Phase>((w & phase_mask) >> phase_shift); }
inline constexpr Word with_phase(Word w, Phase p) noexcept {
    return (w & ~phase_mask) | (static_cast<Word>(p) << phase_shift);
}
inline constexpr std::uint32_t count_of(Word w) noexcept { return static_cast<std::uint32_t>(w & count_mask); }
inline constexpr VertexStatus status_of(Word w) noexcept {
    return static_cast<VertexStatus>((w & status_mask) >> status_shift);
}
inline constexpr Word status_bits(VertexStatus s) noexcept { return static_cast<Word>(s) << status_shift; }
// Its callback was called: published with the done phase, for the report
// (a cancelled vertex may have been pending, or never started), and set
// earlier on a vertex waiting to be tried again (retrying, then waiting).
inline constexpr Word ran_bit = Word{1} << 47;
// The pools a frozen vertex needs (walk_pools.hpp), set before the walk
// launches and never changed while it runs: 0 for none, p + 1 for pool p
// alone, all ones for several (or a pool index too large for the field),
// found in the pools' table. In the word the worker reads anyway, so a
// vertex needing no pool, or one, costs no other memory access to find out.
inline constexpr int need_shift = 48;
inline constexpr std::uint32_t several_needs = 0xffff;
inline constexpr std::uint32_t need_of(Word w) noexcept { return static_cast<std::uint32_t>(w >> need_shift); }

// 16 bytes, since a walk initialises one per vertex and the scheduler sweeps
// them: a frozen vertex's id and dense index follow from the slot's place in
// its walk's array (Walk::index_of, Walk::id_of), its status lives in the
// word.
struct Slot {
    std::atomic<Word> word{0};
    Walk *walk = nullptr;
};

// Report-only fields live apart from the slots; times are allocated only for
// a walk that records them, messages only for the vertices that have one.
struct Times {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
};

// A vertex added by an update: outside the frozen arrays, so its times come
// with it.
struct ExtraSlot : Slot {
    VertexId id = no_vertex;
    Times times;
};

// The slot and times arrays: allocated by the walker (walker.cpp), released
// without destructors, which their trivially destructible elements do not
// need.
struct BulkFree {
    void operator()(void *p) const noexcept { std::free(p); }
};
template <class T>
using BulkArray = std::unique_ptr<T[], BulkFree>;

// Waiter changes made by updates to a vertex that had not finished yet: its
// waiters are its frozen ones less `removed`, plus `added`. A waiter is never
// in both, so an edge disconnected and connected again (or the other way
// round) by later updates counts once, or not at all.
struct Overlay {
    std::vector<Slot *> added;
    std::vector<Slot *> removed;

    // Both only erase or append; with room reserved neither throws.
    void add(Slot *waiter) {
        if (!take(removed, waiter)) added.push_back(waiter);
    }
    void drop(Slot *waiter) {
        if (!take(added, waiter)) removed.push_back(waiter);
    }
    bool dropped(const Slot *waiter) const noexcept {
        return std::find(removed.begin(), removed.end(), waiter) != removed.end();
    }

private:
    static bool take(std::vector<Slot *> &v, Slot *waiter) noexcept {
        auto it = std::find(v.begin(), v.end(), waiter);
        if (it == v.end()) return false;
        *it = v.back();
        v.pop_back();
        return true;
    }
};

}  // namespace dag::walk_detail
