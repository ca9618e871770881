// What the walk handles are on the inside: thin wrappers over dag::Walk, its
// report and its update batch.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "handles.hpp"
#include "walk/walk_report.hpp"
#include "walk/walk_update.hpp"
#include "walk/walker.hpp"

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
    // A sub-walk's private copy of the graph handed to dag_walk_expand.
    std::unique_ptr<dag_graph> sub_graph;
    // Set once the core walk exists; a sub-walk's is published after
    // dag_walk_expand's core call returns.
    std::atomic<dag::Walk *> walk{nullptr};
    // Root only: the next handle in the reaper's queue (walk_reaper.hpp).
    dag_walker *next_freed = nullptr;
    // Root only: the sub-walk handles, alive as long as the root.
    std::mutex subs_mu;
    std::vector<std::unique_ptr<dag_walker>> subs;
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
