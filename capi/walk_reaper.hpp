// Walks freed from their own callbacks or observers (dag_walk_free), deleted
// once they have finished on a thread of the library's own: a pool thread
// cannot join its own pool.
//
// That thread must not outlive the library's code: a plugin host may
// dlclose() libdag right after freeing a walk whose last callbacks still
// run. The library therefore waits, when it is unloaded or the process
// exits, until every walk promised to the reaper has been deleted.
#pragma once

struct dag_walker;

namespace dag::capi {

// Counts a walk the reaper will delete: call before arranging for hand_over.
// False when no reaper thread could be started, or the library is being
// unloaded: the walk is then leaked rather than deleted on a pool thread or
// after the library's code is gone.
bool promise_walk() noexcept;
// Queues a finished walk's root handle for deletion. Does not allocate or
// wait: it runs on the thread that finished the walk, often a pool thread.
void hand_over(dag_walker *walk) noexcept;

}  // namespace dag::capi
