// C entry points for walks: options, blocking and non-blocking walks,
// completion, expansion, updates and reports.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "callback_frame.hpp"
#include "callback_error.hpp"
#include "guard.hpp"
#include "sized_options.hpp"
#include "walk_handles.hpp"
#include "walk_reaper.hpp"

using dag::capi::ApiError;
using dag::capi::GraphRead;
using dag::capi::guard;
using dag::capi::raw;
using dag::capi::require;

namespace {

// The failure message of a vertex whose callback threw, read by the core as
// soon as call_callback returns, on this thread.
thread_local std::string thrown_text;

// Inside call_callback's catch block: the vertex fails with what was thrown,
// and the walk will end with DAG_E_CALLBACK.
const char *callback_threw(dag_walker *h, dag::VertexId vertex) noexcept {
    dag_walker *root = h->root_handle;
    try {
        thrown_text = dag::capi::thrown_message("the callback");
        std::string name;
        {
            const GraphRead reading(h->graph, "graph");
            name = h->graph->graph.display_name(vertex);
        }
        root->first_throw.keep((h == root ? "vertex " : "sub-walk vertex ") + name + ": " + thrown_text);
        return thrown_text.c_str();
    } catch (...) {  // std::bad_alloc
        root->first_throw.keep_unexplained();
        return "the callback threw (out of memory for saying more)";
    }
}

dag::Outcome call_callback(void *context, dag::Walk &, dag::VertexId vertex, const char **message) noexcept {
    auto *h = static_cast<dag_walker *>(context);
    dag::capi::CallbackFrame frame(h, vertex);
    dag_walk_result result;
    try {
        result = h->callback(h, vertex, message, h->user_data);
    } catch (...) {
        *message = callback_threw(h, vertex);
        return dag::Outcome::failed;
    }
    // dag_walk_fail() from inside completed the vertex early, with its
    // message: answering pending lets that completion finish it.
    if (frame.failed()) return dag::Outcome::pending;
    switch (raw(result)) {
        case DAG_WALK_OK: return dag::Outcome::ok;
        case DAG_WALK_FAILED: return dag::Outcome::failed;
        case DAG_WALK_PENDING: return dag::Outcome::pending;
        case DAG_WALK_CANCELLED:
            *message = "a callback cannot return DAG_WALK_CANCELLED (dag_walk_complete() takes it)";
            return dag::Outcome::failed;
        default: break;
    }
    *message = "the callback returned a value that is not a dag_walk_result";
    return dag::Outcome::failed;
}

void call_observer(void *context, dag::Walk &walk, dag::Event event, dag::VertexId vertex, dag::VertexStatus status,
                   const dag::EventCounts &counts) {
    auto *root = static_cast<dag_walker *>(context);
    auto *handle = static_cast<dag_walker *>(walk.tag());
    const auto ev = static_cast<dag_walk_event>(event);
    const auto st = static_cast<dag_vertex_status>(status);
    try {
        if (root->observer)
            root->observer(handle, ev, vertex, st, counts.running, counts.done, counts.total, root->observer_data);
        if (root->event_observer) {
            const dag_walk_event_info info{sizeof info, ev,           vertex,         st, counts.running,
                                           counts.done, counts.total, counts.sequence};
            root->event_observer(handle, &info, root->event_observer_data);
        }
    } catch (...) {
        // The event has happened whatever the observer made of it: the walk
        // goes on, and ends with DAG_E_CALLBACK.
        try {
            root->first_throw.keep(dag::capi::thrown_message("the observer"));
        } catch (...) {  // std::bad_alloc
            root->first_throw.keep_unexplained();
        }
    }
}

// Around each event, from before it is counted (the executor's hold): a
// wait that returns once the walk has finished then also waits for an
// observer call whose event came just before the end.
void hold_observer(void *context, bool held) {
    auto *root = static_cast<dag_walker *>(context);
    if (held)
        root->observing.enter();
    else
        root->observing.leave();
}

// The pool-thread hooks, called with the root handle. What thread_start
// throws fails the walk's start (the core rethrows it); what thread_exit
// throws the core drops, the walk having been reported.
void call_thread_start(void *context) {
    auto *root = static_cast<dag_walker *>(context);
    if (root->thread_start) dag::capi::call_user("thread_start", [&] { root->thread_start(root->thread_hook_data); });
}

void call_thread_exit(void *context) {
    auto *root = static_cast<dag_walker *>(context);
    if (root->thread_exit) root->thread_exit(root->thread_hook_data);
}

// The 1.0 layout ended with observer_data; every later field is optional.
constexpr std::size_t walk_options_1_0 = offsetof(dag_walk_options, observer_data) + sizeof(void *);

// The header's initialiser is the one statement of the defaults.
dag_walk_options walk_defaults() { return DAG_WALK_OPTIONS_INIT; }

// The caller's options at this build's layout (defaults for NULL).
dag_walk_options caller_options(const dag_walk_options *given) {
    return given ? dag::capi::read_sized(given, walk_options_1_0, walk_defaults(), "opts->size",
                                         {offsetof(dag_walk_options, retry_doubling) + sizeof(int),
                                          offsetof(dag_walk_options, priority) + sizeof(dag_walk_priority)})
                 : walk_defaults();
}

dag::WalkOptions read_options(const dag_walk_options *o) {
    dag::WalkOptions r;
    // The pool starts its threads up front, so a count no host could start
    // would fail deep inside it; parallelism only bounds a counter and needs
    // no such limit.
    if (o->threads > DAG_WALK_MAX_THREADS)
        throw ApiError{DAG_E_INVALID_ARGUMENT, "opts->threads is " + std::to_string(o->threads) +
                                                   ", more than DAG_WALK_MAX_THREADS (" +
                                                   std::to_string(DAG_WALK_MAX_THREADS) + ")"};
    r.parallelism = o->parallelism;
    // 0: one thread per slot, so `parallelism` callbacks can run at once.
    r.threads = o->threads ? o->threads
                           : std::min<std::size_t>(std::max<std::size_t>(o->parallelism, 1), DAG_WALK_MAX_THREADS);
    r.reverse = o->reverse != 0;
    const auto policy = raw(o->failure_policy);
    if (policy != DAG_FAILURE_CONTINUE && policy != DAG_FAILURE_FAIL_FAST)
        throw ApiError{DAG_E_INVALID_ARGUMENT, "opts->failure_policy is not a dag_failure_policy"};
    r.failure = policy == DAG_FAILURE_FAIL_FAST ? dag::FailurePolicy::fail_fast : dag::FailurePolicy::continue_walk;
    r.timestamps = o->timestamps != 0;
    if (o->always_run_count) {
        require(o->always_run, "opts->always_run");
        dag::capi::require_id_count(o->always_run_count, "opts->always_run_count");
        r.always_run.assign(o->always_run, o->always_run + o->always_run_count);
    }
    if (o->pool_count) {
        require(o->pool_names, "opts->pool_names");
        require(o->pool_capacities, "opts->pool_capacities");
        dag::capi::require_id_count(o->pool_count, "opts->pool_count");
        r.pools.reserve(o->pool_count);
        for (std::size_t i = 0; i < o->pool_count; ++i) {
            if (!o->pool_names[i]) require(nullptr, ("opts->pool_names[" + std::to_string(i) + "]").c_str());
            r.pools.push_back(dag::PoolSpec{o->pool_names[i], o->pool_capacities[i]});
        }
    }
    if (o->pool_need_count) {
        require(o->pool_need_vertices, "opts->pool_need_vertices");
        require(o->pool_need_names, "opts->pool_need_names");
        dag::capi::require_id_count(o->pool_need_count, "opts->pool_need_count");
        // Often an entry a vertex: nothing is formatted or copied per need
        // unless it is refused.
        for (std::size_t i = 0; i < o->pool_need_count; ++i)
            if (!o->pool_need_names[i])
                require(nullptr, ("opts->pool_need_names[" + std::to_string(i) + "]").c_str());
        r.pool_needs = {o->pool_need_vertices, o->pool_need_names, o->pool_need_count};
    }
    r.retry.retries = o->retries;
    // Milliseconds past what nanoseconds hold would wrap: capped at a year.
    constexpr std::uint64_t year_ms = 365ull * 24 * 3600 * 1000;
    r.retry.delay = std::chrono::milliseconds(std::min(o->retry_delay_ms, year_ms));
    r.retry.max_delay = std::chrono::milliseconds(std::min(o->retry_max_delay_ms, year_ms));
    r.retry.doubling = o->retry_doubling != 0;
    if (o->retry_vertex_count) {
        require(o->retry_vertices, "opts->retry_vertices");
        require(o->retry_counts, "opts->retry_counts");
        dag::capi::require_id_count(o->retry_vertex_count, "opts->retry_vertex_count");
        for (std::size_t i = 0; i < o->retry_vertex_count; ++i)
            r.retry.per_vertex.emplace_back(o->retry_vertices[i], o->retry_counts[i]);
    }
    switch (raw(o->priority)) {
    case DAG_PRIORITY_NONE: r.priority = dag::Priority::none; break;
    case DAG_PRIORITY_CRITICAL_PATH: r.priority = dag::Priority::critical_path; break;
    case DAG_PRIORITY_NAME: r.priority = dag::Priority::name; break;
    default: throw ApiError{DAG_E_INVALID_ARGUMENT, "opts->priority is not a dag_walk_priority"};
    }
    if (o->weight_count && r.priority == dag::Priority::critical_path) {
        require(o->weight_vertices, "opts->weight_vertices");
        require(o->weights, "opts->weights");
        dag::capi::require_id_count(o->weight_count, "opts->weight_count");
        for (std::size_t i = 0; i < o->weight_count; ++i) r.weights.emplace_back(o->weight_vertices[i], o->weights[i]);
    }
    return r;
}

// A callback walk, or a pull walk without one (dag_walk_begin).
// `times_unseen`: nobody can read the walk's timestamps (dag_walk without a
// report): they are not taken, which saves two clock reads and 16 bytes a
// vertex.
std::unique_ptr<dag_walker> start(dag_graph *g, dag_walk_fn callback, void *user_data, const dag_walk_options *opts,
                                  bool pull = false, bool times_unseen = false, bool owned_by_dag_walk = false) {
    require(g, "g");
    if (!callback && !pull) throw ApiError{DAG_E_NULL_ARGUMENT, "argument 'callback' is NULL"};
    const dag_walk_options given = caller_options(opts);
    dag::WalkOptions options = read_options(&given);
    options.pull = pull;
    if (times_unseen) options.timestamps = false;
    auto h = std::make_unique<dag_walker>();
    h->graph_hold.take(g);
    h->callback = callback;
    h->user_data = user_data;
    h->graph = g;
    h->root_handle = h.get();
    // Before the walk runs: its callbacks read it (dag_walk_free).
    h->owned_by_dag_walk = owned_by_dag_walk;
    if (given.observer || given.event_observer) {
        h->observer = given.observer;
        h->observer_data = given.observer_data;
        h->event_observer = given.event_observer;
        h->event_observer_data = given.event_observer_data;
        options.observer = dag::Observer{call_observer, h.get(), hold_observer};
    }
    if (given.thread_start || given.thread_exit) {
        h->thread_start = given.thread_start;
        h->thread_exit = given.thread_exit;
        h->thread_hook_data = given.thread_hook_data;
        options.thread_hooks = dag::ThreadHooks{given.thread_start ? call_thread_start : nullptr,
                                                given.thread_exit ? call_thread_exit : nullptr, h.get()};
    }
    h->root = dag::Walk::create(g->graph, dag::Visitor{call_callback, h.get()}, options, h.get());
    h->walk.store(h->root.get(), std::memory_order_release);
    h->root->run();
    return h;
}

dag::Walk &core(dag_walker *walk) {
    require(walk, "walk");
    dag::Walk *w = walk->walk.load(std::memory_order_acquire);
    if (!w) throw ApiError{DAG_E_STATE, "the sub-walk has not been handed over yet"};
    return *w;
}

// The totals alone lump together the two kinds of cancelled vertex: one
// whose callback ran (pending, or expanded into a sub-walk that did not
// finish) and one cancelled before it started. Where fail fast stopped the
// walk before the cancel, what never started is not-run instead.
std::string cancelled_message(const dag::WalkOutcome &o) {
    const std::size_t never_ran = o.never_ran, ran = o.cancelled_after_running;
    std::string m = "the walk was cancelled; " + std::to_string(never_ran) +
                    (never_ran == 1 ? " vertex never ran" : " vertices never ran");
    if (ran > 0)
        m += " and " + std::to_string(ran) +
             (ran == 1 ? " was cancelled after its callback ran" : " were cancelled after their callbacks ran");
    return m;
}

// A time limit in milliseconds as a deadline; none for a negative one.
std::optional<std::chrono::steady_clock::time_point> deadline_after(int timeout_ms) {
    if (timeout_ms < 0) return std::nullopt;
    return std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
}

// Hands out the report of a finished walk and turns its outcome into the
// walk's status: an exception that escaped a callback or the observer first,
// as a fault of the program rather than of the work.
void conclude(dag::Walk &w, dag_walker &root, dag_walk_report **out_report,
              std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt) {
    if (!deadline)
        root.observing.wait_idle();
    else if (!root.observing.wait_idle_until(*deadline))
        throw ApiError{DAG_E_TIMEOUT, "the walk has finished, but its observer is still running"};
    // A report costs a copy of every vertex's outcome: built only when asked.
    if (out_report) {
        auto report = std::make_unique<dag_walk_report>();
        report->report = w.report();
        *out_report = report.release();
    }
    root.first_throw.rethrow();
    const dag::WalkOutcome o = w.outcome();
    if (o.cancelled) throw ApiError{DAG_E_CANCELLED, cancelled_message(o)};
    if (o.first_error != dag::no_vertex) throw ApiError{DAG_E_WALK_FAILED, o.first_error_message};
}

void finish(dag::Walk &w, dag_walker &root, dag_walk_report **out_report) {
    w.wait();
    conclude(w, root, out_report);
}

}  // namespace

extern "C" {

dag_status dag_walk_options_init(dag_walk_options *opts, size_t size, dag_error **err) {
    return guard(__func__, err, [&] {
        require(opts, "opts");
        dag::capi::init_sized(opts, size, walk_options_1_0, walk_defaults(), "size");
    });
}

dag_status dag_walk(dag_graph *g, dag_walk_fn callback, void *user_data, const dag_walk_options *opts,
                    dag_walk_report **out_report, dag_error **err) {
    if (out_report) *out_report = nullptr;
    return guard(__func__, err, [&] {
        std::unique_ptr<dag_walker> h = start(g, callback, user_data, opts, false, !out_report, true);
        finish(*h->root, *h, out_report);
    });
}

dag_status dag_walk_start(dag_graph *g, dag_walk_fn callback, void *user_data, const dag_walk_options *opts,
                          dag_walker **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(out, "out");
        *out = start(g, callback, user_data, opts).release();
    });
}

dag_status dag_walk_wait(dag_walker *walk, dag_walk_report **out_report, dag_error **err) {
    if (out_report) *out_report = nullptr;
    return guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        const dag::Walk::Call call(w);
        finish(w, *walk->root_handle, out_report);
    });
}

dag_status dag_walk_wait_for(dag_walker *walk, int timeout_ms, dag_walk_report **out_report, dag_error **err) {
    if (out_report) *out_report = nullptr;
    return guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        const dag::Walk::Call call(w);
        const auto deadline = deadline_after(timeout_ms);
        if (!deadline) {
            finish(w, *walk->root_handle, out_report);
            return;
        }
        if (!w.wait_until(*deadline))
            throw ApiError{DAG_E_TIMEOUT, "the walk is still running after " + std::to_string(timeout_ms) + " ms"};
        conclude(w, *walk->root_handle, out_report, deadline);
    });
}

dag_status dag_walk_progress(dag_walker *walk, size_t *out_done, size_t *out_total, dag_error **err) {
    return guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        require(out_done, "out_done");
        require(out_total, "out_total");
        const dag::Walk::Call call(w);
        w.progress(*out_done, *out_total);
    });
}

dag_status dag_walk_begin(dag_graph *g, const dag_walk_options *opts, dag_walker **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(out, "out");
        *out = start(g, nullptr, nullptr, opts, true).release();
    });
}

dag_status dag_walk_next_ready(dag_walker *walk, uint64_t *vertices, dag_walker **walks, size_t capacity,
                               int timeout_ms, size_t *out_count, dag_error **err) {
    if (out_count) *out_count = 0;
    bool timed_out = false;
    const dag_status st = guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        require(vertices, "vertices");
        require(walks, "walks");
        require(out_count, "out_count");
        if (capacity == 0) throw ApiError{DAG_E_INVALID_ARGUMENT, "capacity is 0; room for one vertex at least is needed"};
        // One call hands out at most this many: room for them is reserved
        // up front, and more at once gains nothing.
        constexpr std::size_t most = 1024;
        // Kept per thread: a pull loop calls this once for every few
        // vertices, and a fresh vector each time cost a malloc and a free.
        // Taken out while in use: the observer, called on this thread while
        // vertices are handed out, may call this again (for another walk).
        thread_local std::vector<dag::ReadyVertex> spare;
        std::vector<dag::ReadyVertex> ready = std::move(spare);
        const bool ended = w.next_ready(ready, std::min(capacity, most), deadline_after(timeout_ms));
        for (std::size_t i = 0; i < ready.size(); ++i) {
            vertices[i] = ready[i].id;
            walks[i] = static_cast<dag_walker *>(ready[i].walk_tag);
        }
        *out_count = ready.size();
        timed_out = ready.empty() && !ended;
        spare = std::move(ready);
    });
    // Not thrown: a caller polling with timeout 0 meets this on most calls,
    // and an exception costs more than the poll.
    if (st != DAG_OK || !timed_out) return st;
    char message[64];
    std::snprintf(message, sizeof message, "no vertex became ready within %d ms", timeout_ms);
    return dag::capi::fail(err, DAG_E_TIMEOUT, __func__, message);
}

dag_status dag_walk_cancel(dag_walker *walk, dag_error **err) {
    return guard(__func__, err, [&] { core(walk).cancel(); });
}

void dag_walk_free(dag_walker *walk) {
    if (!walk || walk->root_handle != walk) return;
    dag::Walk *w = walk->walk.load(std::memory_order_acquire);
    if (walk->owned_by_dag_walk) {
        // Only its callbacks and observer can reach it, and dag_walk()
        // frees it once it has finished: freeing it here too would free it
        // twice.
        try {
            if (w) w->cancel();
        } catch (...) {
            // Finished already (DAG_E_STATE): nothing is left to cancel.
        }
        return;
    }
    if (w && (w->calling_back() || w->reading_graph())) {
        // Freeing waits for the walk, which cannot finish while this
        // callback or observer runs: cancel it, and the reaper frees it once
        // it has finished (a pool cannot join itself). Without a reaper
        // thread the walk is leaked, not crashed.
        if (dag::capi::promise_walk()) w->release_when_finished([walk] { dag::capi::hand_over(walk); });
        return;
    }
    delete walk;
}

dag_status dag_walk_complete(dag_walker *walk, uint64_t vertex, dag_walk_result result, const char *message,
                             dag_error **err) {
    return guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        const auto r = raw(result);
        if (r != DAG_WALK_OK && r != DAG_WALK_FAILED && r != DAG_WALK_CANCELLED)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "result must be DAG_WALK_OK, DAG_WALK_FAILED or DAG_WALK_CANCELLED"};
        w.complete(vertex,
                   r == DAG_WALK_OK       ? dag::Outcome::ok
                   : r == DAG_WALK_FAILED ? dag::Outcome::failed
                                          : dag::Outcome::cancelled,
                   message);
        if (dag::capi::CallbackFrame *frame = dag::capi::CallbackFrame::find(walk, vertex)) frame->mark_completed();
    });
}

dag_status dag_walk_expand(dag_walker *walk, uint64_t vertex, const dag_graph *sub, dag_walk_fn callback,
                           void *user_data, dag_error **err) {
    return guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        const GraphRead reading(sub, "sub");
        if (callback && !walk->root_handle->callback)
            throw ApiError{DAG_E_INVALID_ARGUMENT,
                           "a pull walk's sub-walk hands out its vertices too; pass a NULL callback"};
        // From inside its own callback, once that callback finished the
        // vertex: the walk's refusal would say it must be called from there.
        if (const dag::capi::CallbackFrame *frame = dag::capi::CallbackFrame::find(walk, vertex);
            frame && (frame->failed() || frame->completed()))
            throw ApiError{DAG_E_STATE, "vertex " + std::to_string(vertex) + " was already " +
                                            (frame->failed() ? "failed by dag_walk_fail()" : "completed by dag_walk_complete()") +
                                            " from its callback; it cannot be expanded after that"};
        auto h = std::make_unique<dag_walker>();
        h->callback = callback ? callback : walk->callback;
        h->user_data = callback ? user_data : walk->user_data;
        h->root_handle = walk->root_handle;
        h->sub_graph.reset(new dag_graph{sub->graph});
        h->graph = h->sub_graph.get();
        dag_walker *raw = h.get();
        dag_walker *root = walk->root_handle;
        {
            std::lock_guard<std::mutex> lk(root->subs_mu);
            root->subs.push_back(std::move(h));
        }
        try {
            // Published before the sub-walk can start: its callbacks may
            // use their handle at once, even when the expanding thread is
            // not the vertex's own.
            w.expand(vertex, raw->sub_graph->graph, dag::Visitor{call_callback, raw}, raw,
                     [raw](dag::Walk &child) { raw->walk.store(&child, std::memory_order_release); });
        } catch (...) {
            std::lock_guard<std::mutex> lk(root->subs_mu);
            for (auto it = root->subs.begin(); it != root->subs.end(); ++it)
                if (it->get() == raw) {
                    root->subs.erase(it);
                    break;
                }
            throw;
        }
    });
}

const dag_graph *dag_walk_graph(const dag_walker *walk) { return walk ? walk->graph : nullptr; }

dag_status dag_walk_update_new(dag_walk_update **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(out, "out");
        *out = new dag_walk_update{};
    });
}

void dag_walk_update_free(dag_walk_update *update) { delete update; }

dag_status dag_walk_update_add_vertex(dag_walk_update *update, const char *name, void *user_data, int always_run,
                                      uint64_t *out_provisional, dag_error **err) {
    return guard(__func__, err, [&] {
        require(update, "update");
        uint64_t id = update->update.add_vertex(
            name ? std::optional<std::string_view>(name) : std::nullopt, user_data, always_run != 0);
        if (out_provisional) *out_provisional = id;
    });
}

dag_status dag_walk_update_connect(dag_walk_update *update, uint64_t from, uint64_t to, dag_error **err) {
    return guard(__func__, err, [&] {
        require(update, "update");
        update->update.connects.emplace_back(from, to);
    });
}

dag_status dag_walk_update_disconnect(dag_walk_update *update, uint64_t from, uint64_t to, dag_error **err) {
    return guard(__func__, err, [&] {
        require(update, "update");
        update->update.disconnects.emplace_back(from, to);
    });
}

dag_status dag_walk_update_remove_vertex(dag_walk_update *update, uint64_t id, dag_error **err) {
    return guard(__func__, err, [&] {
        require(update, "update");
        update->update.removals.push_back(id);
    });
}

dag_status dag_walk_apply(dag_walker *walk, const dag_walk_update *update, dag_ids **out_new_ids, dag_error **err) {
    return guard(__func__, err, [&] {
        dag::Walk &w = core(walk);
        require(update, "update");
        // Allocated first: once the batch is applied, nothing may fail.
        std::unique_ptr<dag_ids> holder(out_new_ids ? new dag_ids{} : nullptr);
        std::vector<uint64_t> ids = w.apply(update->update);
        if (out_new_ids) {
            holder->values = std::move(ids);
            *out_new_ids = holder.release();
        }
    });
}

void dag_walk_report_free(dag_walk_report *report) { delete report; }

size_t dag_walk_report_size(const dag_walk_report *report) { return report ? report->report.size() : 0; }

size_t dag_walk_report_count(const dag_walk_report *report, dag_vertex_status status) {
    const auto st = raw(status);
    if (!report || st < DAG_VERTEX_NOT_RUN || st > DAG_VERTEX_CANCELLED) return 0;
    return report->report.total(static_cast<dag::VertexStatus>(st));
}

dag_status dag_walk_report_vertices(const dag_walk_report *report, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(report, "report");
        require(out, "out");
        std::vector<uint64_t> ids;
        const dag::WalkReport &r = report->report;
        ids.reserve(r.size());
        for (std::size_t i = 0; i < r.size(); ++i) ids.push_back(r[i].id);
        *out = dag::capi::make_ids(std::move(ids));
    });
}

dag_status dag_walk_report_vertex(const dag_walk_report *report, uint64_t vertex, dag_vertex_status *out_status,
                                  const char **out_message, int64_t *out_start_ns, int64_t *out_end_ns,
                                  dag_error **err) {
    return guard(__func__, err, [&] {
        require(report, "report");
        const std::optional<dag::VertexReport> v = report->report.find(vertex);
        if (!v) throw ApiError{DAG_E_UNKNOWN_VERTEX, "vertex " + std::to_string(vertex) + " is not in the report"};
        if (out_status) *out_status = static_cast<dag_vertex_status>(v->status);
        if (out_message) *out_message = v->message;
        if (out_start_ns) *out_start_ns = v->start_ns;
        if (out_end_ns) *out_end_ns = v->end_ns;
    });
}

dag_status dag_walk_report_attempts(const dag_walk_report *report, uint64_t vertex, size_t *out_attempts,
                                   dag_error **err) {
    return guard(__func__, err, [&] {
        require(report, "report");
        require(out_attempts, "out_attempts");
        const std::optional<dag::VertexReport> v = report->report.find(vertex);
        if (!v) throw ApiError{DAG_E_UNKNOWN_VERTEX, "vertex " + std::to_string(vertex) + " is not in the report"};
        *out_attempts = v->attempts;
    });
}

dag_status dag_walk_report_attempt_message(const dag_walk_report *report, uint64_t vertex, size_t attempt,
                                          const char **out_message, dag_error **err) {
    return guard(__func__, err, [&] {
        require(report, "report");
        require(out_message, "out_message");
        const std::optional<dag::VertexReport> v = report->report.find(vertex);
        if (!v) throw ApiError{DAG_E_UNKNOWN_VERTEX, "vertex " + std::to_string(vertex) + " is not in the report"};
        if (attempt >= v->attempts)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "attempt " + std::to_string(attempt) + " of vertex " +
                                                       std::to_string(vertex) + ": it made " +
                                                       std::to_string(v->attempts)};
        *out_message = v->attempt_messages ? (*v->attempt_messages)[attempt].c_str() : v->message;
    });
}

dag_status dag_walk_report_read(const dag_walk_report *report, size_t first, dag_vertex_outcome *out, size_t count,
                                size_t outcome_size, size_t *out_written, dag_error **err) {
    if (out_written) *out_written = 0;
    return guard(__func__, err, [&] {
        require(report, "report");
        require(out_written, "out_written");
        if (count > 0) require(out, "out");
        // Every field up to the message is the 1.2 layout, the first.
        // A size no struct of this kind could have is a mistake, and would
        // overflow the offsets below.
        if (outcome_size > 4096)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "outcome_size is " + std::to_string(outcome_size) +
                                                       ", more than any dag_vertex_outcome will be"};
        if (outcome_size < sizeof(dag_vertex_outcome))
            throw ApiError{DAG_E_INVALID_ARGUMENT, "outcome_size is " + std::to_string(outcome_size) +
                                                       ", less than the 1.2 layout's " +
                                                       std::to_string(sizeof(dag_vertex_outcome))};
        const dag::WalkReport &r = report->report;
        const std::size_t n = first < r.size() ? std::min(count, r.size() - first) : 0;
        auto *bytes = reinterpret_cast<unsigned char *>(out);
        for (std::size_t i = 0; i < n; ++i) {
            const dag::VertexReport v = r[first + i];
            dag_vertex_outcome o;
            o.vertex = v.id;
            o.status = static_cast<dag_vertex_status>(v.status);
            o.ran = v.ran ? 1 : 0;
            o.start_ns = v.start_ns;
            o.end_ns = v.end_ns;
            o.message = v.message;
            unsigned char *at = bytes + i * outcome_size;
            std::memcpy(at, &o, sizeof o);
            if (outcome_size > sizeof o) std::memset(at + sizeof o, 0, outcome_size - sizeof o);
        }
        *out_written = n;
    });
}

uint64_t dag_walk_report_first_error(const dag_walk_report *report, const char **out_message) {
    if (out_message) *out_message = report ? report->report.first_error_message.c_str() : "";
    return report ? report->report.first_error : DAG_NO_VERTEX;
}

int dag_walk_report_cancelled(const dag_walk_report *report) { return report && report->report.cancelled; }

int dag_walk_report_ran(const dag_walk_report *report, uint64_t vertex) {
    if (!report) return 0;
    const std::optional<dag::VertexReport> v = report->report.find(vertex);
    return v && v->ran;
}

const char *dag_vertex_status_string(dag_vertex_status status) {
    switch (raw(status)) {
        case DAG_VERTEX_NOT_RUN: return "not-run";
        case DAG_VERTEX_OK: return "ok";
        case DAG_VERTEX_FAILED: return "failed";
        case DAG_VERTEX_UPSTREAM_FAILED: return "upstream-failed";
        case DAG_VERTEX_CANCELLED: return "cancelled";
        default: break;
    }
    return "unknown";
}

}  // extern "C"
