// dag_walk_fail: a vertex failed with a message copied at once, from inside
// its callback or for a pending vertex.
#include "walk_test_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

namespace {

// Fails `v` with `text` from a heap buffer that is scribbled over and freed
// before the callback returns.
dag_status fail_from_freed_buffer(dag_walker *w, uint64_t v, const std::string &text) {
    char *buf = static_cast<char *>(std::malloc(text.size() + 1));
    std::memcpy(buf, text.c_str(), text.size() + 1);
    const dag_status st = dag_walk_fail(w, v, buf, nullptr);
    std::memset(buf, 'X', text.size());
    std::free(buf);
    return st;
}

}  // namespace

TEST(CapiWalkFail, TheMessageOutlivesTheCallersBuffer) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
        if (v != b) return DAG_WALK_OK;
        EXPECT_EQ(fail_from_freed_buffer(w, v, "disk full"), DAG_OK);
        // Even a message left in *message gives way to the copied one.
        *msg = "ignored";
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    dag_error *err = nullptr;
    dag_walk_report *r = nullptr;
    dag_walk_options o = options();
    EXPECT_EQ(dag_walk(g.get(), record_cb, &rec, &o, &r, &err), DAG_E_WALK_FAILED);
    report.reset(r);
    EXPECT_STREQ(dag_error_message(err), "dag_walk: vertex b failed: disk full");
    dag_error_free(err);
    EXPECT_EQ(status_of(r, b), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r, b), "disk full");
    EXPECT_EQ(status_of(r, a), DAG_VERTEX_UPSTREAM_FAILED);
    const char *first = nullptr;
    EXPECT_EQ(dag_walk_report_first_error(r, &first), b);
    EXPECT_STREQ(first, "vertex b failed: disk full");
    EXPECT_EQ(dag_walk_report_ran(r, b), 1);
}

TEST(CapiWalkFail, TheVertexFailsWhateverTheCallbackReturns) {
    // 7 is no dag_walk_result, as a C callback may return: kept as an int,
    // since loading it from an enum variable is what UBSan flags.
    for (int returned : {int{DAG_WALK_OK}, int{DAG_WALK_FAILED}, int{DAG_WALK_PENDING}, 7}) {
        GraphPtr g = new_graph();
        const uint64_t v = add(g.get(), "v");
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t id, const char **) {
            EXPECT_EQ(dag_walk_fail(w, id, "no", nullptr), DAG_OK);
            return static_cast<dag_walk_result>(returned);
        };
        ReportPtr report;
        EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED) << returned;
        EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_FAILED) << returned;
        EXPECT_EQ(message_of(report.get(), v), "no") << returned;
    }
}

TEST(CapiWalkFail, ANullMessageFailsWithout) {
    GraphPtr g = new_graph();
    const uint64_t v = add(g.get(), "v");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t id, const char **) {
        EXPECT_EQ(dag_walk_fail(w, id, nullptr, nullptr), DAG_OK);
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_EQ(message_of(report.get(), v), "");
    const char *first = nullptr;
    EXPECT_EQ(dag_walk_report_first_error(report.get(), &first), v);
    EXPECT_STREQ(first, "vertex v failed");
}

TEST(CapiWalkFail, OncePerVertexAndNotWithExpansion) {
    GraphPtr g = new_graph();
    const uint64_t failed = add(g.get(), "failed"), expanded = add(g.get(), "expanded");
    GraphPtr sub = new_graph();
    add(sub.get(), "inner");
    Recorder rec;
    std::vector<dag_status> seen;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (dag_walk_graph(w) != g.get()) return DAG_WALK_OK;  // the sub-walk's vertex
        std::lock_guard<std::mutex> lk(rec.mu);
        if (v == failed) {
            seen.push_back(dag_walk_fail(w, v, "first", nullptr));
            seen.push_back(dag_walk_fail(w, v, "second", nullptr));
            seen.push_back(dag_walk_complete(w, v, DAG_WALK_OK, nullptr, nullptr));
            seen.push_back(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr));
        } else {
            seen.push_back(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr));
            seen.push_back(dag_walk_fail(w, v, "late", nullptr));
        }
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<dag_status>{DAG_E_STATE, DAG_E_STATE, DAG_E_STATE, DAG_E_STATE, DAG_OK, DAG_OK}));
    EXPECT_EQ(message_of(report.get(), failed), "first");
    EXPECT_EQ(status_of(report.get(), expanded), DAG_VERTEX_OK) << "the expansion decides";
}

// After the callback completed its own vertex, a dag_walk_fail() of it is
// refused (it failed the vertex over the completion).
TEST(CapiWalkFail, AfterTheCallbacksOwnCompletionItIsRefused) {
    GraphPtr g = new_graph();
    const uint64_t v = add(g.get(), "v");
    Recorder rec;
    std::vector<dag_status> seen;
    rec.body = [&](dag_walker *w, uint64_t id, const char **) {
        seen.push_back(dag_walk_complete(w, id, DAG_WALK_OK, nullptr, nullptr));
        seen.push_back(dag_walk_fail(w, id, "after its own completion", nullptr));
        return DAG_WALK_PENDING;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(seen, (std::vector<dag_status>{DAG_OK, DAG_E_STATE}));
    EXPECT_EQ(status_of(report.get(), v), DAG_VERTEX_OK);
}

// An expansion after the callback's own dag_walk_fail() or dag_walk_complete()
// is refused saying so (it said the vertex could be expanded only from inside
// its own callback, where it was called).
TEST(CapiWalkFail, AnExpansionAfterTheCallbacksOwnFailureOrCompletionSaysWhy) {
    GraphPtr g = new_graph();
    const uint64_t failed = add(g.get(), "failed"), completed = add(g.get(), "completed");
    GraphPtr sub = new_graph();
    add(sub.get(), "inner");
    Recorder rec;
    std::map<uint64_t, std::string> refusals;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (dag_walk_graph(w) != g.get()) return DAG_WALK_OK;
        EXPECT_EQ(v == failed ? dag_walk_fail(w, v, "no", nullptr) : dag_walk_complete(w, v, DAG_WALK_OK, nullptr, nullptr),
                  DAG_OK);
        dag_error *err = nullptr;
        EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, &err), DAG_E_STATE);
        std::lock_guard<std::mutex> lk(rec.mu);
        refusals[v] = dag_error_message(err);
        dag_error_free(err);
        return DAG_WALK_PENDING;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    // A pull walk's host is no callback: there the walk refuses in its own
    // words (or, once both are complete, says it has finished).
    if (!pull_mode()) {
        const auto refusal = [](uint64_t v, const std::string &by) {
            return "dag_walk_expand: vertex " + std::to_string(v) + " was already " + by +
                   " from its callback; it cannot be expanded after that";
        };
        EXPECT_EQ(refusals[failed], refusal(failed, "failed by dag_walk_fail()"));
        EXPECT_EQ(refusals[completed], refusal(completed, "completed by dag_walk_complete()"));
    }
    EXPECT_EQ(status_of(report.get(), failed), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(report.get(), completed), DAG_VERTEX_OK);
}

TEST(CapiWalkFail, ManyThreadsAtOnce) {
    // Parallelism 8: the first eight callbacks wait until all eight have
    // started, so that eight threads fail their vertices at the same time.
    GraphPtr g = new_graph();
    std::vector<uint64_t> v, dependents;
    for (int i = 0; i < 200; ++i) v.push_back(add(g.get(), nullptr));
    for (int i = 0; i < 50; ++i) {
        dependents.push_back(add(g.get(), nullptr));
        ASSERT_EQ(dag_connect(g.get(), dependents.back(), v[static_cast<size_t>(i) * 4 + 1], nullptr), DAG_OK);
    }
    std::mutex mu;
    std::condition_variable cv;
    size_t entered = 0;
    bool all_in = true;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t id, const char **) {
        {
            std::unique_lock<std::mutex> lk(mu);
            if (++entered <= 8) {
                cv.notify_all();
                all_in = cv.wait_for(lk, gate_limit, [&] { return entered >= 8; }) && all_in;
            }
        }
        if (id % 2 == 1) return DAG_WALK_OK;
        char buf[64];
        std::snprintf(buf, sizeof buf, "vertex %llu says no", static_cast<unsigned long long>(id));
        EXPECT_EQ(dag_walk_fail(w, id, buf, nullptr), DAG_OK);
        std::memset(buf, 0, sizeof buf);
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(8, 8), report), DAG_E_WALK_FAILED);
    EXPECT_TRUE(all_in) << "eight callbacks ran at once";
    size_t failed = 0;
    for (uint64_t id : v) {
        if (id % 2 == 1) {
            EXPECT_EQ(status_of(report.get(), id), DAG_VERTEX_OK) << id;
            continue;
        }
        ++failed;
        EXPECT_EQ(status_of(report.get(), id), DAG_VERTEX_FAILED) << id;
        EXPECT_EQ(message_of(report.get(), id), "vertex " + std::to_string(id) + " says no");
    }
    EXPECT_EQ(failed, 100u);
    EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_FAILED), 100u);
    for (uint64_t d : dependents) EXPECT_EQ(status_of(report.get(), d), DAG_VERTEX_UPSTREAM_FAILED) << d;
    const char *first = nullptr;
    const uint64_t f = dag_walk_report_first_error(report.get(), &first);
    EXPECT_EQ(std::string(first), "vertex " + std::to_string(f) + " failed: vertex " + std::to_string(f) + " says no");
}

TEST(CapiWalkFail, APendingVertexFromAnotherThread) {
    GraphPtr g = new_graph();
    const uint64_t p = add(g.get(), "p"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), after, p, nullptr), DAG_OK);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v == p ? DAG_WALK_PENDING : DAG_WALK_OK; };
    dag_walk_options o = options();
    EventLatch parked(DAG_WALK_EVENT_STARTED, p);
    parked.attach(o);
    dag_walker *raw = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &raw, nullptr), DAG_OK);
    WalkPtr walk(raw);
    ASSERT_TRUE(parked.wait());
    // Not yet known to be pending: the callback may still be running, and
    // then its PENDING lets this completion finish the vertex all the same.
    std::thread other([&] { EXPECT_EQ(fail_from_freed_buffer(walk.get(), p, "remote failure"), DAG_OK); });
    other.join();
    EXPECT_EQ(dag_walk_fail(walk.get(), p, "again", nullptr), DAG_E_STATE);
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(walk.get(), &r, nullptr), DAG_E_WALK_FAILED);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, p), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r, p), "remote failure");
    EXPECT_EQ(status_of(r, after), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(dag_walk_fail(walk.get(), p, "finished", nullptr), DAG_E_STATE);
}

// Another thread completed the vertex while its callback ran; the callback
// then fails it itself: its own result wins, so its message is the vertex's.
TEST(CapiWalkFail, TheCallbacksOwnFailureWinsOverACompletionMadeWhileItRan) {
    GraphPtr g = new_graph();
    const uint64_t v = add(g.get(), "v");
    for (const dag_walk_result other : {DAG_WALK_OK, DAG_WALK_FAILED}) {
        SCOPED_TRACE(other);
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t vertex, const char **) {
            std::thread completer(
                [&] { EXPECT_EQ(dag_walk_complete(w, vertex, other, "from the other thread", nullptr), DAG_OK); });
            completer.join();
            EXPECT_EQ(fail_from_freed_buffer(w, vertex, "the callback's own"), DAG_OK);
            // Its own, once: a second is refused, as without the other thread.
            EXPECT_EQ(dag_walk_fail(w, vertex, "twice", nullptr), DAG_E_STATE);
            return DAG_WALK_FAILED;
        };
        // A callback walk: in a pull walk the host's completion of a
        // handed-out vertex is final, there being no callback to win.
        const dag_walk_options o = options();
        dag_walk_report *r = nullptr;
        ASSERT_EQ(dag_walk(g.get(), record_cb, &rec, &o, &r, nullptr), DAG_E_WALK_FAILED);
        ReportPtr report(r);
        EXPECT_EQ(status_of(r, v), DAG_VERTEX_FAILED);
        EXPECT_EQ(message_of(r, v), "the callback's own");
    }
}

TEST(CapiWalkFail, FromAnotherVertexsCallbackItIsACompletion) {
    // b's callback fails a, which is pending: a finishes failed at once.
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    Latch a_pending;
    Recorder rec;
    std::atomic<int> from_b{1};
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == a) {
            a_pending.set();
            return DAG_WALK_PENDING;
        }
        EXPECT_TRUE(a_pending.wait());
        from_b = dag_walk_fail(w, a, "failed by b", nullptr);
        return DAG_WALK_OK;
    };
    ReportPtr report;
    // A pending vertex counts against parallelism: 2 lets b run beside it.
    EXPECT_EQ(run_walk(g.get(), rec, options(2, 2), report), DAG_E_WALK_FAILED);
    // a's callback may not have returned PENDING when b called: either way
    // the completion finished it.
    EXPECT_EQ(from_b.load(), DAG_OK);
    EXPECT_EQ(status_of(report.get(), a), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(report.get(), a), "failed by b");
    EXPECT_EQ(status_of(report.get(), b), DAG_VERTEX_OK);
}

TEST(CapiWalkFail, InASubWalk) {
    GraphPtr g = new_graph();
    const uint64_t outer = add(g.get(), "outer");
    GraphPtr sub = new_graph();
    const uint64_t inner = add(sub.get(), "inner");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (dag_walk_graph(w) == g.get()) {
            EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
            return DAG_WALK_OK;
        }
        EXPECT_EQ(v, inner);
        EXPECT_EQ(fail_from_freed_buffer(w, v, "inner trouble"), DAG_OK);
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_EQ(status_of(report.get(), outer), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(report.get(), outer), "sub-walk failed: vertex inner failed: inner trouble");
}

TEST(CapiWalkFail, MisuseIsRefused) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    Latch release;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        if (v == a) {
            EXPECT_TRUE(release.wait());
        }
        return DAG_WALK_OK;
    };
    dag_walk_options o = options();
    EventLatch started(DAG_WALK_EVENT_STARTED, a);
    started.attach(o);
    dag_walker *raw = nullptr;
    ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &raw, nullptr), DAG_OK);
    WalkPtr walk(raw);
    ASSERT_TRUE(started.wait());
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_walk_fail(nullptr, a, "m", e); });
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_walk_fail(walk.get(), 99, "m", e); });
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_walk_fail(walk.get(), DAG_NO_VERTEX, "m", e); });
    const std::string msg =
        expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_fail(walk.get(), b, "waits for a", e); });
    EXPECT_EQ(msg.rfind("dag_walk_fail: ", 0), 0u) << msg;
    release.set();
    dag_walk_report *r = nullptr;
    EXPECT_EQ(dag_walk_wait(walk.get(), &r, nullptr), DAG_OK);
    ReportPtr report(r);
    EXPECT_EQ(status_of(r, b), DAG_VERTEX_OK) << "refused calls changed nothing";
    expect_error(DAG_E_STATE, [&](dag_error **e) { return dag_walk_fail(walk.get(), a, "too late", e); });
}
