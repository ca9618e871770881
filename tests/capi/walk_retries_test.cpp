// Retries of failed vertices: a failed attempt is tried again before its
// dependents are skipped; the report counts the attempts and keeps each
// one's message; back-offs hold no slot; cancel stops them.
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "walk_test_support.hpp"

namespace {

size_t attempts_of(const dag_walk_report *r, uint64_t v) {
    size_t n = 99;
    EXPECT_EQ(dag_walk_report_attempts(r, v, &n, nullptr), DAG_OK);
    return n;
}

std::string attempt_message(const dag_walk_report *r, uint64_t v, size_t i) {
    const char *m = nullptr;
    EXPECT_EQ(dag_walk_report_attempt_message(r, v, i, &m, nullptr), DAG_OK);
    return m ? m : "(null)";
}

// A pull walk of `g` begun with `o`, with its first `count` vertices handed
// out (all ready at once in these tests).
WalkPtr begin_handing_out(dag_graph *g, const dag_walk_options &o, size_t count) {
    dag_walker *raw = nullptr;
    EXPECT_EQ(dag_walk_begin(g, &o, &raw, nullptr), DAG_OK);
    WalkPtr w(raw);
    std::set<uint64_t> out;
    uint64_t got[4];
    dag_walker *walks[4];
    size_t n = 0;
    while (raw && out.size() < count) {
        if (dag_walk_next_ready(raw, got, walks, 4, 10000, &n, nullptr) != DAG_OK || n == 0) {
            ADD_FAILURE() << "no vertex handed out after " << out.size();
            break;
        }
        out.insert(got, got + n);
    }
    return w;
}

// flaky fails its first two attempts, then succeeds; its dependent runs
// after it, once. stubborn always fails: three attempts, then its dependent
// is skipped. Per-vertex counts override the walk's.
TEST(WalkRetries, FailedAttemptsAreTriedAgainBeforeDependentsAreSkipped) {
    auto g = new_graph();
    const uint64_t flaky = add(g.get(), "flaky"), after = add(g.get(), "after");
    const uint64_t stubborn = add(g.get(), "stubborn"), skipped = add(g.get(), "skipped");
    const uint64_t once = add(g.get(), "once");
    ASSERT_EQ(dag_connect(g.get(), after, flaky, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), skipped, stubborn, nullptr), DAG_OK);
    std::mutex mu;
    std::map<uint64_t, int> calls;
    std::vector<std::string> messages = {"first", "second", "third"};
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        int n;
        {
            std::lock_guard<std::mutex> lk(mu);
            n = calls[v]++;
        }
        if (v == flaky && n < 2) {
            *msg = messages[n].c_str();
            return DAG_WALK_FAILED;
        }
        if (v == stubborn || v == once) {
            *msg = messages[std::min(n, 2)].c_str();
            return DAG_WALK_FAILED;
        }
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(2, 2);
    o.retries = 2;
    o.retry_delay_ms = 1;
    o.retry_doubling = 1;
    const uint64_t retry_vertices[] = {once};
    const size_t retry_counts[] = {0};
    o.retry_vertices = retry_vertices;
    o.retry_counts = retry_counts;
    o.retry_vertex_count = 1;
    ReportPtr report;
    ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(calls[flaky], 3);
    EXPECT_EQ(calls[after], 1);
    EXPECT_EQ(calls[stubborn], 3);
    EXPECT_EQ(calls[skipped], 0);
    EXPECT_EQ(calls[once], 1);
    EXPECT_EQ(status_of(report.get(), flaky), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(report.get(), after), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(report.get(), stubborn), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(report.get(), skipped), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(message_of(report.get(), stubborn), "third");
    // The order says the dependent waited for the successful attempt.
    const std::vector<uint64_t> order = rec.ran();
    size_t last_flaky = 0, first_after = order.size();
    for (size_t i = 0; i < order.size(); ++i) {
        if (order[i] == flaky) last_flaky = i;
        if (order[i] == after && first_after == order.size()) first_after = i;
    }
    EXPECT_LT(last_flaky, first_after);

    EXPECT_EQ(attempts_of(report.get(), flaky), 3u);
    EXPECT_EQ(attempt_message(report.get(), flaky, 0), "first");
    EXPECT_EQ(attempt_message(report.get(), flaky, 1), "second");
    EXPECT_EQ(attempt_message(report.get(), flaky, 2), "");
    EXPECT_EQ(attempts_of(report.get(), stubborn), 3u);
    EXPECT_EQ(attempt_message(report.get(), stubborn, 2), "third");
    EXPECT_EQ(attempts_of(report.get(), after), 1u);
    EXPECT_EQ(attempt_message(report.get(), after, 0), "");
    EXPECT_EQ(attempts_of(report.get(), once), 1u);
    EXPECT_EQ(attempt_message(report.get(), once, 0), "first");
    EXPECT_EQ(attempts_of(report.get(), skipped), 0u);
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) {
        const char *m = nullptr;
        return dag_walk_report_attempt_message(report.get(), flaky, 3, &m, e);
    });
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) {
        size_t n = 0;
        return dag_walk_report_attempts(report.get(), 9999, &n, e);
    });
}

// A vertex waiting out a long back-off holds no slot: at parallelism 1 the
// other vertices all run meanwhile. Cancelling then ends it failed with its
// message at once, without another attempt.
TEST(WalkRetries, BackOffHoldsNoSlotAndCancelStopsRetries) {
    auto g = new_graph();
    const uint64_t flaky = add(g.get(), "flaky");
    std::vector<uint64_t> others;
    for (int i = 0; i < 5; ++i) others.push_back(add(g.get(), ("o" + std::to_string(i)).c_str()));
    std::atomic<int> flaky_calls{0}, others_done{0};
    Latch all_others;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v == flaky) {
            ++flaky_calls;
            *msg = "down";
            return DAG_WALK_FAILED;
        }
        if (++others_done == 5) all_others.set();
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(1, 1);
    o.retries = 5;
    o.retry_delay_ms = 3600 * 1000;  // an hour: only a cancel ends it
    dag_walker *raw = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &raw, nullptr), DAG_OK);
    WalkPtr w(raw);
    ASSERT_TRUE(all_others.wait());
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    dag_walk_report *r = nullptr;
    dag_walk_wait(w.get(), &r, nullptr);
    ReportPtr report(r);
    EXPECT_EQ(flaky_calls.load(), 1);
    EXPECT_EQ(status_of(report.get(), flaky), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(report.get(), flaky), "down");
    EXPECT_EQ(attempts_of(report.get(), flaky), 1u);
    for (uint64_t v : others) EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_OK);
}

// A vertex waiting out its back-off does not count as running (it holds no
// slot); ended by a cancel, it is not counted out a second time: the
// observer's `running` stays within the vertices really running (it wrapped
// to SIZE_MAX). In pull mode, so that flaky is in its back-off when the
// cancel comes: its failed completion has returned (a callback that failed
// could still be returning, on a busy machine, when the cancel came).
TEST(WalkRetries, AVertexEndedDuringItsBackOffIsCountedOutOfTheRunningOnce) {
    auto g = new_graph();
    const uint64_t flaky = add(g.get(), "flaky"), slow = add(g.get(), "slow");
    struct Seen {
        std::mutex mu;
        std::map<uint64_t, size_t> running_at_finish;
        size_t most = 0;
    } seen;
    dag_walk_options o = options(2, 2);
    o.retries = 3;
    o.retry_delay_ms = 3600 * 1000;
    o.observer = [](dag_walker *, dag_walk_event ev, uint64_t v, dag_vertex_status, size_t running, size_t, size_t,
                    void *data) {
        auto &s = *static_cast<Seen *>(data);
        std::lock_guard<std::mutex> lk(s.mu);
        s.most = std::max(s.most, running);
        if (ev == DAG_WALK_EVENT_FINISHED) s.running_at_finish[v] = running;
    };
    o.observer_data = &seen;
    WalkPtr w = begin_handing_out(g.get(), o, 2);
    ASSERT_FALSE(::testing::Test::HasFailure());
    // flaky's first attempt fails: it waits out its back-off (an hour), and
    // slow, still out, is the one running when the cancel comes.
    ASSERT_EQ(dag_walk_complete(w.get(), flaky, DAG_WALK_FAILED, "down", nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
    ASSERT_EQ(dag_walk_complete(w.get(), slow, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
    dag_walk_report *r = nullptr;
    dag_walk_wait(w.get(), &r, nullptr);
    ReportPtr report(r);
    EXPECT_EQ(status_of(report.get(), flaky), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(report.get(), slow), DAG_VERTEX_OK);
    EXPECT_LE(seen.most, 2u);
    EXPECT_EQ(seen.running_at_finish.at(slow), 0u);
    EXPECT_LE(seen.running_at_finish.at(flaky), 1u);  // slow may still be out
}

// A pull walk's observer runs on the threads that hand out, complete or
// cancel: a vertex waiting out its back-off as the walk stops (a cancel, or
// fail fast after another vertex's failure) is settled by the thread that
// stopped it. It was settled on libdag's retry timer thread.
TEST(WalkRetries, APullWalkStoppedDuringABackOffSettlesItOnTheStoppingThread) {
    for (bool fail_fast : {false, true}) {
        SCOPED_TRACE(fail_fast ? "fail fast" : "cancel");
        auto g = new_graph();
        const uint64_t flaky = add(g.get(), "flaky"), other = add(g.get(), "other");
        struct Seen {
            std::mutex mu;
            std::map<uint64_t, std::thread::id> finished_on;
        } seen;
        dag_walk_options o = options(2, 2);
        o.retries = 1;
        o.retry_delay_ms = 3600 * 1000;
        // other is not tried again: its failure stops a fail-fast walk.
        const size_t none = 0;
        if (fail_fast) {
            o.failure_policy = DAG_FAILURE_FAIL_FAST;
            o.retry_vertices = &other;
            o.retry_counts = &none;
            o.retry_vertex_count = 1;
        }
        o.observer = [](dag_walker *, dag_walk_event ev, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                        void *data) {
            auto &s = *static_cast<Seen *>(data);
            std::lock_guard<std::mutex> lk(s.mu);
            if (ev == DAG_WALK_EVENT_FINISHED) s.finished_on[v] = std::this_thread::get_id();
        };
        o.observer_data = &seen;
        WalkPtr w = begin_handing_out(g.get(), o, 2);
        ASSERT_FALSE(::testing::Test::HasFailure());
        ASSERT_EQ(dag_walk_complete(w.get(), flaky, DAG_WALK_FAILED, "down", nullptr), DAG_OK);
        if (fail_fast) {
            ASSERT_EQ(dag_walk_complete(w.get(), other, DAG_WALK_FAILED, "down too", nullptr), DAG_OK);
        } else {
            ASSERT_EQ(dag_walk_cancel(w.get(), nullptr), DAG_OK);
            ASSERT_EQ(dag_walk_complete(w.get(), other, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
        }
        dag_walk_report *r = nullptr;
        dag_walk_wait_for(w.get(), 10000, &r, nullptr);
        ReportPtr report(r);
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(status_of(report.get(), flaky), DAG_VERTEX_FAILED);
        std::lock_guard<std::mutex> lk(seen.mu);
        ASSERT_EQ(seen.finished_on.count(flaky), 1u);
        EXPECT_EQ(seen.finished_on.at(flaky), std::this_thread::get_id());
    }
}

// The observer of a hand-out cancels the walk while a vertex waits out its
// back-off, and the vertex handed out holds the one slot: the hand-out
// settles the waiting retry and returns what it handed out at once. It
// waited for a slot (the one its own vertex held) until its time limit,
// for ever without one.
TEST(WalkRetries, AHandOutThatStopsTheWalkDuringABackOffReturnsWhatItHandedOut) {
    auto g = new_graph();
    const uint64_t first = add(g.get(), "a"), second = add(g.get(), "b");
    struct Arm {
        dag_walker *walk = nullptr;
        std::atomic<bool> armed{false};
    } arm;
    dag_walk_options o = options(1, 1);
    o.retries = 1;
    o.retry_delay_ms = 3600 * 1000;
    o.observer = [](dag_walker *, dag_walk_event ev, uint64_t, dag_vertex_status, size_t, size_t, size_t, void *data) {
        auto &a = *static_cast<Arm *>(data);
        if (ev == DAG_WALK_EVENT_STARTED && a.armed.exchange(false)) EXPECT_EQ(dag_walk_cancel(a.walk, nullptr), DAG_OK);
    };
    o.observer_data = &arm;
    dag_walker *raw = nullptr;
    ASSERT_EQ(dag_walk_begin(g.get(), &o, &raw, nullptr), DAG_OK);
    WalkPtr w(raw);
    arm.walk = raw;
    uint64_t got = 0;
    dag_walker *handed = nullptr;
    size_t n = 0;
    ASSERT_EQ(dag_walk_next_ready(raw, &got, &handed, 1, 10000, &n, nullptr), DAG_OK);
    ASSERT_EQ(n, 1u);
    const uint64_t flaky = got, other = got == first ? second : first;
    ASSERT_EQ(dag_walk_complete(raw, flaky, DAG_WALK_FAILED, "down", nullptr), DAG_OK);
    arm.armed = true;
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(dag_walk_next_ready(raw, &got, &handed, 1, 10000, &n, nullptr), DAG_OK);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(got, other);
    ASSERT_EQ(dag_walk_complete(raw, other, DAG_WALK_CANCELLED, nullptr, nullptr), DAG_OK);
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait_for(raw, 10000, &r, nullptr), DAG_E_CANCELLED);
    ReportPtr report(r);
    EXPECT_EQ(status_of(report.get(), flaky), DAG_VERTEX_FAILED);
}

// In pull mode the vertex is handed out again for each attempt.
TEST(WalkRetries, PullModeHandsAFailedVertexOutAgain) {
    auto g = new_graph();
    const uint64_t flaky = add(g.get(), "flaky"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), after, flaky, nullptr), DAG_OK);
    std::atomic<int> calls{0};
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v == flaky && calls++ < 3) {
            *msg = "not yet";
            return DAG_WALK_FAILED;
        }
        return DAG_WALK_OK;
    };
    dag_walk_options o = options(2, 2);
    o.retries = 3;
    dag_walk_report *r = nullptr;
    ASSERT_EQ(pull_walk(g.get(), record_cb, &rec, o, &r), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(attempts_of(report.get(), flaky), 4u);
    EXPECT_EQ(attempt_message(report.get(), flaky, 2), "not yet");
    EXPECT_EQ(status_of(report.get(), after), DAG_VERTEX_OK);
}

// A vertex whose first attempt failed has started, also once its back-off
// has passed and it waits in the queue for its next attempt: an update may
// not remove it or make it wait. At parallelism 1, b holds the one slot
// past a's back-off of 1 ms, so a is queued again when b's update comes
// (were the timer late, a would still be retrying: refused either way).
TEST(WalkRetries, AVertexWaitingToBeTriedAgainCannotBeRemovedOrHeldBack) {
    for (const bool remove : {true, false}) {
        SCOPED_TRACE(remove ? "remove it" : "make it wait");
        auto g = new_graph();
        const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
        std::atomic<int> a_calls{0};
        std::string refusal;
        dag_status applied = DAG_OK;
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
            if (v == a) {
                if (a_calls++ == 0) {
                    *msg = "first attempt";
                    return DAG_WALK_FAILED;
                }
                return DAG_WALK_OK;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            dag_walk_update *up = nullptr;
            EXPECT_EQ(dag_walk_update_new(&up, nullptr), DAG_OK);
            if (remove) {
                EXPECT_EQ(dag_walk_update_remove_vertex(up, a, nullptr), DAG_OK);
            } else {
                uint64_t n = 0;
                EXPECT_EQ(dag_walk_update_add_vertex(up, "n", nullptr, 0, &n, nullptr), DAG_OK);
                EXPECT_EQ(dag_walk_update_connect(up, a, n, nullptr), DAG_OK);
            }
            dag_error *err = nullptr;
            applied = dag_walk_apply(w, up, nullptr, &err);
            if (err) refusal = dag_error_message(err);
            dag_error_free(err);
            dag_walk_update_free(up);
            return DAG_WALK_OK;
        };
        dag_walk_options o = options(1, 1);
        o.priority = DAG_PRIORITY_NAME;
        o.retries = 2;
        o.retry_delay_ms = 1;
        ReportPtr report;
        ASSERT_EQ(run_walk(g.get(), rec, o, report), DAG_OK);
        EXPECT_EQ(applied, DAG_E_STATE) << refusal;
        EXPECT_NE(refusal.find("has already started"), std::string::npos) << refusal;
        EXPECT_EQ(a_calls.load(), 2);
        EXPECT_EQ(status_of(report.get(), a), DAG_VERTEX_OK);
        EXPECT_TRUE(dag_walk_report_ran(report.get(), a));
        EXPECT_EQ(attempts_of(report.get(), a), 2u);
    }
}

TEST(WalkRetries, UnknownRetryVertexIsRefused) {
    auto g = new_graph();
    const uint64_t v = add(g.get(), "v");
    dag_walk_options o = options(2, 2);
    const uint64_t ids[] = {v + 100};
    const size_t counts[] = {1};
    o.retry_vertices = ids;
    o.retry_counts = counts;
    o.retry_vertex_count = 1;
    Recorder rec;
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &o, nullptr, e); });
    o.retry_vertices = nullptr;
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk(g.get(), record_cb, &rec, &o, nullptr, e); });
    EXPECT_TRUE(rec.ran().empty());
}

}  // namespace
