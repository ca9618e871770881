// Short walks driven by the program's bytes: callbacks that succeed, fail,
// go pending (completed from the harness's own thread), cancel, apply
// updates (some refused) and expand, at times with pools, a priority and a
// retry; and pull-mode walks doing the same by hand. Walks stay small and use one or two threads so that executions stay
// quick; the report must account for every vertex.
#pragma once

#include "fuzz_check.hpp"
#include "program_input.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace fuzz {

struct WalkScript {
    std::array<uint8_t, 16> acts{};
    dag_graph *graph = nullptr;  // the walked graph, busy while the walk runs
    std::atomic<int> updates{0};
    std::atomic<int> expansions{0};
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::pair<dag_walker *, uint64_t>> pending;
    uint64_t events = 0;

    uint8_t act(uint64_t vertex) const { return acts[vertex % acts.size()]; }
};

inline dag_graph *small_sub_graph(uint8_t shape) {
    dag_graph *sub = nullptr;
    require(FUZZ_CALL(dag_new(&sub, &e)) == DAG_OK, "dag_new");
    uint64_t a = 0, b = 0;
    require(FUZZ_CALL(dag_add_vertex(sub, nullptr, nullptr, &a, &e)) == DAG_OK, "add");
    require(FUZZ_CALL(dag_add_vertex(sub, "s", nullptr, &b, &e)) == DAG_OK, "add");
    if (shape & 1) FUZZ_CALL(dag_connect(sub, a, b, &e));
    if (shape & 2) FUZZ_CALL(dag_connect(sub, b, a, &e));  // a cycle: refused
    return sub;
}

// A batch against the walk's graph: a new vertex depending on `vertex` (or,
// by the act's bits, one `vertex` depends on, refused once it has started),
// an edge removed, a vertex removed (refused once it has started).
inline void apply_update(dag_walker *walk, uint64_t vertex, uint8_t act) {
    dag_walk_update *u = nullptr;
    require(FUZZ_CALL(dag_walk_update_new(&u, &e)) == DAG_OK, "update_new");
    uint64_t p = 0;
    FUZZ_CALL(dag_walk_update_add_vertex(u, (act & 16) ? "new" : nullptr, nullptr, act & 32, &p, &e));
    if (act & 64)
        FUZZ_CALL(dag_walk_update_connect(u, vertex, p, &e));
    else
        FUZZ_CALL(dag_walk_update_connect(u, p, vertex, &e));
    const dag_graph *g = dag_walk_graph(walk);
    const auto ids = vertices(g);
    if ((act & 128) && !ids.empty()) FUZZ_CALL(dag_walk_update_remove_vertex(u, ids[act % ids.size()], &e));
    if (act & 8) FUZZ_CALL(dag_walk_update_disconnect(u, vertex, ids.empty() ? 0 : ids[0], &e));
    dag_ids *new_ids = nullptr;
    const dag_status st = FUZZ_CALL(dag_walk_apply(walk, u, &new_ids, &e));
    require((st == DAG_OK) == (new_ids != nullptr), "apply's new ids disagree with its status");
    dag_ids_free(new_ids);
    dag_walk_update_free(u);
}

inline dag_walk_result walk_callback(dag_walker *walk, uint64_t vertex, const char **message, void *ud) {
    auto &s = *static_cast<WalkScript *>(ud);
    const uint8_t act = s.act(vertex);
    switch (act % 8) {
    case 1:
        *message = "the script failed it";
        return DAG_WALK_FAILED;
    case 2: {
        std::lock_guard<std::mutex> lk(s.mu);
        s.pending.emplace_back(walk, vertex);
        s.cv.notify_one();
        return DAG_WALK_PENDING;
    }
    case 3:
        FUZZ_CALL(dag_walk_cancel(walk, &e));
        return DAG_WALK_OK;
    case 4:
        if (s.updates.fetch_add(1) < 4) apply_update(walk, vertex, act);
        return DAG_WALK_OK;
    case 5:
        if (s.expansions.fetch_add(1) < 3) {
            dag_graph *sub = small_sub_graph(act >> 3);
            FUZZ_CALL(dag_walk_expand(walk, vertex, sub, walk_callback, ud, &e));
            dag_free(sub);
        }
        return DAG_WALK_OK;
    case 6:
        FUZZ_CALL(dag_walk_fail(walk, vertex, "failed by dag_walk_fail", &e));
        return DAG_WALK_FAILED;
    case 7: {
        size_t done = 0, total = 0;
        require(FUZZ_CALL(dag_walk_progress(walk, &done, &total, &e)) == DAG_OK, "progress");
        require(done <= total, "progress: done above total");
        require(dag_has_vertex(dag_walk_graph(walk), vertex) == 1, "walked vertex not in its graph");
        uint64_t id = 0;
        require(FUZZ_CALL(dag_add_vertex(s.graph, nullptr, nullptr, &id, &e)) == DAG_E_BUSY,
                "graph changed under its walk");
        require(FUZZ_CALL(dag_walk_wait(walk, nullptr, &e)) == DAG_E_STATE, "a callback waited for its walk");
        return DAG_WALK_OK;
    }
    default:
        return DAG_WALK_OK;
    }
}

inline void wake_on_event(dag_walker *, const dag_walk_event_info *, void *ud) {
    auto &s = *static_cast<WalkScript *>(ud);
    std::lock_guard<std::mutex> lk(s.mu);
    ++s.events;
    s.cv.notify_one();
}

// The report accounts for every vertex once, and agrees with the walk's
// status.
inline void check_report(const dag_graph *g, dag_status walk_status, dag_walk_report *report) {
    if (report == nullptr) return;
    size_t sum = 0;
    for (int s = DAG_VERTEX_NOT_RUN; s <= DAG_VERTEX_CANCELLED; ++s)
        sum += dag_walk_report_count(report, static_cast<dag_vertex_status>(s));
    require(sum == dag_walk_report_size(report), "report's counts do not add up to its size");
    require(dag_walk_report_size(report) >= dag_vertex_count(g), "report misses vertices");
    for (uint64_t v : vertices(g)) {
        dag_vertex_status st = DAG_VERTEX_NOT_RUN;
        require(FUZZ_CALL(dag_walk_report_vertex(report, v, &st, nullptr, nullptr, nullptr, &e)) == DAG_OK,
                "a vertex of the walked graph is not in the report");
    }
    const bool any_failed = dag_walk_report_count(report, DAG_VERTEX_FAILED) > 0;
    if (walk_status == DAG_OK)
        require(!any_failed && dag_walk_report_count(report, DAG_VERTEX_UPSTREAM_FAILED) == 0 &&
                    dag_walk_report_count(report, DAG_VERTEX_CANCELLED) == 0,
                "walk ok with a vertex that was not");
    dag_walk_report_free(report);
}

// A walk's options and the arrays they borrow, alive until the walk starts.
struct WalkSetup {
    dag_walk_options o = DAG_WALK_OPTIONS_INIT;
    const char *pool_names[2] = {"a", "b"};
    size_t capacities[2] = {1, 1};
    std::vector<uint64_t> need_vertices;
    std::vector<const char *> need_names;
};

// By bit 6 of the options byte, the scheduling options too: two pools (one
// of capacity 0 at times, refused if a vertex needs it) that some of the
// graph's vertices need (once an unknown id, refused), a priority, a retry.
inline void schedule_options(const dag_graph *g, ProgramInput &in, WalkSetup &w) {
    const uint8_t b = in.byte();
    w.capacities[0] = b % 3;
    w.capacities[1] = 1 + (b >> 2) % 2;
    w.o.priority = static_cast<dag_walk_priority>((b >> 3) % 3);
    w.o.retries = (b >> 5) & 1;
    const auto ids = vertices(g);
    for (size_t k = in.below(8); k-- > 0 && !ids.empty();) {
        w.need_vertices.push_back(ids[in.below(ids.size())]);
        w.need_names.push_back(w.pool_names[in.byte() & 1]);
    }
    if ((b >> 6) & 1) {
        w.need_vertices.push_back(~uint64_t{0} >> 1);
        w.need_names.push_back(w.pool_names[1]);
    }
    w.o.pool_names = w.pool_names;
    w.o.pool_capacities = w.capacities;
    w.o.pool_count = 2;
    w.o.pool_need_vertices = w.need_vertices.data();
    w.o.pool_need_names = w.need_names.data();
    w.o.pool_need_count = w.need_vertices.size();
}

inline void walk_options(const dag_graph *g, ProgramInput &in, WalkSetup &w) {
    dag_walk_options &o = w.o;
    const uint8_t b = in.byte();
    o.parallelism = 1 + b % 3;
    o.threads = 1 + (b >> 2) % 2;
    o.reverse = (b >> 3) & 1;
    o.failure_policy = ((b >> 4) & 1) ? DAG_FAILURE_FAIL_FAST : DAG_FAILURE_CONTINUE;
    o.timestamps = (b >> 5) & 1;
    if (((b >> 6) & 1) && g != nullptr) schedule_options(g, in, w);
}

// A callback walk; this thread completes the pending vertices and, by the
// script, cancels or updates the walk from outside.
inline void run_callback_walk(dag_graph *g, ProgramInput &in, const std::vector<uint64_t> &seen) {
    WalkScript s;
    s.graph = g;
    for (auto &a : s.acts) a = in.byte();
    WalkSetup setup;
    walk_options(g, in, setup);
    dag_walk_options &o = setup.o;
    const uint64_t always = in.id(seen);
    if (in.chance(4)) {
        o.always_run = &always;
        o.always_run_count = 1;
    }
    o.event_observer = wake_on_event;
    o.event_observer_data = &s;
    const uint8_t outside = in.byte();
    dag_walker *w = nullptr;
    if (FUZZ_CALL(dag_walk_start(g, walk_callback, &s, &o, &w, &e)) != DAG_OK) return;
    if (outside & 1) apply_update(w, in.id(seen), in.byte());
    if (outside & 2) FUZZ_CALL(dag_walk_cancel(w, &e));
    uint64_t seen_events = 0;
    dag_walk_report *report = nullptr;
    dag_status st = DAG_E_TIMEOUT;
    while (st == DAG_E_TIMEOUT) {
        std::deque<std::pair<dag_walker *, uint64_t>> todo;
        {
            std::unique_lock<std::mutex> lk(s.mu);
            // An event wakes this thread; the walk's end may come just after
            // the last one, hence the short limit.
            s.cv.wait_for(lk, std::chrono::milliseconds(1),
                          [&] { return !s.pending.empty() || s.events != seen_events; });
            todo.swap(s.pending);
            seen_events = s.events;
        }
        for (const auto &p : todo) {
            const bool ok = (s.act(p.second) >> 3) & 1;
            FUZZ_CALL(dag_walk_complete(p.first, p.second, ok ? DAG_WALK_OK : DAG_WALK_FAILED, "pending failed", &e));
        }
        dag_error *err = nullptr;
        st = dag_walk_wait_for(w, 0, &report, &err);
        checked(st, err);
    }
    check_report(g, st, report);
    dag_walk_free(w);
}

// A pull walk: this thread takes the ready vertices and finishes each as
// the script says. Nothing is held between calls, so a wait that times out
// is a stalled walk.
inline void run_pull_walk(dag_graph *g, ProgramInput &in) {
    std::array<uint8_t, 16> acts{};
    for (auto &a : acts) a = in.byte();
    WalkSetup setup;
    walk_options(g, in, setup);
    const dag_walk_options &o = setup.o;
    dag_walker *w = nullptr;
    if (FUZZ_CALL(dag_walk_begin(g, &o, &w, &e)) != DAG_OK) return;
    int updates = 0, expansions = 0;
    for (;;) {
        uint64_t ready[4];
        dag_walker *walks[4];
        size_t n = 0;
        const dag_status st = FUZZ_CALL(dag_walk_next_ready(w, ready, walks, 4, 10000, &n, &e));
        require(st == DAG_OK, "pull walk stalled", dag_status_string(st));
        if (n == 0) break;
        for (size_t i = 0; i < n; ++i) {
            const uint8_t act = acts[ready[i] % acts.size()];
            switch (act % 6) {
            case 1:
                FUZZ_CALL(dag_walk_complete(walks[i], ready[i], DAG_WALK_FAILED, "pulled and failed", &e));
                continue;
            case 2:
                if (expansions++ < 3) {
                    dag_graph *sub = small_sub_graph(act >> 3);
                    const dag_status x = FUZZ_CALL(dag_walk_expand(walks[i], ready[i], sub, nullptr, nullptr, &e));
                    dag_free(sub);
                    if (x == DAG_OK) continue;
                }
                break;
            case 3:
                FUZZ_CALL(dag_walk_cancel(walks[i], &e));
                break;
            case 4:
                if (updates++ < 4) apply_update(walks[i], ready[i], act);
                break;
            case 5:
                FUZZ_CALL(dag_walk_fail(walks[i], ready[i], "pulled and failed", &e));
                continue;
            default:
                break;
            }
            FUZZ_CALL(dag_walk_complete(walks[i], ready[i], DAG_WALK_OK, nullptr, &e));
        }
    }
    dag_walk_report *report = nullptr;
    dag_error *err = nullptr;
    const dag_status st = dag_walk_wait(w, &report, &err);
    checked(st, err);
    check_report(g, st, report);
    dag_walk_free(w);
}

}  // namespace fuzz
