// The vocabulary shared by the walker, its report and the C layer: vertex
// outcomes, options and observer events. Kept apart from the scheduler so the
// report and the C API need not see its internals.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

class Walk;

// What a callback says about its vertex.
// cancelled: only from a host completing a pending vertex of a cancelled walk.
enum class Outcome : std::uint8_t { ok, failed, pending, cancelled };



// Final state of a vertex in a report. Values match dag_vertex_status.
enum class VertexStatus : std::uint8_t { not_run = 0, ok = 1, failed = 2, upstream_failed = 3, cancelled = 4 };

// The final status a finished outcome (not pending) gives its vertex.
inline constexpr VertexStatus status_after(Outcome o) noexcept {
    return o == Outcome::ok ? VertexStatus::ok : o == Outcome::cancelled ? VertexStatus::cancelled : VertexStatus::failed;
}

enum class Event : std::uint8_t { started = 0, finished = 1, skipped = 2 };

enum class FailurePolicy : std::uint8_t { continue_walk, fail_fast };

// Which ready vertex starts first (walk_priority.hpp).
enum class Priority : std::uint8_t { none, critical_path, name };

// The callback as the core sees it. `walk` is the walk (or sub-walk) the
// vertex belongs to; `message` starts as nullptr and may be pointed at a
// failure message, copied as soon as the callback returns.
struct Visitor {
    Outcome (*call)(void *context, Walk &walk, VertexId vertex, const char **message) = nullptr;
    void *context = nullptr;
};

// One event as the observer gets it. The counts are those of the event's
// walk (or sub-walk), taken together with `sequence`, which numbers the
// events of a walk and its sub-walks 1, 2, 3...: ordered by sequence, a
// walk's `done` and `total` never go backwards, whatever order the calls
// arrive in from several threads.
struct EventCounts {
    std::size_t running = 0;
    std::size_t done = 0;
    std::size_t total = 0;
    std::uint64_t sequence = 0;
};

struct Observer {
    void (*call)(void *context, Walk &walk, Event event, VertexId vertex, VertexStatus status,
                 const EventCounts &counts) = nullptr;
    void *context = nullptr;
    // Called with true before an event is counted, and with false once its
    // call has returned: a host that waits for the observer's calls to end
    // (dag_walk_wait) counts this one from before its event could finish
    // the walk. Must not throw.
    void (*hold)(void *context, bool held) = nullptr;
};

// Called on each pool thread as it starts and before it ends, so a host can
// keep per-thread state (an interpreter's thread state) for the pool's life.
// With a start hook, the walk is created only once every thread has run it;
// the first exception one throws leaves Walk::create, and no vertex runs.
// An exception from an exit hook is dropped: the walk has ended by then.
// Only threads whose start hook returned run the exit hook.
struct ThreadHooks {
    void (*start)(void *data) = nullptr;
    void (*exit)(void *data) = nullptr;
    void *data = nullptr;
};

// A named limit: at most `capacity` vertices that need it run (or are
// pending) at once.
struct PoolSpec {
    std::string name;
    std::size_t capacity = 0;
};

// What the walked graph's vertices need: vertices[i] needs one slot in the
// pool named names[i] (none NULL). Borrowed until the walk is created, as the
// C API borrows its arrays: a walk whose every vertex needs a pool copies
// none of them.
struct PoolNeeds {
    const VertexId *vertices = nullptr;
    const char *const *names = nullptr;
    std::size_t count = 0;
};

// Retries of failed attempts (walk_retries.hpp): `retries` for every vertex,
// or the count given for it in `per_vertex`; the wait before a retry is
// `delay`, doubled for each retry before it when `doubling`, never above
// `max_delay` (0: no cap).
struct RetryPolicy {
    std::size_t retries = 0;
    std::chrono::nanoseconds delay{0};
    std::chrono::nanoseconds max_delay{0};
    bool doubling = false;
    std::vector<std::pair<VertexId, std::size_t>> per_vertex;
};

struct WalkOptions {
    std::size_t parallelism = 10;
    std::size_t threads = 10;
    bool reverse = false;
    FailurePolicy failure = FailurePolicy::continue_walk;
    // Up to two clock reads per vertex; a walk of near-empty callbacks may
    // skip them.
    bool timestamps = true;
    std::vector<VertexId> always_run;
    Observer observer;
    ThreadHooks thread_hooks;
    // Named limits (walk_pools.hpp). Only the walked graph's own vertices
    // need pools: those of sub-walks and those added by updates need none.
    std::vector<PoolSpec> pools;
    PoolNeeds pool_needs;
    RetryPolicy retry;
    Priority priority = Priority::none;
    // Per-vertex weights for Priority::critical_path; others weigh 1.
    std::vector<std::pair<VertexId, std::uint64_t>> weights;
    // Pull mode: no pool and no callback; the host takes ready vertices with
    // Walk::next_ready and finishes each with Walk::complete. `threads` and
    // `thread_hooks` are ignored.
    bool pull = false;
};

// A vertex handed out by a pull-mode walk: the tag of the walk (or sub-walk)
// it belongs to, read as it was handed out (the walk may be gone by the
// time the caller reads this: freed from its observer, it ends at once),
// and its id there.
struct ReadyVertex {
    void *walk_tag;
    VertexId id;
};

}  // namespace dag
