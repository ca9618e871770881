// Helpers shared by the walk suites: a recording callback context, RAII for
// walks and reports, and report accessors.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capi_test_support.hpp"

struct WalkDeleter {
    void operator()(dag_walker *w) const { dag_walk_free(w); }
};
using WalkPtr = std::unique_ptr<dag_walker, WalkDeleter>;

struct ReportDeleter {
    void operator()(dag_walk_report *r) const { dag_walk_report_free(r); }
};
using ReportPtr = std::unique_ptr<dag_walk_report, ReportDeleter>;

struct UpdateDeleter {
    void operator()(dag_walk_update *u) const { dag_walk_update_free(u); }
};
using UpdatePtr = std::unique_ptr<dag_walk_update, UpdateDeleter>;

inline UpdatePtr new_update() {
    dag_walk_update *u = nullptr;
    EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    return UpdatePtr(u);
}

// How long a test waits for an interleaving it forces. Correct code gets
// there in microseconds however slow or loaded the machine; the limit only
// turns a bug (a vertex held back that should run) into a failure, not a hang.
constexpr std::chrono::seconds gate_limit{60};

// A one-way flag threads can wait on, to force the interleaving a test needs
// instead of hoping a sleep produces it.
class Latch {
public:
    void set() {
        std::lock_guard<std::mutex> lk(mu_);
        open_ = true;
        cv_.notify_all();
    }
    bool is_set() {
        std::lock_guard<std::mutex> lk(mu_);
        return open_;
    }
    // True once set; false if that took longer than `limit`.
    bool wait(std::chrono::milliseconds limit = gate_limit) {
        std::unique_lock<std::mutex> lk(mu_);
        return cv_.wait_for(lk, limit, [&] { return open_; });
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool open_ = false;
};

// Opens when the observer reports `event` for `vertex` of the walk of
// `graph` (of any walk when graph is null): lets a test act at a point of
// the walk without sleeping for it.
struct EventLatch : Latch {
    EventLatch(dag_walk_event e, uint64_t v, const dag_graph *g = nullptr) : event(e), vertex(v), graph(g) {}
    void attach(dag_walk_options &o) {
        o.observer = observe;
        o.observer_data = this;
    }
    static void observe(dag_walker *w, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                        void *data) {
        auto *x = static_cast<EventLatch *>(data);
        if (e == x->event && v == x->vertex && (!x->graph || dag_walk_graph(w) == x->graph)) x->set();
    }
    dag_walk_event event;
    uint64_t vertex;
    const dag_graph *graph;
};

// A callback as a std::function, plus the order in which vertices ran.
struct Recorder {
    std::function<dag_walk_result(dag_walker *, uint64_t, const char **)> body;
    std::mutex mu;
    std::vector<uint64_t> order;

    std::vector<uint64_t> ran() {
        std::lock_guard<std::mutex> lk(mu);
        return order;
    }
};

inline dag_walk_result record_cb(dag_walker *w, uint64_t v, const char **msg, void *user) {
    auto *r = static_cast<Recorder *>(user);
    {
        std::lock_guard<std::mutex> lk(r->mu);
        r->order.push_back(v);
    }
    return r->body ? r->body(w, v, msg) : DAG_WALK_OK;
}

inline dag_walk_options options(size_t parallelism = 10, size_t threads = 10) {
    dag_walk_options o;
    EXPECT_EQ(dag_walk_options_init(&o, sizeof o, nullptr), DAG_OK);
    o.parallelism = parallelism;
    o.threads = threads;
    return o;
}

inline dag_vertex_status status_of(const dag_walk_report *r, uint64_t v) {
    dag_vertex_status st = DAG_VERTEX_NOT_RUN;
    EXPECT_EQ(dag_walk_report_vertex(r, v, &st, nullptr, nullptr, nullptr, nullptr), DAG_OK) << v;
    return st;
}

inline std::string message_of(const dag_walk_report *r, uint64_t v) {
    const char *m = nullptr;
    EXPECT_EQ(dag_walk_report_vertex(r, v, nullptr, &m, nullptr, nullptr, nullptr), DAG_OK) << v;
    return m ? m : "";
}

// With DAG_TEST_WALK_MODE=pull in the environment, run_walk() walks in pull
// mode: the suites written for callback walks then check that a pull walk
// keeps the same rules (ctest runs them both ways).
inline bool pull_mode() {
    static const bool on = [] {
        const char *m = std::getenv("DAG_TEST_WALK_MODE");
        return m && std::string(m) == "pull";
    }();
    return on;
}

// A host of a pull-mode walk: its threads take one ready vertex at a time
// and run `callback` on it, as a pool thread would, then complete the vertex
// with the result (a pending one is left to whoever completes it). As many
// threads as the walk's parallelism, up to 8, so callbacks that wait for
// each other can all be running.
inline dag_status pull_walk(dag_graph *g, dag_walk_fn callback, void *user_data, const dag_walk_options &o,
                            dag_walk_report **out) {
    dag_walker *w = nullptr;
    dag_status st = dag_walk_begin(g, &o, &w, nullptr);
    if (st != DAG_OK) return st;
    std::vector<std::thread> hosts;
    for (size_t i = 0; i < std::clamp<size_t>(o.parallelism, 1, 8); ++i)
        hosts.emplace_back([&] {
            for (;;) {
                uint64_t v = 0;
                dag_walker *in = nullptr;
                size_t n = 0;
                const dag_status got = dag_walk_next_ready(w, &v, &in, 1, -1, &n, nullptr);
                EXPECT_EQ(got, DAG_OK);
                if (got != DAG_OK || n == 0) return;
                const char *msg = nullptr;
                const dag_walk_result returned = callback(in, v, &msg, user_data);
                // Its bits, as libdag reads a result: it may be out of range.
                int code;
                std::memcpy(&code, &returned, sizeof code);
                if (code == DAG_WALK_PENDING) continue;
                if (code != DAG_WALK_OK && code != DAG_WALK_FAILED) {
                    // What a callback walk does with such a result.
                    code = DAG_WALK_FAILED;
                    msg = "the callback returned a value that is not a dag_walk_result";
                }
                const dag_status done =
                    dag_walk_complete(in, v, code == DAG_WALK_OK ? DAG_WALK_OK : DAG_WALK_FAILED, msg, nullptr);
                // The callback may have failed, expanded or (after a cancel)
                // lost its vertex already; a callback walk ignores its
                // result then too.
                EXPECT_TRUE(done == DAG_OK || done == DAG_E_STATE || done == DAG_E_CANCELLED)
                    << dag_status_string(done);
            }
        });
    for (auto &t : hosts) t.join();
    st = dag_walk_wait(w, out, nullptr);
    dag_walk_free(w);
    return st;
}

// Starts a callback walk and waits for its end, for walks a defect could
// leave waiting for ever with a vertex parked or a worker stuck: a cancel
// would not end those either, so after 20 s the process stops, printing
// `hang` and what `progress` says, instead of hanging the suite.
inline dag_status walk_or_abort(dag_graph *g, dag_walk_fn cb, void *user_data, const dag_walk_options &o,
                                ReportPtr &report, const std::function<std::string()> &progress = {}) {
    dag_walker *raw = nullptr;
    const dag_status started = dag_walk_start(g, cb, user_data, &o, &raw, nullptr);
    if (started != DAG_OK) return started;
    WalkPtr w(raw);
    dag_walk_report *r = nullptr;
    const dag_status st = dag_walk_wait_for(w.get(), 20000, &r, nullptr);
    if (st == DAG_E_TIMEOUT) {
        std::fprintf(stderr, "the walk hangs%s%s\n", progress ? ": " : "", progress ? progress().c_str() : "");
        std::abort();
    }
    report.reset(r);
    return st;
}

// Runs a blocking walk; returns its status and the report.
inline dag_status run_walk(dag_graph *g, Recorder &rec, const dag_walk_options &o, ReportPtr &report) {
    dag_walk_report *r = nullptr;
    dag_status st = pull_mode() ? pull_walk(g, record_cb, &rec, o, &r) : dag_walk(g, record_cb, &rec, &o, &r, nullptr);
    report.reset(r);
    return st;
}

// A walk whose every vertex but `gate` waits for `gate`, which runs until
// opened: the updates meet a walk that has started exactly one vertex.
class GatedWalk {
public:
    GatedWalk() {
        gate = add(g.get(), "gate");
        rec.body = [this](dag_walker *, uint64_t v, const char **) {
            if (v == gate) {
                entered.set();
                opened.wait();
            }
            return DAG_WALK_OK;
        };
    }
    ~GatedWalk() { opened.set(); }

    uint64_t vertex(const char *name) {
        uint64_t v = add(g.get(), name);
        EXPECT_EQ(dag_connect(g.get(), v, gate, nullptr), DAG_OK);
        return v;
    }
    void start(dag_walk_observer_fn observer = nullptr, void *observer_data = nullptr) {
        auto o = options(4, 2);
        o.observer = observer;
        o.observer_data = observer_data;
        dag_walker *w = nullptr;
        ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
        walk.reset(w);
        ASSERT_TRUE(entered.wait());
    }
    dag_status apply(const std::vector<std::pair<uint64_t, uint64_t>> &connects,
                     const std::vector<std::pair<uint64_t, uint64_t>> &disconnects = {},
                     const std::vector<uint64_t> &removals = {}, dag_error **err = nullptr) {
        dag_walk_update *u = nullptr;
        EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        UpdatePtr owned(u);
        for (auto [a, b] : connects) EXPECT_EQ(dag_walk_update_connect(u, a, b, nullptr), DAG_OK);
        for (auto [a, b] : disconnects) EXPECT_EQ(dag_walk_update_disconnect(u, a, b, nullptr), DAG_OK);
        for (uint64_t r : removals) EXPECT_EQ(dag_walk_update_remove_vertex(u, r, nullptr), DAG_OK);
        return dag_walk_apply(walk.get(), u, nullptr, err);
    }
    ReportPtr finish() {
        opened.set();
        dag_walk_report *r = nullptr;
        EXPECT_EQ(dag_walk_wait(walk.get(), &r, nullptr), DAG_OK);
        return ReportPtr(r);
    }
    size_t position(uint64_t v) {
        auto order = rec.ran();
        return static_cast<size_t>(std::find(order.begin(), order.end(), v) - order.begin());
    }

    GraphPtr g = new_graph();
    uint64_t gate = 0;
    Recorder rec;
    Latch entered, opened;
    WalkPtr walk;
};
