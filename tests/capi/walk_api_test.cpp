// The walker through the C API: order, failure, policies, cancel, async
// completion, observer, reports and bad input.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <random>
#include <thread>
#include <tuple>

#include "walk_test_support.hpp"

namespace {

using namespace std::chrono_literals;

TEST(WalkApi, RunsDependenciesFirstAndReportsEveryVertex) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);  // a depends on b
    ASSERT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    Recorder rec;
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{c, b, a}));
    ASSERT_TRUE(report);
    EXPECT_EQ(dag_walk_report_size(report.get()), 3u);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 3u);
    EXPECT_EQ(dag_walk_report_first_error(report.get(), nullptr), DAG_NO_VERTEX);
    int64_t s_a, e_b;
    ASSERT_EQ(dag_walk_report_vertex(report.get(), a, nullptr, nullptr, &s_a, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_report_vertex(report.get(), b, nullptr, nullptr, nullptr, &e_b, nullptr), DAG_OK);
    EXPECT_GE(s_a, e_b);
    EXPECT_EQ(take_ids([&] {
                  dag_ids *ids = nullptr;
                  EXPECT_EQ(dag_walk_report_vertices(report.get(), &ids, nullptr), DAG_OK);
                  return ids;
              }()),
              (std::vector<uint64_t>{a, b, c}));
    // The walk released the graph.
    EXPECT_EQ(dag_connect(g.get(), a, c, nullptr), DAG_OK);
}

// dag_walk without a report takes no timestamps, so its slots are half the
// size: a walk with a report after it (and one without after that, on the
// arrays the graph kept) must still time every vertex.
TEST(WalkApi, WalksWithAndWithoutAReportTakeTurns) {
    auto g = new_graph();
    std::vector<uint64_t> chain;
    for (int i = 0; i < 8; ++i) {
        chain.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
        if (i) { ASSERT_EQ(dag_connect(g.get(), chain[i], chain[i - 1], nullptr), DAG_OK); }
    }
    const auto callback = [](dag_walker *, uint64_t, const char **, void *) noexcept {
        std::this_thread::sleep_for(1ms);
        return DAG_WALK_OK;
    };
    const dag_walk_options o = options();
    for (int round = 0; round < 2; ++round) {
        ASSERT_EQ(dag_walk(g.get(), callback, nullptr, &o, nullptr, nullptr), DAG_OK);
        dag_walk_report *raw = nullptr;
        ASSERT_EQ(dag_walk(g.get(), callback, nullptr, &o, &raw, nullptr), DAG_OK);
        ReportPtr report(raw);
        int64_t previous_end = 0;
        for (uint64_t v : chain) {
            int64_t start = 0, end = 0;
            ASSERT_EQ(dag_walk_report_vertex(report.get(), v, nullptr, nullptr, &start, &end, nullptr), DAG_OK);
            EXPECT_GT(start, 0) << "round " << round << ", vertex " << v;
            EXPECT_GE(start, previous_end) << "round " << round << ", vertex " << v;
            EXPECT_GE(end - start, 1000000) << "round " << round << ", vertex " << v << " slept 1 ms";
            previous_end = end;
        }
    }
}

TEST(WalkApi, ReverseRunsDependentsFirst) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), a, b, nullptr);
    dag_connect(g.get(), b, c, nullptr);
    Recorder rec;
    ReportPtr report;
    auto o = options();
    o.reverse = 1;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, b, c}));
}

TEST(WalkApi, EmptyGraphFinishesAtOnce) {
    auto g = new_graph();
    Recorder rec;
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(dag_walk_report_size(report.get()), 0u);
}

TEST(WalkApi, FailureSkipsDependentsButNotIndependentBranches) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d");
    dag_connect(g.get(), b, a, nullptr);
    dag_connect(g.get(), c, b, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v != a) return DAG_WALK_OK;
        *msg = "boom";
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    dag_walk_report *r = nullptr;
    std::string err = expect_error(DAG_E_WALK_FAILED, [&](dag_error **e) {
        auto o = options();
        return dag_walk(g.get(), record_cb, &rec, &o, &r, e);
    });
    report.reset(r);
    EXPECT_NE(err.find("vertex a failed: boom"), std::string::npos) << err;
    ASSERT_TRUE(report);
    EXPECT_EQ(status_of(r, a), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r, a), "boom");
    EXPECT_EQ(status_of(r, b), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r, c), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(message_of(r, c), "");
    EXPECT_EQ(status_of(r, d), DAG_VERTEX_OK);
    EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_FAILED), 1u);
    EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_UPSTREAM_FAILED), 2u);
    const char *first = nullptr;
    EXPECT_EQ(dag_walk_report_first_error(r, &first), a);
    EXPECT_STREQ(first, "vertex a failed: boom");
    auto ran = rec.ran();
    EXPECT_EQ(std::count(ran.begin(), ran.end(), b), 0);
}

TEST(WalkApi, AlwaysRunVertexRunsAfterFailureAndDecidesItsDependents) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), b, a, nullptr);
    dag_connect(g.get(), c, b, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v == a ? DAG_WALK_FAILED : DAG_WALK_OK; };
    auto o = options();
    o.always_run = &b;
    o.always_run_count = 1;
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, b, c}));
    EXPECT_EQ(status_of(report.get(), b), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(report.get(), c), DAG_VERTEX_OK);

    // When the always-run vertex fails, its dependents are skipped.
    Recorder rec2;
    rec2.body = [&](dag_walker *, uint64_t, const char **) { return DAG_WALK_FAILED; };
    ASSERT_EQ(run_walk(g.get(), rec2, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(status_of(report.get(), b), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(report.get(), c), DAG_VERTEX_UPSTREAM_FAILED);
}

TEST(WalkApi, FailFastStartsNothingNew) {
    auto g = new_graph();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(add(g.get(), nullptr));
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v == ids[0] ? DAG_WALK_FAILED : DAG_WALK_OK; };
    auto o = options(1, 1);
    o.failure_policy = DAG_FAILURE_FAIL_FAST;
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{ids[0]}));
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_FAILED), 1u);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_NOT_RUN), 99u);

    // The default policy goes on.
    Recorder rec2;
    rec2.body = rec.body;
    auto o2 = options(1, 1);
    EXPECT_EQ(run_walk(g.get(), rec2, o2, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(rec2.ran().size(), 100u);
}

TEST(WalkApi, CyclicGraphIsRefusedBeforeAnythingRuns) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), a, b, nullptr);
    dag_connect(g.get(), b, a, nullptr);
    dag_connect(g.get(), c, a, nullptr);
    Recorder rec;
    dag_walk_report *r = reinterpret_cast<dag_walk_report *>(0x1);
    std::string msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) {
        auto o = options();
        return dag_walk(g.get(), record_cb, &rec, &o, &r, e);
    });
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(msg.find("Cycle:"), std::string::npos) << msg;
    EXPECT_TRUE(rec.ran().empty());
    // Self references too.
    auto g2 = new_graph();
    uint64_t s = add(g2.get(), "s");
    dag_connect(g2.get(), s, s, nullptr);
    msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) {
        auto o = options();
        return dag_walk(g2.get(), record_cb, &rec, &o, nullptr, e);
    });
    EXPECT_NE(msg.find("Self reference: s"), std::string::npos) << msg;
    EXPECT_TRUE(rec.ran().empty());
    // The graph is not left busy.
    EXPECT_EQ(dag_connect(g2.get(), s, s, nullptr), DAG_OK);
}

TEST(WalkApi, ParallelismBoundIsReachedAndNeverExceeded) {
    auto g = new_graph();
    for (int i = 0; i < 60; ++i) add(g.get(), nullptr);
    std::atomic<int> now{0}, peak{0};
    // Each callback waits until `bound` callbacks have run at once, so the
    // bound is reached however the workers happen to be scheduled (with 2 ms
    // sleeps alone, a loaded machine may never overlap them); were more
    // allowed in, they would start while these wait, and raise the peak.
    int bound = 0;
    std::chrono::steady_clock::time_point deadline;
    std::mutex mu;
    std::condition_variable cv;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        int n = ++now;
        int p = peak.load();
        while (n > p && !peak.compare_exchange_weak(p, n)) {
        }
        {
            std::unique_lock<std::mutex> lk(mu);
            cv.notify_all();
            cv.wait_until(lk, deadline, [&] { return peak.load() >= bound; });
        }
        std::this_thread::sleep_for(2ms);
        --now;
        return DAG_WALK_OK;
    };
    ReportPtr report;
    bound = 4;
    deadline = std::chrono::steady_clock::now() + gate_limit;
    ASSERT_EQ(run_walk(g.get(), rec, options(4, 10), report), DAG_OK);
    EXPECT_EQ(peak.load(), 4);
    peak = 0;
    bound = 3;
    deadline = std::chrono::steady_clock::now() + gate_limit;
    ASSERT_EQ(run_walk(g.get(), rec, options(10, 3), report), DAG_OK);
    EXPECT_EQ(peak.load(), 3);  // bounded by the pool
    // The defaults: parallelism 10 and 10 threads.
    peak = 0;
    bound = 10;
    deadline = std::chrono::steady_clock::now() + gate_limit;
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk(g.get(), record_cb, &rec, nullptr, &r, nullptr), DAG_OK);
    report.reset(r);
    EXPECT_EQ(peak.load(), 10);
}

TEST(WalkApi, OptionsInitGivesTheDocumentedDefaults) {
    dag_walk_options o;
    std::memset(&o, 0xab, sizeof o);
    ASSERT_EQ(dag_walk_options_init(&o, sizeof o, nullptr), DAG_OK);
    EXPECT_EQ(o.size, sizeof(dag_walk_options));
    EXPECT_EQ(o.parallelism, 10u);
    EXPECT_EQ(o.threads, 0u);
    EXPECT_EQ(o.reverse, 0);
    EXPECT_EQ(o.failure_policy, DAG_FAILURE_CONTINUE);
    EXPECT_NE(o.timestamps, 0);
    EXPECT_EQ(o.always_run, nullptr);
    EXPECT_EQ(o.always_run_count, 0u);
    EXPECT_EQ(o.observer, nullptr);
    EXPECT_EQ(o.observer_data, nullptr);
    EXPECT_EQ(o.thread_start, nullptr);
    EXPECT_EQ(o.thread_exit, nullptr);
    EXPECT_EQ(o.thread_hook_data, nullptr);
    // The static initialiser says the same.
    const dag_walk_options s = DAG_WALK_OPTIONS_INIT;
    EXPECT_EQ(std::make_tuple(s.size, s.parallelism, s.threads, s.reverse, s.failure_policy, s.timestamps,
                              s.always_run, s.always_run_count, s.observer, s.observer_data, s.thread_start,
                              s.thread_exit, s.thread_hook_data),
              std::make_tuple(o.size, o.parallelism, o.threads, o.reverse, o.failure_policy, o.timestamps,
                              o.always_run, o.always_run_count, o.observer, o.observer_data, o.thread_start,
                              o.thread_exit, o.thread_hook_data));
    dag_validate_options v, vs = DAG_VALIDATE_OPTIONS_INIT;
    ASSERT_EQ(dag_validate_options_init(&v, sizeof v, nullptr), DAG_OK);
    EXPECT_EQ(v.size, vs.size);
    EXPECT_EQ(v.single_root, vs.single_root);
}

// The options grow at their end: every size from the first released layout
// (1.0: up to observer_data) to this build's and beyond is accepted, the
// fields a smaller caller lacks taking their defaults; bytes this library
// does not know must be zero.
TEST(WalkApi, OptionsOfEverySizeFromTheFirstLayoutOn) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    const size_t first = offsetof(dag_walk_options, observer_data) + sizeof(void *);
    for (size_t size = first - 8; size <= sizeof(dag_walk_options) + 64; ++size) {
        SCOPED_TRACE(size);
        std::vector<unsigned char> buf(size + 8, 0xab);
        auto *o = reinterpret_cast<dag_walk_options *>(buf.data());
        if (size < first) {
            expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_options_init(o, size, e); });
            EXPECT_EQ(buf[0], 0xab) << "nothing written";
            dag_walk_options whole;
            dag_walk_options_init(&whole, sizeof whole, nullptr);
            whole.size = size;
            expect_error(DAG_E_INVALID_ARGUMENT,
                         [&](dag_error **e) { return dag_walk(g.get(), record_cb, nullptr, &whole, nullptr, e); });
            continue;
        }
        ASSERT_EQ(dag_walk_options_init(o, size, nullptr), DAG_OK);
        EXPECT_EQ(o->size, size);
        EXPECT_EQ(o->parallelism, 10u);
        for (size_t k = sizeof(dag_walk_options); k < size; ++k) ASSERT_EQ(buf[k], 0) << k;
        for (size_t k = size; k < buf.size(); ++k) ASSERT_EQ(buf[k], 0xab) << "written past the caller's size";
        o->reverse = 1;
        Recorder rec;
        ReportPtr report;
        dag_walk_report *r = nullptr;
        ASSERT_EQ(dag_walk(g.get(), record_cb, &rec, o, &r, nullptr), DAG_OK);
        report.reset(r);
        EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{b, a}));
        if (size > sizeof(dag_walk_options)) {
            // A newer caller asking for something this library lacks.
            buf[size - 1] = 1;
            std::string msg = expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) {
                return dag_walk(g.get(), record_cb, &rec, o, nullptr, e);
            });
            EXPECT_NE(msg.find("is not zero"), std::string::npos) << msg;
        }
    }
    // The same rule for dag_validate_options.
    const size_t vfirst = offsetof(dag_validate_options, single_root) + sizeof(int);
    for (size_t size = vfirst - 1; size <= sizeof(dag_validate_options) + 64; ++size) {
        SCOPED_TRACE(size);
        std::vector<unsigned char> buf(size, 0xab);
        auto *v = reinterpret_cast<dag_validate_options *>(buf.data());
        if (size < vfirst) {
            expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_validate_options_init(v, size, e); });
            continue;
        }
        ASSERT_EQ(dag_validate_options_init(v, size, nullptr), DAG_OK);
        v->single_root = 0;
        add(g.get(), ("other" + std::to_string(size)).c_str());  // a second root
        EXPECT_EQ(dag_validate(g.get(), v, nullptr, nullptr), DAG_OK);
        if (size > sizeof(dag_validate_options)) {
            buf[size - 1] = 2;
            expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_validate(g.get(), v, nullptr, e); });
        }
    }
}

// A size ending inside a field (one no compiled struct has, set by hand)
// copied part of it over its default: half of thread_start's address, then
// called on every pool thread.
TEST(WalkApi, OptionsEndingInsideAFieldLeaveThatFieldItsDefault) {
    auto g = new_graph();
    add(g.get(), "a");
    static std::atomic<int> calls{0};
    const auto hook = [](void *) { calls.fetch_add(1); };
    const size_t at = offsetof(dag_walk_options, thread_start);
    for (size_t size = at + 1; size <= at + sizeof(void *); ++size) {
        SCOPED_TRACE(size);
        dag_walk_options o;
        ASSERT_EQ(dag_walk_options_init(&o, sizeof o, nullptr), DAG_OK);
        o.thread_start = hook;
        o.size = size;
        calls = 0;
        ASSERT_EQ(dag_walk(
                      g.get(), [](dag_walker *, uint64_t, const char **, void *) { return DAG_WALK_OK; }, nullptr,
                      &o, nullptr, nullptr),
                  DAG_OK);
        // The whole field is the caller's only at its last byte.
        EXPECT_EQ(calls.load() > 0, size == at + sizeof(void *));
    }
}

// A size set by hand may end exactly where a 4-byte field ends, with
// padding after it: that field is the caller's and is read.
TEST(WalkApi, OptionsEndingWithANarrowFieldGiveTheWalkThatField) {
    auto g = new_graph();
    const uint64_t c = add(g.get(), "c"), b = add(g.get(), "b"), a = add(g.get(), "a");
    Recorder rec;
    dag_walk_options o = options(1, 1);
    o.priority = DAG_PRIORITY_NAME;
    o.size = offsetof(dag_walk_options, priority) + sizeof o.priority;
    ASSERT_NE(o.size % alignof(dag_walk_options), 0u);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, b, c}));

    // retry_doubling: three back-offs of 40 ms wait 120 ms fixed, 280 ms
    // doubled.
    Recorder flaky;
    std::atomic<int> attempts{0};
    flaky.body = [&](dag_walker *, uint64_t v, const char **) {
        return v == a && attempts.fetch_add(1) < 3 ? DAG_WALK_FAILED : DAG_WALK_OK;
    };
    o = options(1, 1);
    o.retries = 3;
    o.retry_delay_ms = 40;
    o.retry_doubling = 1;
    o.size = offsetof(dag_walk_options, retry_doubling) + sizeof o.retry_doubling;
    ASSERT_NE(o.size % alignof(dag_walk_options), 0u);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(run_walk(g.get(), flaky, o, report), DAG_OK);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(280));
    EXPECT_EQ(attempts.load(), 4);
}

// threads 0, the default: one pool thread per slot, each started and ended
// through the hooks.
TEST(WalkApi, DefaultThreadsFollowParallelismAndHooksSeeEveryPoolThread) {
    auto g = new_graph();
    const int n = 12;
    for (int i = 0; i < n; ++i) add(g.get(), ("v" + std::to_string(i)).c_str());
    struct Hooks {
        std::atomic<int> started{0}, ended{0};
    } hooks;
    std::mutex mu;
    std::condition_variable cv;
    int inside = 0;
    Recorder rec;
    // Every vertex waits until all n run at once: only n threads get there.
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        std::unique_lock<std::mutex> lk(mu);
        ++inside;
        cv.notify_all();
        EXPECT_TRUE(cv.wait_for(lk, gate_limit, [&] { return inside == n; }));
        return DAG_WALK_OK;
    };
    dag_walk_options o = DAG_WALK_OPTIONS_INIT;
    o.parallelism = n;
    o.thread_hook_data = &hooks;
    o.thread_start = [](void *d) { ++static_cast<Hooks *>(d)->started; };
    o.thread_exit = [](void *d) { ++static_cast<Hooks *>(d)->ended; };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), size_t{n});
    EXPECT_EQ(hooks.started.load(), n);
    EXPECT_EQ(hooks.ended.load(), n);
}

TEST(WalkApi, GraphIsBusyDuringAWalk) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), a, c, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    auto other = new_graph();
    add(other.get(), "o");
    Recorder rec;
    dag_graph *gp = g.get();
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v != c) return DAG_WALK_OK;  // c runs first
        const uint64_t pair[2] = {c, a};
        EXPECT_EQ(dag_add_vertex(gp, "x", nullptr, nullptr, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_connect(gp, a, a, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_connect_many(gp, pair, 1, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_disconnect(gp, a, b, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_remove_vertex(gp, b, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_replace_vertex(gp, b, c, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_set_vertex_name(gp, b, "renamed", nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_subsume(gp, other.get(), nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_transitive_reduction(gp, nullptr, nullptr), DAG_E_BUSY);
        EXPECT_EQ(dag_walk_graph(w), gp);
        // Reading is fine.
        const char *name = nullptr;
        EXPECT_EQ(dag_vertex_name(gp, a, &name, nullptr), DAG_OK);
        // A second walk of the same graph is refused.
        auto o = options();
        EXPECT_EQ(dag_walk(gp, record_cb, &rec, &o, nullptr, nullptr), DAG_E_BUSY);
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    // Nothing the refused calls asked for happened.
    EXPECT_EQ(dag_vertex_count(gp), 3u);
    EXPECT_EQ(dag_edge_count(gp), 3u);
    EXPECT_TRUE(dag_has_edge(gp, a, b));
    EXPECT_FALSE(dag_has_edge(gp, c, a));
    const char *name = nullptr;
    ASSERT_EQ(dag_vertex_name(gp, b, &name, nullptr), DAG_OK);
    EXPECT_STREQ(name, "b");
}

TEST(WalkApi, StartWaitAndWaitAgain) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), a, b, nullptr);
    Recorder rec;
    auto o = options();
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    dag_walk_report *r = nullptr;
    ASSERT_EQ(dag_walk_wait(w, &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(dag_walk_report_count(r, DAG_VERTEX_OK), 2u);
    ASSERT_EQ(dag_walk_wait(w, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{b, a}));
}

TEST(WalkApi, CancelFromAnotherThreadAccountsForEveryVertex) {
    auto g = new_graph();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 500; ++i) ids.push_back(add(g.get(), nullptr));
    for (int i = 1; i < 500; i += 2) dag_connect(g.get(), ids[i], ids[i - 1], nullptr);
    std::atomic<int> started{0};
    // Callbacks after the fifth wait until the cancel was made: with sleeps
    // alone, a slow or loaded machine could finish the walk first.
    Latch cancel_made;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) {
        if (++started > 5) cancel_made.wait();
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    while (started.load() < 5) std::this_thread::sleep_for(1ms);
    const dag_status cancel_status = dag_walk_cancel(w, nullptr);
    cancel_made.set();
    ASSERT_EQ(cancel_status, DAG_OK);
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(w, &r, nullptr), DAG_E_CANCELLED);
    ReportPtr report(r);
    ASSERT_TRUE(report);
    EXPECT_TRUE(dag_walk_report_cancelled(r));
    size_t ok = dag_walk_report_count(r, DAG_VERTEX_OK), cancelled = dag_walk_report_count(r, DAG_VERTEX_CANCELLED);
    EXPECT_EQ(ok + cancelled, 500u);
    EXPECT_EQ(ok, rec.ran().size());
    EXPECT_GT(cancelled, 0u);
    for (int i = 1; i < 500; i += 2)
        if (status_of(r, ids[i]) == DAG_VERTEX_OK) {
            EXPECT_EQ(status_of(r, ids[i - 1]), DAG_VERTEX_OK);
        }
    // Calls on the finished walk.
    EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_E_STATE);
}

TEST(WalkApi, CancelFromInsideACallback) {
    auto g = new_graph();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 200; ++i) ids.push_back(add(g.get(), nullptr));
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == ids[3]) {
            EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(1, 1), report), DAG_E_CANCELLED);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK) +
                  dag_walk_report_count(report.get(), DAG_VERTEX_CANCELLED),
              200u);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 4u);
}

TEST(WalkApi, FreeingARunningWalkCancelsIt) {
    auto g = new_graph();
    for (int i = 0; i < 100; ++i) add(g.get(), nullptr);
    // The walk is freed with both parallelism slots taken: the first callback
    // left its vertex pending, the second runs until the cancel that
    // dag_walk_free makes has finished that pending vertex (the observer sees
    // it). Nothing else can start before the cancel, whatever the timing (with
    // 1 ms sleeps alone, a slow machine could finish the walk before the free).
    struct Ctx {
        std::atomic<int> started{0};
        std::atomic<uint64_t> pending{0};
        Latch two_started, cancel_seen;
    } ctx;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        const int n = ++ctx.started;
        if (n == 1) {
            ctx.pending = v;
            return DAG_WALK_PENDING;
        }
        if (n == 2) {
            ctx.two_started.set();
            if (!ctx.cancel_seen.wait()) {
                ADD_FAILURE() << "dag_walk_free did not cancel the walk";
                while (ctx.pending.load() == 0) std::this_thread::yield();
                dag_walk_complete(w, ctx.pending.load(), DAG_WALK_OK, nullptr, nullptr);  // let it end
            }
        }
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    o.observer = [](dag_walker *, dag_walk_event ev, uint64_t, dag_vertex_status st, size_t, size_t, size_t,
                    void *user) {
        if (ev == DAG_WALK_EVENT_FINISHED && st == DAG_VERTEX_CANCELLED) static_cast<Ctx *>(user)->cancel_seen.set();
    };
    o.observer_data = &ctx;
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    ASSERT_TRUE(ctx.two_started.wait());
    dag_walk_free(w);
    EXPECT_TRUE(ctx.cancel_seen.is_set());
    EXPECT_LT(rec.ran().size(), 100u);
    EXPECT_EQ(rec.ran().size(), 2u);
    EXPECT_EQ(dag_connect(g.get(), 1, 2, nullptr), DAG_OK);
}

// An external engine: vertices handed to it are completed from its own threads.
struct Engine {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::pair<dag_walker *, uint64_t>> work;
    bool stop = false;
    std::atomic<int> outstanding{0}, peak{0};
    // Non-zero: hold every completion until `peak` has reached this, or until
    // gate_limit passed (then 0), so that a peak the walk allows is reached
    // whatever the timing.
    std::atomic<int> hold_until_peak{0};
    std::chrono::steady_clock::time_point hold_deadline;
    std::vector<std::thread> threads;
    std::function<dag_walk_result(uint64_t)> result = [](uint64_t) { return DAG_WALK_OK; };

    explicit Engine(int n) {
        for (int i = 0; i < n; ++i)
            threads.emplace_back([this] {
                for (;;) {
                    std::pair<dag_walker *, uint64_t> item;
                    {
                        std::unique_lock<std::mutex> lk(mu);
                        cv.wait(lk, [&] { return stop || !work.empty(); });
                        if (work.empty()) return;
                        item = work.front();
                        work.pop_front();
                    }
                    if (int hold = hold_until_peak.load()) {
                        while (peak.load() < hold && std::chrono::steady_clock::now() < hold_deadline)
                            std::this_thread::sleep_for(50us);
                        if (peak.load() < hold) hold_until_peak = 0;  // gave up: the peak check fails
                    }
                    std::this_thread::sleep_for(200us);
                    --outstanding;
                    dag_walk_result r = result(item.second);
                    EXPECT_EQ(dag_walk_complete(item.first, item.second, r, r == DAG_WALK_OK ? nullptr : "remote",
                                                nullptr),
                              DAG_OK);
                }
            });
    }
    ~Engine() {
        {
            std::lock_guard<std::mutex> lk(mu);
            stop = true;
        }
        cv.notify_all();
        for (auto &t : threads) t.join();
    }
    dag_walk_result submit(dag_walker *w, uint64_t v) {
        int n = ++outstanding;
        int p = peak.load();
        while (n > p && !peak.compare_exchange_weak(p, n)) {
        }
        {
            std::lock_guard<std::mutex> lk(mu);
            work.emplace_back(w, v);
        }
        cv.notify_one();
        return DAG_WALK_PENDING;
    }
};

TEST(WalkApi, AsyncCompletionFromOtherThreads) {
    auto g = new_graph();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 200; ++i) ids.push_back(add(g.get(), nullptr));
    for (int i = 10; i < 200; ++i) dag_connect(g.get(), ids[i], ids[i % 10], nullptr);
    Engine engine(3);
    // Without this, a loaded machine may complete each vertex before the
    // walk's thread hands over the fourth, and the peak stays below 4.
    engine.hold_deadline = std::chrono::steady_clock::now() + gate_limit;
    engine.hold_until_peak = 4;
    std::mutex mu;
    std::map<uint64_t, int> started;
    int clock = 0;
    std::map<uint64_t, int> finished_at;
    Recorder rec;
    engine.result = [&](uint64_t v) {
        std::lock_guard<std::mutex> lk(mu);
        finished_at[v] = ++clock;
        return DAG_WALK_OK;
    };
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        {
            std::lock_guard<std::mutex> lk(mu);
            started[v] = ++clock;
        }
        return engine.submit(w, v);
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(4, 1), report), DAG_OK);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 200u);
    for (int i = 10; i < 200; ++i) EXPECT_GT(started[ids[i]], finished_at[ids[i % 10]]);
    // A pending vertex holds its slot: never more than 4 out at once, even on one thread.
    EXPECT_LE(engine.peak.load(), 4);
    EXPECT_EQ(engine.peak.load(), 4);
}

TEST(WalkApi, AsyncFailurePropagates) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    Engine engine(1);
    engine.result = [](uint64_t) { return DAG_WALK_FAILED; };
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) { return engine.submit(w, v); };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_EQ(status_of(report.get(), a), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(report.get(), a), "remote");
    EXPECT_EQ(status_of(report.get(), b), DAG_VERTEX_UPSTREAM_FAILED);
}

// At parallelism 1 a worker keeps the waiters a finished vertex released
// until it needs the queue; a vertex that goes pending meanwhile must hand
// them over, or the walk loses them and never ends.
TEST(WalkApi, ParallelismOneKeepsEveryReleasedVertexAcrossPendingOnes) {
    auto g = new_graph();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 63; ++i) ids.push_back(add(g.get(), nullptr));
    for (int i = 1; i < 63; ++i) dag_connect(g.get(), ids[i], ids[(i - 1) / 2], nullptr);
    Engine engine(1);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        // Every third vertex by id finishes elsewhere, the others inline.
        return v % 3 == 0 ? engine.submit(w, v) : DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(1, 1), report), DAG_OK);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 63u);
    const auto order = rec.ran();
    ASSERT_EQ(order.size(), 63u);
    std::map<uint64_t, size_t> at;
    for (size_t i = 0; i < order.size(); ++i) at[order[i]] = i;
    for (int i = 1; i < 63; ++i) EXPECT_GT(at[ids[i]], at[ids[(i - 1) / 2]]);
}
TEST(WalkApi, CompletingBeforeTheCallbackReturnsIsAllowed) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        dag_error *e = nullptr;
        EXPECT_EQ(dag_walk_complete(w, v, DAG_WALK_OK, nullptr, &e), DAG_OK) << dag_error_message(e);
        dag_error_free(e);
        EXPECT_EQ(dag_walk_complete(w, v, DAG_WALK_OK, nullptr, nullptr), DAG_E_STATE);
        return DAG_WALK_PENDING;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a, b}));
}

TEST(WalkApi, CompleteRefusesBadCalls) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    std::promise<void> pending;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == a) {
            expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_complete(w, b, DAG_WALK_OK, nullptr, e); });
            expect_error(DAG_E_UNKNOWN_VERTEX,
                         [&](dag_error **e) { return dag_walk_complete(w, 999, DAG_WALK_OK, nullptr, e); });
            expect_error(DAG_E_INVALID_ARGUMENT,
                         [&](dag_error **e) { return dag_walk_complete(w, a, DAG_WALK_PENDING, nullptr, e); });
            return DAG_WALK_PENDING;
        }
        return DAG_WALK_OK;
    };
    auto o = options();
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    while (rec.ran().empty()) std::this_thread::sleep_for(100us);
    // Completing twice: the second is refused.
    dag_status first = DAG_E_STATE;
    while ((first = dag_walk_complete(w, a, DAG_WALK_OK, nullptr, nullptr)) == DAG_E_STATE)
        std::this_thread::sleep_for(100us);  // the callback may still be running
    ASSERT_EQ(first, DAG_OK);
    ASSERT_EQ(dag_walk_wait(w, nullptr, nullptr), DAG_OK);
    expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_complete(w, a, DAG_WALK_OK, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT,
                 [&](dag_error **e) { return dag_walk_complete(nullptr, a, DAG_WALK_OK, nullptr, e); });
}

// A vertex the cancel finished before it started was never pending: it
// cannot be completed, and says so apart from one cancelled while pending.
TEST(WalkApi, CompletingAVertexCancelledBeforeItStartedIsAStateError) {
    auto g = new_graph();
    uint64_t blocker = add(g.get(), "blocker"), canceller = add(g.get(), "canceller"),
             later = add(g.get(), "later");
    dag_connect(g.get(), later, canceller, nullptr);
    EventLatch later_skipped(DAG_WALK_EVENT_SKIPPED, later);
    // The cancel waits until blocker's callback runs: blocker and canceller
    // are independent, so canceller could otherwise cancel before blocker
    // started, and blocker would never run.
    Latch blocker_started, release;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == canceller) {
            EXPECT_TRUE(blocker_started.wait());
            EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
        }
        if (v == blocker) {
            blocker_started.set();
            EXPECT_TRUE(release.wait());  // keeps the walk from finishing
        }
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    later_skipped.attach(o);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    ASSERT_TRUE(later_skipped.wait());
    std::string msg =
        expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_complete(w, later, DAG_WALK_OK, nullptr, e); });
    EXPECT_NE(msg.find("never started"), std::string::npos) << msg;
    release.set();
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(w, &r, nullptr), DAG_E_CANCELLED);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, later), DAG_VERTEX_CANCELLED);
    EXPECT_EQ(dag_walk_report_ran(r, later), 0);
    EXPECT_EQ(status_of(r, blocker), DAG_VERTEX_OK);
}

// Fail fast stops the walk first: a later cancel leaves what never started
// not-run, and the cancel's message still counts it.
TEST(WalkApi, CancelAfterFailFastCountsNotRunVerticesAsNeverRan) {
    auto g = new_graph();
    // Independent, and queued behind the first two: with both slots taken,
    // `after` can only be taken once failer has failed.
    uint64_t blocker = add(g.get(), "blocker"), failer = add(g.get(), "failer"), after = add(g.get(), "after");
    EventLatch failed(DAG_WALK_EVENT_SKIPPED, after);
    // failer fails only once blocker's callback runs: blocker and failer are
    // independent, so failer could otherwise fail before blocker started,
    // and fail fast would leave blocker not run.
    Latch blocker_started, release;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        if (v == failer) {
            EXPECT_TRUE(blocker_started.wait());
            return DAG_WALK_FAILED;
        }
        if (v == blocker) {
            blocker_started.set();
            EXPECT_TRUE(release.wait());
        }
        return DAG_WALK_OK;
    };
    auto o = options(2, 2);
    o.failure_policy = DAG_FAILURE_FAIL_FAST;
    failed.attach(o);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    ASSERT_TRUE(failed.wait());
    ASSERT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
    release.set();
    dag_walk_report *r = nullptr;
    std::string msg = expect_error(DAG_E_CANCELLED, [&](dag_error **e) { return dag_walk_wait(w, &r, e); });
    ReportPtr report(r);
    EXPECT_EQ(msg, "dag_walk_wait: the walk was cancelled; 1 vertex never ran");
    EXPECT_EQ(status_of(r, after), DAG_VERTEX_NOT_RUN);
    EXPECT_EQ(status_of(r, failer), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(r, blocker), DAG_VERTEX_OK);
}

TEST(WalkApi, CompletionMessageIsKeptOnlyForAFailure) {
    auto g = new_graph();
    uint64_t fine = add(g.get(), "fine"), broken = add(g.get(), "broken");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        EXPECT_EQ(dag_walk_complete(w, v, v == fine ? DAG_WALK_OK : DAG_WALK_FAILED, "a note", nullptr), DAG_OK);
        return DAG_WALK_PENDING;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_EQ(message_of(report.get(), fine), "");
    EXPECT_EQ(message_of(report.get(), broken), "a note");
}

TEST(WalkApi, CancelFinishesPendingVertices) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), b, a, nullptr);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t, const char **) { return DAG_WALK_PENDING; };
    auto o = options();
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    while (rec.ran().empty()) std::this_thread::sleep_for(100us);
    ASSERT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(w, &r, nullptr), DAG_E_CANCELLED);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, a), DAG_VERTEX_CANCELLED);
    EXPECT_EQ(status_of(r, b), DAG_VERTEX_CANCELLED);
    // After the walk has finished too, the vertex says what happened to it.
    EXPECT_EQ(dag_walk_complete(w, a, DAG_WALK_OK, nullptr, nullptr), DAG_E_CANCELLED);
    EXPECT_EQ(dag_walk_complete(w, b, DAG_WALK_OK, nullptr, nullptr), DAG_E_STATE);
}

// A vertex whose callback cancelled the walk and then returned pending is
// finished by the walk as cancelled while pending: completing it says so,
// also after the walk (one the host completed as cancelled has simply
// finished: WalkPull.AHostStoppedByTheCancelCompletesItsVertexAsCancelled).
TEST(WalkApi, AVertexPendingAfterItsCallbackCancelledAnswersCancelledToItsCompletion) {
    auto g = new_graph();
    const uint64_t a = add(g.get(), "a");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t, const char **) {
        EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
        return DAG_WALK_PENDING;
    };
    auto o = options();
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    EXPECT_EQ(dag_walk_wait(w, nullptr, nullptr), DAG_E_CANCELLED);
    EXPECT_EQ(dag_walk_complete(w, a, DAG_WALK_OK, nullptr, nullptr), DAG_E_CANCELLED);
}

TEST(WalkApi, ObserverSeesEveryEventWithCounts) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    dag_connect(g.get(), b, a, nullptr);
    add(g.get(), "d");
    (void)c;
    struct Seen {
        std::mutex mu;
        std::vector<std::tuple<dag_walk_event, uint64_t, dag_vertex_status, size_t, size_t>> events;
    } seen;
    auto o = options();
    o.observer = [](dag_walker *, dag_walk_event ev, uint64_t v, dag_vertex_status st, size_t running, size_t done,
                    size_t total, void *user) {
        auto *s = static_cast<Seen *>(user);
        EXPECT_EQ(total, 4u);
        EXPECT_LE(done, total);
        EXPECT_LE(running, 10u);
        std::lock_guard<std::mutex> lk(s->mu);
        s->events.emplace_back(ev, v, st, done, running);
    };
    o.observer_data = &seen;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v == a ? DAG_WALK_FAILED : DAG_WALK_OK; };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    int started = 0, finished = 0, skipped = 0;
    size_t max_done = 0;
    for (auto &[ev, v, st, done, running] : seen.events) {
        started += ev == DAG_WALK_EVENT_STARTED;
        finished += ev == DAG_WALK_EVENT_FINISHED;
        if (ev == DAG_WALK_EVENT_SKIPPED) {
            ++skipped;
            EXPECT_EQ(v, b);
            EXPECT_EQ(st, DAG_VERTEX_UPSTREAM_FAILED);
        }
        max_done = std::max(max_done, done);
    }
    EXPECT_EQ(started, 3);
    EXPECT_EQ(finished, 3);
    EXPECT_EQ(skipped, 1);
    EXPECT_EQ(max_done, 4u);
}

TEST(WalkApi, BadInput) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    Recorder rec;
    auto o = options();
    auto bad = o;
    bad.size = 8;  // smaller than any released layout
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); });
    // A size never set: refused before anything past the struct is read
    // (it was scanned for non-zero bytes, up to the size).
    bad = o;
    bad.size = 4097;
    EXPECT_NE(expect_error(DAG_E_INVALID_ARGUMENT,
                           [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); })
                  .find("opts->size is 4097, larger than 4096 bytes"),
              std::string::npos);
    bad = o;
    bad.threads = DAG_WALK_MAX_THREADS + 1;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); });
    bad = o;
    bad.parallelism = 0;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); });
    bad = o;
    bad.failure_policy = static_cast<dag_failure_policy>(7);
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); });
    bad = o;
    bad.always_run_count = 1;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); });
    uint64_t ghost = 77;
    bad.always_run = &ghost;
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &bad, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), nullptr, &rec, &o, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk(nullptr, record_cb, &rec, &o, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_start(g.get(), record_cb, &rec, &o, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_wait(nullptr, nullptr, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_cancel(nullptr, e); });
    EXPECT_TRUE(rec.ran().empty());
    // Nothing above left the graph busy; NULL options mean the defaults.
    EXPECT_EQ(dag_walk(g.get(), record_cb, &rec, nullptr, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a}));
    dag_walk_free(nullptr);
    dag_walk_report_free(nullptr);
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_options_init(nullptr, sizeof(dag_walk_options), e); });
    dag_walk_options small;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_options_init(&small, 8, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_options_init(&small, 4097, e); });
    EXPECT_EQ(dag_walk_report_size(nullptr), 0u);
    EXPECT_EQ(dag_walk_report_first_error(nullptr, nullptr), DAG_NO_VERTEX);
    EXPECT_STREQ(dag_status_string(DAG_E_WALK_FAILED), "walk failed");
    EXPECT_STREQ(dag_vertex_status_string(DAG_VERTEX_UPSTREAM_FAILED), "upstream-failed");
}

TEST(WalkApi, InvalidCallbackResultFailsTheVertex) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    Recorder rec;
    rec.body = [](dag_walker *, uint64_t, const char **) { return static_cast<dag_walk_result>(42); };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_NE(message_of(report.get(), a).find("not a dag_walk_result"), std::string::npos);
}

TEST(WalkApi, WaitFromInsideItsOwnCallbackIsRefused) {
    auto g = new_graph();
    add(g.get(), "a");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t, const char **) {
        expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_wait(w, nullptr, e); });
        return DAG_WALK_OK;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
}

TEST(WalkApi, ManySmallWalks) {
    // The size, in every build: sanitizers included.
    const int walks = 10000;
    auto g = new_graph();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 8; ++i) ids.push_back(add(g.get(), nullptr));
    for (int i = 1; i < 8; ++i) dag_connect(g.get(), ids[i], ids[(i - 1) / 2], nullptr);
    std::atomic<size_t> calls{0};
    auto o = options(4, 2);
    for (int i = 0; i < walks; ++i) {
        ASSERT_EQ(dag_walk(
                      g.get(),
                      [](dag_walker *, uint64_t, const char **, void *u) {
                          ++*static_cast<std::atomic<size_t> *>(u);
                          return DAG_WALK_OK;
                      },
                      &calls, &o, nullptr, nullptr),
                  DAG_OK);
    }
    EXPECT_EQ(calls.load(), static_cast<size_t>(walks) * 8);
}


TEST(WalkApi, AlwaysRunCountsNoArrayCanHoldAreRefused) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    Recorder rec;
    auto o = options();
    o.always_run = &a;
    for (size_t count : {SIZE_MAX, SIZE_MAX / 4, SIZE_MAX / 8 + 1, size_t{PTRDIFF_MAX} / sizeof(uint64_t) + 1}) {
        o.always_run_count = count;
        std::string msg = expect_error(DAG_E_INVALID_ARGUMENT,
                                       [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &o, nullptr, e); });
        EXPECT_NE(msg.find(std::to_string(count)), std::string::npos) << msg;
        dag_walker *w = nullptr;
        msg = expect_error(DAG_E_INVALID_ARGUMENT,
                           [&](dag_error **e) { return dag_walk_start(g.get(), record_cb, &rec, &o, &w, e); });
        WalkPtr started(w);
        EXPECT_EQ(w, nullptr);
        EXPECT_NE(msg.find(std::to_string(count)), std::string::npos) << msg;
    }
    EXPECT_TRUE(rec.ran().empty());
    // Nothing above left the graph busy.
    EXPECT_EQ(dag_connect(g.get(), a, a, nullptr), DAG_OK);
}

TEST(WalkApi, ThreadsAboveTheBoundAreRefused) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    Recorder rec;
    for (size_t threads : {size_t{DAG_WALK_MAX_THREADS} + 1, SIZE_MAX}) {
        auto o = options(10, threads);
        std::string msg = expect_error(DAG_E_INVALID_ARGUMENT,
                                       [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &o, nullptr, e); });
        EXPECT_NE(msg.find(std::to_string(DAG_WALK_MAX_THREADS)), std::string::npos) << msg;
        dag_walker *w = nullptr;
        expect_error(DAG_E_INVALID_ARGUMENT,
                     [&](dag_error **e) { return dag_walk_start(g.get(), record_cb, &rec, &o, &w, e); });
        WalkPtr started(w);
        EXPECT_EQ(w, nullptr);
    }
    EXPECT_TRUE(rec.ran().empty());
    // The bound itself is honoured, and parallelism has no bound of its own:
    // only threads cost anything up front.
    auto o = options(SIZE_MAX, DAG_WALK_MAX_THREADS);
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{a}));
}

// The header promises UTF-8 messages; a callback's bytes were copied as given.
TEST(WalkApi, ACallbacksMessageThatIsNotUtf8KeepsItsBytesAsText) {
    auto g = new_graph();
    const uint64_t a = add(g.get(), "a");
    Recorder rec;
    rec.body = [](dag_walker *, uint64_t, const char **message) {
        *message = "cb \xc3 msg";
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_EQ(message_of(report.get(), a), "cb \\xc3 msg");
}

TEST(WalkApi, CancelledMessageCountsOnlyVerticesThatNeverRan) {
    auto cancelled_message = [](dag_graph *g, Recorder &rec, const dag_walk_options &o, ReportPtr &report) {
        return expect_error(DAG_E_CANCELLED, [&](dag_error **e) {
            dag_walk_report *r = nullptr;
            const dag_status st = dag_walk(g, record_cb, &rec, &o, &r, e);
            report.reset(r);
            return st;
        });
    };
    // A callback that cancels its walk, then returns `result` (pending: leaves its vertex pending).
    auto cancel_then = [](dag_walk_result result) {
        return [result](dag_walker *w, uint64_t, const char **) {
            EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
            return result;
        };
    };
    const auto cancel_then_pend = cancel_then(DAG_WALK_PENDING);
    {
        // The only vertex ran, and was pending when the cancel came.
        auto g = new_graph();
        uint64_t p = add(g.get(), "p");
        Recorder rec;
        rec.body = cancel_then_pend;
        ReportPtr report;
        EXPECT_EQ(cancelled_message(g.get(), rec, options(), report),
                  "dag_walk: the walk was cancelled; 0 vertices never ran and 1 was cancelled after its callback ran");
        EXPECT_EQ(status_of(report.get(), p), DAG_VERTEX_CANCELLED);
    }
    {
        // a depends on p, which is cancelled while pending: a never starts.
        auto g = new_graph();
        uint64_t p = add(g.get(), "p"), a = add(g.get(), "a");
        ASSERT_EQ(dag_connect(g.get(), a, p, nullptr), DAG_OK);
        Recorder rec;
        rec.body = cancel_then_pend;
        ReportPtr report;
        EXPECT_EQ(cancelled_message(g.get(), rec, options(), report),
                  "dag_walk: the walk was cancelled; 1 vertex never ran and 1 was cancelled after its callback ran");
        EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{p}));
        EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_CANCELLED), 2u);
        // The report tells the two cancelled vertices apart.
        EXPECT_EQ(dag_walk_report_ran(report.get(), p), 1);
        EXPECT_EQ(dag_walk_report_ran(report.get(), a), 0);
    }
    {
        // Three independent vertices, one at a time: the first cancels and
        // finishes ok, the other two never start.
        auto g = new_graph();
        for (const char *name : {"x", "y", "z"}) add(g.get(), name);
        Recorder rec;
        rec.body = cancel_then(DAG_WALK_OK);
        ReportPtr report;
        EXPECT_EQ(cancelled_message(g.get(), rec, options(1, 1), report),
                  "dag_walk: the walk was cancelled; 2 vertices never ran");
        EXPECT_EQ(rec.ran().size(), 1u);
    }
    {
        // e's callback ran and expanded into a sub-walk that was cancelled
        // before its second vertex started.
        auto g = new_graph();
        uint64_t e = add(g.get(), "e");
        auto sub = new_graph();
        add(sub.get(), "s1");
        add(sub.get(), "s2");
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t v, const char **) {
            if (dag_walk_graph(w) == g.get()) {
                EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
            } else {
                EXPECT_EQ(dag_walk_cancel(w, nullptr), DAG_OK);
            }
            return DAG_WALK_OK;
        };
        ReportPtr report;
        EXPECT_EQ(cancelled_message(g.get(), rec, options(1, 1), report),
                  "dag_walk: the walk was cancelled; 0 vertices never ran and 1 was cancelled after its callback ran");
        EXPECT_EQ(status_of(report.get(), e), DAG_VERTEX_CANCELLED);
        EXPECT_EQ(dag_walk_report_ran(report.get(), e), 1);
        EXPECT_EQ(rec.ran().size(), 2u);
    }
    {
        // c -> b -> a; a fails and cancels: b and c, skipped as upstream
        // failed, never ran, which the message said of none.
        auto g = new_graph();
        const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
        ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
        ASSERT_EQ(dag_connect(g.get(), c, b, nullptr), DAG_OK);
        Recorder rec;
        rec.body = cancel_then(DAG_WALK_FAILED);
        ReportPtr report;
        EXPECT_EQ(cancelled_message(g.get(), rec, options(1, 1), report),
                  "dag_walk: the walk was cancelled; 2 vertices never ran");
        EXPECT_EQ(status_of(report.get(), b), DAG_VERTEX_UPSTREAM_FAILED);
        EXPECT_EQ(status_of(report.get(), c), DAG_VERTEX_UPSTREAM_FAILED);
    }
}

TEST(WalkApi, ReportSaysWhichVerticesRan) {
    // ok runs; bad runs and fails; its dependent up is skipped; always runs
    // although its dependency failed.
    auto g = new_graph();
    uint64_t ok = add(g.get(), "ok"), bad = add(g.get(), "bad"), up = add(g.get(), "up"),
             always = add(g.get(), "always");
    ASSERT_EQ(dag_connect(g.get(), up, bad, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), always, bad, nullptr), DAG_OK);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v == bad ? DAG_WALK_FAILED : DAG_WALK_OK; };
    auto o = options();
    o.always_run = &always;
    o.always_run_count = 1;
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(dag_walk_report_ran(report.get(), ok), 1);
    EXPECT_EQ(dag_walk_report_ran(report.get(), bad), 1);
    EXPECT_EQ(dag_walk_report_ran(report.get(), up), 0);
    EXPECT_EQ(dag_walk_report_ran(report.get(), always), 1);
    EXPECT_EQ(dag_walk_report_ran(report.get(), 99), 0);
    EXPECT_EQ(dag_walk_report_ran(nullptr, ok), 0);
}

}  // namespace

namespace {

// Releases `n` threads at once: the closest a test gets to simultaneous calls.
class Barrier {
public:
    explicit Barrier(int n) : n_(n) {}
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lk(mu_);
        const int round = round_;
        if (++arrived_ == n_) {
            arrived_ = 0;
            ++round_;
            cv_.notify_all();
            return;
        }
        cv_.wait(lk, [&] { return round_ != round; });
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    int n_, arrived_ = 0, round_ = 0;
};

}  // namespace

// The busy check and the busy mark are one step: of two dag_walk_start
// calls racing for one graph, exactly one wins, the other gets DAG_E_BUSY.
TEST(WalkApi, ConcurrentStartsOfOneGraphOneWins) {
    auto g = new_graph();
    add(g.get(), "a");
    const int trials = 2000;
    Barrier barrier(2);
    std::atomic<int> started{0}, busy{0};
    // The winner's walk runs until both calls have returned, so the loser
    // meets it running rather than finished.
    std::atomic<int> released{-1};
    auto starter = [&] {
        Recorder rec;
        int trial = 0;
        rec.body = [&](dag_walker *, uint64_t, const char **) {
            while (released.load() < trial) std::this_thread::yield();
            return DAG_WALK_OK;
        };
        for (int t = 0; t < trials; ++t, ++trial) {
            barrier.arrive_and_wait();
            auto o = options(1, 1);
            dag_walker *w = nullptr;
            const dag_status st = dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr);
            if (st == DAG_OK) ++started;
            if (st == DAG_E_BUSY) ++busy;
            barrier.arrive_and_wait();
            released.store(t);
            if (w) { EXPECT_EQ(dag_walk_wait(w, nullptr, nullptr), DAG_OK); }
            dag_walk_free(w);
            barrier.arrive_and_wait();
        }
    };
    std::thread one(starter), two(starter);
    one.join();
    two.join();
    EXPECT_EQ(started.load(), trials);
    EXPECT_EQ(busy.load(), trials);
}

TEST(WalkReportRead, ReadsEveryOutcomeInOneCallAsTheSingleCallsDo) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v != a) return DAG_WALK_OK;
        *msg = "a broke";
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    const dag_walk_report *r = report.get();

    // A caller built against a later header, with a bigger struct: the
    // bytes this library does not know come back zero.
    struct Later {
        dag_vertex_outcome known;
        uint64_t unknown;
    };
    std::vector<Later> out(4);
    for (auto &o : out) o.unknown = ~uint64_t{0};
    size_t n = 99;
    ASSERT_EQ(dag_walk_report_read(r, 0, &out[0].known, out.size(), sizeof(Later), &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 3u);
    EXPECT_EQ(out[3].unknown, ~uint64_t{0});  // not written
    std::vector<uint64_t> ids = {a, b, c};
    for (size_t i = 0; i < n; ++i) {
        const dag_vertex_outcome &o = out[i].known;
        EXPECT_EQ(o.vertex, ids[i]);
        EXPECT_EQ(out[i].unknown, 0u);
        EXPECT_EQ(o.status, status_of(r, o.vertex));
        EXPECT_EQ(std::string(o.message), message_of(r, o.vertex));
        EXPECT_EQ(o.ran, dag_walk_report_ran(r, o.vertex));
        int64_t start = -1, end = -1;
        ASSERT_EQ(dag_walk_report_vertex(r, o.vertex, nullptr, nullptr, &start, &end, nullptr), DAG_OK);
        EXPECT_EQ(o.start_ns, start);
        EXPECT_EQ(o.end_ns, end);
    }
    EXPECT_EQ(out[0].known.status, DAG_VERTEX_FAILED);
    EXPECT_STREQ(out[0].known.message, "a broke");
    EXPECT_EQ(out[1].known.status, DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(out[1].known.ran, 0);

    // A window, and past the end.
    dag_vertex_outcome one;
    ASSERT_EQ(dag_walk_report_read(r, 2, &one, 1, sizeof one, &n, nullptr), DAG_OK);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(one.vertex, c);
    ASSERT_EQ(dag_walk_report_read(r, 3, &one, 1, sizeof one, &n, nullptr), DAG_OK);
    EXPECT_EQ(n, 0u);
    ASSERT_EQ(dag_walk_report_read(r, 0, nullptr, 0, sizeof one, &n, nullptr), DAG_OK);
    EXPECT_EQ(n, 0u);

    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_report_read(nullptr, 0, &one, 1, sizeof one, &n, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_report_read(r, 0, nullptr, 1, sizeof one, &n, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_report_read(r, 0, &one, 1, sizeof one, nullptr, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_report_read(r, 0, &one, 1, sizeof one - 1, &n, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_walk_report_read(r, 0, &one, 1, SIZE_MAX / 2, &n, e); });
}

TEST(WalkEvents, SequenceNumbersOrderConsistentCountsFromEveryThread) {
    auto g = new_graph();
    std::vector<uint64_t> ids;
    std::mt19937 rng(7);
    for (int i = 0; i < 3000; ++i) {
        ids.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
        for (int k = 0; k < 2 && i > 0; ++k)
            dag_connect(g.get(), ids.back(), ids[std::uniform_int_distribution<int>(0, i - 1)(rng)], nullptr);
    }
    struct Seen {
        std::mutex mu;
        std::vector<dag_walk_event_info> events;
        std::atomic<size_t> plain{0};
    } seen;
    auto o = options(8, 8);
    o.event_observer = [](dag_walker *, const dag_walk_event_info *info, void *data) {
        auto *s = static_cast<Seen *>(data);
        EXPECT_EQ(info->size, sizeof(dag_walk_event_info));
        std::lock_guard<std::mutex> lk(s->mu);
        s->events.push_back(*info);
    };
    o.event_observer_data = &seen;
    o.observer = [](dag_walker *, dag_walk_event, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *data) {
        ++static_cast<Seen *>(data)->plain;
    };
    o.observer_data = &seen;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v % 97 == 0 ? DAG_WALK_FAILED : DAG_WALK_OK; };
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    // One started event per vertex that ran, one finished or skipped event per vertex.
    const size_t expected = rec.ran().size() + ids.size();
    ASSERT_EQ(seen.events.size(), expected);
    EXPECT_EQ(seen.plain.load(), expected);
    std::sort(seen.events.begin(), seen.events.end(),
              [](const auto &a, const auto &b) { return a.sequence < b.sequence; });
    size_t done = 0, total = 0;
    for (size_t i = 0; i < seen.events.size(); ++i) {
        const dag_walk_event_info &e = seen.events[i];
        ASSERT_EQ(e.sequence, i + 1);
        EXPECT_GE(e.done, done) << "sequence " << e.sequence;
        EXPECT_GE(e.total, total);
        EXPECT_LE(e.done, e.total);
        done = e.done;
        total = e.total;
    }
    EXPECT_EQ(done, ids.size());
}

TEST(WalkProgress, PolledCountsNeverGoBackAndLagByABatchAtMost) {
    // A chain of 200 vertices, then a gate: one pool thread runs the chain
    // with no observer, so it counts finished vertices in batches.
    auto g = new_graph();
    uint64_t prev = 0;
    std::vector<uint64_t> chain;
    for (int i = 0; i < 200; ++i) {
        uint64_t v = add(g.get(), ("c" + std::to_string(i)).c_str());
        if (prev) { ASSERT_EQ(dag_connect(g.get(), v, prev, nullptr), DAG_OK); }
        chain.push_back(prev = v);
    }
    uint64_t gate = add(g.get(), "gate");
    ASSERT_EQ(dag_connect(g.get(), gate, prev, nullptr), DAG_OK);
    for (int i = 0; i < 100; ++i) {
        uint64_t v = add(g.get(), ("after" + std::to_string(i)).c_str());
        ASSERT_EQ(dag_connect(g.get(), v, gate, nullptr), DAG_OK);
    }
    Latch at_gate, open;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        if (v == gate) {
            at_gate.set();
            open.wait();
        }
        return DAG_WALK_OK;
    };
    auto o = options(1, 1);
    dag_walker *w = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
    WalkPtr walk(w);
    ASSERT_TRUE(at_gate.wait());
    size_t done = 0, total = 0;
    ASSERT_EQ(dag_walk_progress(w, &done, &total, nullptr), DAG_OK);
    EXPECT_EQ(total, 301u);
    EXPECT_LE(done, 200u);
    EXPECT_GE(done, 200u - 64u);
    std::atomic<bool> stop{false};
    std::thread poller([&] {
        size_t last = 0;
        while (!stop) {
            size_t d = 0, t = 0;
            ASSERT_EQ(dag_walk_progress(w, &d, &t, nullptr), DAG_OK);
            EXPECT_GE(d, last);
            EXPECT_LE(d, t);
            last = d;
        }
    });
    open.set();
    EXPECT_EQ(dag_walk_wait(w, nullptr, nullptr), DAG_OK);
    stop = true;
    poller.join();
    ASSERT_EQ(dag_walk_progress(w, &done, &total, nullptr), DAG_OK);
    EXPECT_EQ(done, 301u);
    EXPECT_EQ(total, 301u);
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_progress(nullptr, &done, &total, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_progress(w, nullptr, &total, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_progress(w, &done, nullptr, e); });
}

// A walk asked for no report builds none; its status and message must be
// what they are with one.
TEST(WalkWithoutReport, StatusAndMessageAreThoseOfAWalkWithAReport) {
    for (unsigned seed = 1; seed <= 8; ++seed) {
        auto g = new_graph();
        std::vector<uint64_t> ids;
        std::mt19937 rng(seed);
        for (int i = 0; i < 300; ++i) {
            ids.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
            if (i > 0) dag_connect(g.get(), ids.back(), ids[std::uniform_int_distribution<int>(0, i - 1)(rng)], nullptr);
        }
        const uint64_t fail_every = 5 + seed, cancel_at = seed % 2 ? ids[150] : 0;
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
            if (v == cancel_at) dag_walk_cancel(w, nullptr);
            if (v % fail_every) return DAG_WALK_OK;
            *msg = "broke";
            return DAG_WALK_FAILED;
        };
        auto o = options(1, 1);  // one at a time: both walks take the same course
        dag_error *with_err = nullptr, *without_err = nullptr;
        dag_walk_report *r = nullptr;
        const dag_status with = dag_walk(g.get(), record_cb, &rec, &o, &r, &with_err);
        ReportPtr owned(r);
        const dag_status without = dag_walk(g.get(), record_cb, &rec, &o, nullptr, &without_err);
        EXPECT_EQ(without, with) << "seed " << seed;
        EXPECT_NE(with, DAG_OK);
        ASSERT_TRUE(with_err && without_err);
        EXPECT_STREQ(dag_error_message(without_err), dag_error_message(with_err));
        dag_error_free(with_err);
        dag_error_free(without_err);
    }
}

// The report keeps messages by vertex, for vertices of the graph and those
// an update added alike.
TEST(WalkReportMessages, AddedAndRemovedVerticesKeepTheirOwnMessages) {
    GatedWalk gw;
    const uint64_t z = gw.vertex("z"), keep = gw.vertex("keep");
    gw.rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v == gw.gate) {
            gw.entered.set();
            gw.opened.wait();
            return DAG_WALK_OK;
        }
        const char *name = "";
        dag_vertex_name(gw.g.get(), v, &name, nullptr);
        if (std::string(name) == "x" || v == keep) {
            *msg = v == keep ? "keep broke" : "x broke";
            return DAG_WALK_FAILED;
        }
        return DAG_WALK_OK;
    };
    gw.start();
    dag_walk_update *u = nullptr;
    ASSERT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    UpdatePtr owned(u);
    uint64_t px = 0, py = 0;
    ASSERT_EQ(dag_walk_update_add_vertex(u, "x", nullptr, 0, &px, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_update_add_vertex(u, "y", nullptr, 0, &py, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_update_connect(u, px, gw.gate, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_update_connect(u, py, gw.gate, nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_update_remove_vertex(u, z, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_walk_apply(gw.walk.get(), u, &ids, nullptr), DAG_OK);
    const std::vector<uint64_t> added = take_ids(ids);
    ASSERT_EQ(added.size(), 2u);
    gw.opened.set();
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(gw.walk.get(), &r, nullptr), DAG_E_WALK_FAILED);
    ReportPtr report(r);
    EXPECT_EQ(message_of(r, added[0]), "x broke");
    EXPECT_EQ(status_of(r, added[0]), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r, added[1]), "");
    EXPECT_EQ(status_of(r, added[1]), DAG_VERTEX_OK);
    EXPECT_EQ(message_of(r, keep), "keep broke");
    EXPECT_NE(message_of(r, z).find("removed"), std::string::npos) << message_of(r, z);
    EXPECT_EQ(message_of(r, gw.gate), "");
    EXPECT_EQ(dag_walk_report_size(r), 5u);
}
