// What the walk handles are on the inside: thin wrappers over dag::Walk, its
// report and its update batch.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "callback_error.hpp"
#include "handles.hpp"
#include "walk/deadline_wait.hpp"
#include "walk/walk_report.hpp"
#include "walk/walk_update.hpp"
#include "walk/walker.hpp"

namespace dag::capi {

// Observer calls under way. The core may finish a walk while an observer
// call for an earlier event still runs on another thread; a wait that
// reports the walk first waits for those, so what they throw is in its
// status and no observer call outlives it.
class ObserverCalls {
public:
    void enter() noexcept { running_.fetch_add(1, std::memory_order_acq_rel); }
    void leave() noexcept {
        if (running_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        std::lock_guard<std::mutex> lk(mu_);
        cv_.notify_all();
    }
    void wait_idle() {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return idle(); });
    }
    // wait_idle() with a deadline: false if calls still run at `deadline`.
    bool wait_idle_until(std::chrono::steady_clock::time_point deadline) {
        std::unique_lock<std::mutex> lk(mu_);
        return dag::walk_detail::wait_until(cv_, lk, deadline, [&] { return idle(); });
    }

private:
    bool idle() const noexcept { return running_.load(std::memory_order_acquire) == 0; }

    std::atomic<std::size_t> running_{0};
    std::mutex mu_;
    std::condition_variable cv_;
};

}  // namespace dag::capi

struct dag_walker {
    // Root only, and first: released last, once the walk is gone.
    dag::capi::GraphHold graph_hold;
    dag_walk_fn callback = nullptr;
    void *user_data = nullptr;
    dag_walk_observer_fn observer = nullptr;
    void *observer_data = nullptr;
    dag_walk_event_fn event_observer = nullptr;
    void *event_observer_data = nullptr;
    const dag_graph *graph = nullptr;
    // The handle of the walk this one belongs to (itself for a root walk).
    dag_walker *root_handle = nullptr;
    // Root only: made by dag_walk(), which frees it as it returns; a
    // dag_walk_free() from its callbacks or observer only cancels it.
    bool owned_by_dag_walk = false;
    // A sub-walk's private copy of the graph handed to dag_walk_expand. A
    // traversal of it (dag_walk_graph()) holds it too: a walk freed from its
    // visitor leaves it to that traversal, which reads on.
    std::unique_ptr<dag_graph, dag::capi::ReleaseGraph> sub_graph;
    // Set once the core walk exists; a sub-walk's is published after
    // dag_walk_expand's core call returns.
    std::atomic<dag::Walk *> walk{nullptr};
    // Root only: the next handle in the reaper's queue (walk_reaper.hpp).
    dag_walker *next_freed = nullptr;
    // Root only: the sub-walk handles, alive as long as the root.
    std::mutex subs_mu;
    std::vector<std::unique_ptr<dag_walker>> subs;
    // Root only: the caller's pool-thread hooks, which run until the pool is
    // joined as `root` is destroyed.
    dag_thread_hook_fn thread_start = nullptr;
    dag_thread_hook_fn thread_exit = nullptr;
    void *thread_hook_data = nullptr;
    // Root only: what escaped a callback or the observer of the walk or its
    // sub-walks; the walk then ends with DAG_E_CALLBACK.
    dag::capi::FirstThrow first_throw;
    dag::capi::ObserverCalls observing;
    // Root only, and last: destroyed first, so running callbacks finish while
    // everything above is still alive.
    std::unique_ptr<dag::Walk> root;
};

struct dag_walk_report {
    dag::WalkReport report;
};

struct dag_walk_update {
    dag::WalkUpdate update;
};
