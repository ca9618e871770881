// C++ exceptions escaping every kind of function libdag calls back: walk
// callbacks (root and sub-walk), the observer, the pool-thread hooks,
// traversal visitors and search predicates. None may reach std::terminate
// or come back as DAG_E_INTERNAL; each becomes DAG_E_CALLBACK with a
// message saying what was thrown, and leaves the graph usable.
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "walk_test_support.hpp"

namespace {

// What a test throws: a std::exception, or something that is not one.
enum class Thrown { std_exception, integer };

[[noreturn]] void throw_one(Thrown kind, const std::string &what) {
    if (kind == Thrown::std_exception) throw std::runtime_error(what);
    throw 42;
}

// The text libdag makes of throw_one(kind, what) escaping `who`.
std::string described(Thrown kind, const std::string &who, const std::string &what) {
    if (kind == Thrown::std_exception) return who + " threw std::runtime_error: " + what;
    return who + " threw an exception of type int, not derived from std::exception";
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// The graph accepts changes and walks again: no busy mark was left behind.
void expect_usable(dag_graph *g) {
    uint64_t extra = 0;
    EXPECT_EQ(dag_add_vertex(g, nullptr, nullptr, &extra, nullptr), DAG_OK);
    EXPECT_EQ(dag_remove_vertex(g, extra, nullptr), DAG_OK);
    Recorder rec;
    ReportPtr report;
    EXPECT_EQ(run_walk(g, rec, options(4, 0), report), DAG_OK);
}

// Runs a walk as dag_walk (sync) or dag_walk_start + dag_walk_wait.
struct WalkRun {
    dag_status status = DAG_OK;
    std::string message;
    ReportPtr report;
};

WalkRun run(bool sync, dag_graph *g, dag_walk_fn callback, void *data, const dag_walk_options &o) {
    WalkRun out;
    dag_error *err = nullptr;
    dag_walk_report *r = nullptr;
    if (sync) {
        out.status = dag_walk(g, callback, data, &o, &r, &err);
    } else {
        dag_walker *w = nullptr;
        out.status = dag_walk_start(g, callback, data, &o, &w, &err);
        if (out.status == DAG_OK) {
            WalkPtr walk(w);
            out.status = dag_walk_wait(walk.get(), &r, &err);
        }
    }
    out.report.reset(r);
    if (err) out.message = dag_error_message(err);
    dag_error_free(err);
    return out;
}

class CallbackThrows : public ::testing::TestWithParam<std::tuple<bool, Thrown>> {
protected:
    bool sync() const { return std::get<0>(GetParam()); }
    Thrown kind() const { return std::get<1>(GetParam()); }
    WalkRun walk(dag_graph *g, Recorder &rec, const dag_walk_options &o) { return run(sync(), g, record_cb, &rec, o); }
};

std::string param_name(const ::testing::TestParamInfo<std::tuple<bool, Thrown>> &info) {
    return std::string(std::get<0>(info.param) ? "Sync" : "Started") +
           (std::get<1>(info.param) == Thrown::std_exception ? "StdException" : "Int");
}

INSTANTIATE_TEST_SUITE_P(Modes, CallbackThrows,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(Thrown::std_exception, Thrown::integer)),
                         param_name);

TEST_P(CallbackThrows, VertexFailsWithWhatWasThrownAndItsDependentsAreSkipped) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), d, c, nullptr), DAG_OK);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) -> dag_walk_result {
        if (v == a) throw_one(kind(), "a broke");
        return DAG_WALK_OK;
    };
    WalkRun r = walk(g.get(), rec, options(4, 0));
    const std::string text = described(kind(), "the callback", "a broke");
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    EXPECT_TRUE(contains(r.message, "vertex a: " + text)) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(status_of(r.report.get(), a), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r.report.get(), a), text);
    EXPECT_EQ(dag_walk_report_ran(r.report.get(), a), 1);
    EXPECT_EQ(status_of(r.report.get(), b), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r.report.get(), c), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r.report.get(), d), DAG_VERTEX_OK);
    const char *first = nullptr;
    EXPECT_EQ(dag_walk_report_first_error(r.report.get(), &first), a);
    EXPECT_EQ(std::string(first), "vertex a failed: " + text);
    expect_usable(g.get());
}

TEST_P(CallbackThrows, ManyCallbacksThrowingAtOnceEachKeepTheirOwnMessage) {
    auto g = new_graph();
    constexpr int n = 400;
    std::vector<uint64_t> ids;
    for (int i = 0; i < n; ++i) ids.push_back(add(g.get(), ("v" + std::to_string(i)).c_str()));
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) -> dag_walk_result {
        if (v % 2 == 0) throw_one(kind(), "id " + std::to_string(v));
        return DAG_WALK_OK;
    };
    WalkRun r = walk(g.get(), rec, options(8, 0));
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(dag_walk_report_count(r.report.get(), DAG_VERTEX_FAILED), static_cast<size_t>(n / 2));
    EXPECT_EQ(dag_walk_report_count(r.report.get(), DAG_VERTEX_OK), static_cast<size_t>(n / 2));
    for (uint64_t v : ids)
        if (v % 2 == 0) {
            EXPECT_EQ(message_of(r.report.get(), v), described(kind(), "the callback", "id " + std::to_string(v)));
        }
}

TEST_P(CallbackThrows, FailFastStopsTheWalkAsForAFailure) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), b, a, nullptr), DAG_OK);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) -> dag_walk_result {
        if (v == a) throw_one(kind(), "stop");
        return DAG_WALK_OK;
    };
    auto o = options(4, 0);
    o.failure_policy = DAG_FAILURE_FAIL_FAST;
    WalkRun r = walk(g.get(), rec, o);
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(status_of(r.report.get(), a), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(r.report.get(), b), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(rec.ran(), std::vector<uint64_t>{a});
}

TEST_P(CallbackThrows, SubWalkCallbackFailsItsVertexAndTheExpandedOne) {
    auto g = new_graph();
    uint64_t top = add(g.get(), "top"), after = add(g.get(), "after"), other = add(g.get(), "other");
    ASSERT_EQ(dag_connect(g.get(), after, top, nullptr), DAG_OK);
    auto sub = new_graph();
    uint64_t inner = add(sub.get(), "inner");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) -> dag_walk_result {
        if (dag_walk_graph(w) == g.get()) {
            if (v == top) { EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK); }
            return DAG_WALK_OK;
        }
        if (v == inner) throw_one(kind(), "inside");
        return DAG_WALK_OK;
    };
    WalkRun r = walk(g.get(), rec, options(4, 0));
    const std::string text = described(kind(), "the callback", "inside");
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    EXPECT_TRUE(contains(r.message, "sub-walk vertex inner: " + text)) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(status_of(r.report.get(), top), DAG_VERTEX_FAILED);
    EXPECT_TRUE(contains(message_of(r.report.get(), top), text)) << message_of(r.report.get(), top);
    EXPECT_EQ(status_of(r.report.get(), after), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(r.report.get(), other), DAG_VERTEX_OK);
}

TEST_P(CallbackThrows, ThrowAfterExpandingLeavesTheVertexToItsSubWalk) {
    auto g = new_graph();
    uint64_t top = add(g.get(), "top");
    auto sub = new_graph();
    uint64_t inner = add(sub.get(), "inner");
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) -> dag_walk_result {
        if (dag_walk_graph(w) == g.get()) {
            EXPECT_EQ(dag_walk_expand(w, v, sub.get(), nullptr, nullptr, nullptr), DAG_OK);
            throw_one(kind(), "after expanding");
        }
        return DAG_WALK_OK;
    };
    WalkRun r = walk(g.get(), rec, options(4, 0));
    // As a returned DAG_WALK_FAILED would be, the result is ignored once the
    // vertex has been expanded; the walk still says that something threw.
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    EXPECT_TRUE(contains(r.message, "vertex top: " + described(kind(), "the callback", "after expanding")))
        << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(status_of(r.report.get(), top), DAG_VERTEX_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{top, inner}));
}

// The observer throws at every event: the walk goes on as if it had
// returned, and ends with DAG_E_CALLBACK.
struct ThrowingObserver {
    Thrown kind;
    std::atomic<int> events{0};
    static void observe(dag_walker *, dag_walk_event, uint64_t, dag_vertex_status, size_t, size_t, size_t,
                        void *data) {
        auto *o = static_cast<ThrowingObserver *>(data);
        o->events.fetch_add(1);
        throw_one(o->kind, "observer broke");
    }
};

TEST_P(CallbackThrows, ObserverThrowingAtEveryEventLosesNoVertex) {
    auto g = new_graph();
    constexpr int n = 200;
    uint64_t prev = 0;
    for (int i = 0; i < n; ++i) {
        uint64_t v = add(g.get(), ("v" + std::to_string(i)).c_str());
        // Chains of four, so events come from several threads at once.
        if (i % 4 != 0) { ASSERT_EQ(dag_connect(g.get(), v, prev, nullptr), DAG_OK); }
        prev = v;
    }
    ThrowingObserver obs{kind()};
    auto o = options(8, 0);
    o.observer = ThrowingObserver::observe;
    o.observer_data = &obs;
    Recorder rec;
    WalkRun r = walk(g.get(), rec, o);
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    EXPECT_TRUE(contains(r.message, described(kind(), "the observer", "observer broke"))) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(dag_walk_report_count(r.report.get(), DAG_VERTEX_OK), static_cast<size_t>(n));
    EXPECT_EQ(rec.ran().size(), static_cast<size_t>(n));
    EXPECT_EQ(obs.events.load(), 2 * n);  // started and finished, each
    expect_usable(g.get());
}

// The observer's call for a's end blocks until the walk has finished (b,
// held until then, ended it meanwhile), then throws: the walk's status still
// says so, since reporting a walk waits for the observer calls under way.
TEST_P(CallbackThrows, ObserverThrowingAfterTheWalkEndedIsStillReported) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    struct Context {
        Thrown kind;
        uint64_t a;
        Latch observing;
        std::atomic<bool> threw{false};
    } ctx{kind(), a, {}, {}};
    auto o = options(2, 0);
    o.observer = [](dag_walker *w, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        auto *c = static_cast<Context *>(data);
        if (e != DAG_WALK_EVENT_FINISHED || v != c->a) return;
        c->observing.set();
        // DAG_E_STATE once the walk has finished; a cancel before then
        // changes no vertex, both having started (a waited for b).
        while (dag_walk_cancel(w, nullptr) != DAG_E_STATE) std::this_thread::yield();
        c->threw = true;
        throw_one(c->kind, "late");
    };
    o.observer_data = &ctx;
    Recorder rec;
    Latch b_started;
    rec.body = [&](dag_walker *, uint64_t v, const char **) {
        if (v == a) { EXPECT_TRUE(b_started.wait()); }
        if (v == b) {
            b_started.set();
            EXPECT_TRUE(ctx.observing.wait());
        }
        return DAG_WALK_OK;
    };
    WalkRun r = walk(g.get(), rec, o);
    EXPECT_TRUE(ctx.threw.load());
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    EXPECT_TRUE(contains(r.message, described(kind(), "the observer", "late"))) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(status_of(r.report.get(), a), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r.report.get(), b), DAG_VERTEX_OK);
}

// Counts the hook calls; thread_start throws on its `throw_at`-th call,
// thread_exit on every call when `exit_throws`.
struct Hooks {
    Thrown kind;
    int throw_at = -1;
    bool exit_throws = false;
    std::atomic<int> starts{0}, started{0}, exits{0};
    void attach(dag_walk_options &o) {
        o.thread_start = start;
        o.thread_exit = exit;
        o.thread_hook_data = this;
    }
    static void start(void *data) {
        auto *h = static_cast<Hooks *>(data);
        if (h->starts.fetch_add(1) == h->throw_at) throw_one(h->kind, "no thread state");
        h->started.fetch_add(1);
    }
    static void exit(void *data) {
        auto *h = static_cast<Hooks *>(data);
        h->exits.fetch_add(1);
        if (h->exit_throws) throw_one(h->kind, "cannot let go");
    }
};

TEST_P(CallbackThrows, ThreadStartThrowingFailsTheStartBeforeAnyCallback) {
    auto g = new_graph();
    for (const char *n : {"a", "b", "c", "d", "e"}) add(g.get(), n);
    Hooks hooks{kind()};
    hooks.throw_at = 1;
    auto o = options(4, 0);
    hooks.attach(o);
    Recorder rec;
    WalkRun r = walk(g.get(), rec, o);
    EXPECT_EQ(r.status, DAG_E_CALLBACK) << r.message;
    EXPECT_TRUE(contains(r.message, described(kind(), "thread_start", "no thread state"))) << r.message;
    EXPECT_FALSE(r.report);
    EXPECT_TRUE(rec.ran().empty());
    EXPECT_EQ(hooks.starts.load(), 4);
    // Every thread whose start hook returned, and only those, ran the exit hook.
    EXPECT_EQ(hooks.started.load(), 3);
    EXPECT_EQ(hooks.exits.load(), 3);
    expect_usable(g.get());
}

TEST_P(CallbackThrows, ThreadExitThrowingIsDropped) {
    auto g = new_graph();
    for (const char *n : {"a", "b", "c", "d", "e"}) add(g.get(), n);
    Hooks hooks{kind()};
    hooks.exit_throws = true;
    auto o = options(4, 0);
    hooks.attach(o);
    Recorder rec;
    WalkRun r = walk(g.get(), rec, o);  // frees the walk: its pool is joined
    EXPECT_EQ(r.status, DAG_OK) << r.message;
    ASSERT_TRUE(r.report);
    EXPECT_EQ(dag_walk_report_count(r.report.get(), DAG_VERTEX_OK), 5u);
    EXPECT_EQ(hooks.started.load(), 4);
    EXPECT_EQ(hooks.exits.load(), 4);
    expect_usable(g.get());
}

class ThrownKind : public ::testing::TestWithParam<Thrown> {};

INSTANTIATE_TEST_SUITE_P(Kinds, ThrownKind, ::testing::Values(Thrown::std_exception, Thrown::integer),
                         [](const ::testing::TestParamInfo<Thrown> &info) {
                             return std::string(info.param == Thrown::std_exception ? "StdException" : "Int");
                         });

// An event caused on the caller's thread (dag_walk_complete) reaches the
// observer there: what it throws stays inside libdag. The completion of p
// finishes it on the caller's thread once p's callback has returned pending,
// on the pool thread when the callback has not returned yet (the completion
// then takes effect as it does); either way the outcome is the same, and the
// walk is repeated until the caller's case has been met.
TEST_P(ThrownKind, ObserverThrowingOnTheCompletingThreadLeavesTheCompletionDone) {
    auto g = new_graph();
    uint64_t p = add(g.get(), "p"), after = add(g.get(), "after");
    ASSERT_EQ(dag_connect(g.get(), after, p, nullptr), DAG_OK);
    struct Context {
        Thrown kind;
        uint64_t p;
        std::thread::id caller;
        std::atomic<int> on_caller{0};
    } ctx{GetParam(), p, std::this_thread::get_id()};
    auto o = options(2, 0);
    o.observer = [](dag_walker *, dag_walk_event e, uint64_t v, dag_vertex_status, size_t, size_t, size_t,
                    void *data) {
        auto *c = static_cast<Context *>(data);
        if (e != DAG_WALK_EVENT_FINISHED || v != c->p) return;
        if (std::this_thread::get_id() == c->caller) c->on_caller.fetch_add(1);
        throw_one(c->kind, "at p's end");
    };
    o.observer_data = &ctx;
    for (int attempt = 0; attempt < 1000 && ctx.on_caller.load() == 0; ++attempt) {
        Recorder rec;
        Latch pending;
        rec.body = [&](dag_walker *, uint64_t v, const char **) {
            if (v != p) return DAG_WALK_OK;
            pending.set();
            return DAG_WALK_PENDING;
        };
        dag_walker *w = nullptr;
        ASSERT_EQ(dag_walk_start(g.get(), record_cb, &rec, &o, &w, nullptr), DAG_OK);
        WalkPtr walk(w);
        ASSERT_TRUE(pending.wait());
        ASSERT_EQ(dag_walk_complete(w, p, DAG_WALK_OK, nullptr, nullptr), DAG_OK);
        dag_walk_report *r = nullptr;
        std::string msg = expect_error(DAG_E_CALLBACK, [&](dag_error **e) { return dag_walk_wait(w, &r, e); });
        ReportPtr report(r);
        ASSERT_TRUE(report);
        EXPECT_EQ(status_of(r, p), DAG_VERTEX_OK);
        EXPECT_EQ(status_of(r, after), DAG_VERTEX_OK);
        EXPECT_TRUE(contains(msg, described(GetParam(), "the observer", "at p's end"))) << msg;
    }
    EXPECT_EQ(ctx.on_caller.load(), 1);
}

TEST_P(ThrownKind, TraversalVisitorThrowingReturnsCallbackAndReleasesTheGraph) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    struct Context {
        Thrown kind;
        dag_graph *g;
        uint64_t b;
        int visits = 0;
        dag_status busy = DAG_OK;
    } ctx{GetParam(), g.get(), b};
    auto visit = [](uint64_t id, size_t, void *data) -> int {
        auto *x = static_cast<Context *>(data);
        ++x->visits;
        if (id == x->b) {
            // The traversal holds the graph while its visitor runs.
            x->busy = dag_add_vertex(x->g, nullptr, nullptr, nullptr, nullptr);
            throw_one(x->kind, "visitor broke");
        }
        return DAG_VISIT_CONTINUE;
    };
    for (unsigned flags : {0u, unsigned{DAG_TRAVERSE_BREADTH_FIRST}}) {
        ctx.visits = 0;
        std::string msg = expect_error(DAG_E_CALLBACK, [&](dag_error **e) {
            return dag_traverse(g.get(), &a, 1, flags, visit, &ctx, e);
        });
        EXPECT_EQ(msg, "dag_traverse: " + described(GetParam(), "the visitor", "visitor broke"));
        EXPECT_EQ(ctx.visits, 2);  // a, then b threw: c was never reached
        EXPECT_EQ(ctx.busy, DAG_E_BUSY);
    }
    expect_usable(g.get());
}

TEST_P(ThrownKind, SearchPredicateThrowingReturnsCallbackAndReleasesTheGraph) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    Thrown kind = GetParam();
    auto match = [](uint64_t, void *data) -> int { throw_one(*static_cast<Thrown *>(data), "predicate broke"); };
    const std::string text = described(kind, "the predicate", "predicate broke");
    dag_ids *out = nullptr;
    int found = -1;
    EXPECT_EQ(expect_error(DAG_E_CALLBACK,
                           [&](dag_error **e) { return dag_first_ancestors_with(g.get(), &a, 1, match, &kind, &out, e); }),
              "dag_first_ancestors_with: " + text);
    EXPECT_EQ(expect_error(DAG_E_CALLBACK,
                           [&](dag_error **e) { return dag_first_descendants_with(g.get(), &c, 1, match, &kind, &out, e); }),
              "dag_first_descendants_with: " + text);
    EXPECT_EQ(expect_error(DAG_E_CALLBACK,
                           [&](dag_error **e) { return dag_match_ancestor(g.get(), &a, 1, match, &kind, &found, e); }),
              "dag_match_ancestor: " + text);
    EXPECT_EQ(expect_error(DAG_E_CALLBACK,
                           [&](dag_error **e) { return dag_match_descendant(g.get(), &c, 1, match, &kind, &found, e); }),
              "dag_match_descendant: " + text);
    EXPECT_EQ(out, nullptr);  // out-parameters are written only on success
    EXPECT_EQ(found, -1);
    expect_usable(g.get());
}

TEST_P(ThrownKind, SearchCallbackThrowingReturnsCallbackAndReleasesTheGraph) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    Thrown kind = GetParam();
    auto fn = [](uint64_t, void *data) -> int { throw_one(*static_cast<Thrown *>(data), "search broke"); };
    dag_ids *out = nullptr;
    for (unsigned flags : {0u, unsigned{DAG_SEARCH_DEPENDENTS}}) {
        const uint64_t start = flags ? b : a;
        EXPECT_EQ(expect_error(DAG_E_CALLBACK,
                               [&](dag_error **e) { return dag_search(g.get(), &start, 1, flags, fn, &kind, &out, e); }),
                  "dag_search: " + described(kind, "the search callback", "search broke"));
    }
    EXPECT_EQ(out, nullptr);
    expect_usable(g.get());
}

struct Unusual {};

TEST(CallbackThrowsNaming, AnExceptionOfAnyTypeIsNamedByItsType) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    std::string msg = expect_error(DAG_E_CALLBACK, [&](dag_error **e) {
        return dag_traverse(g.get(), &a, 1, 0, [](uint64_t, size_t, void *) -> int { throw Unusual{}; }, nullptr, e);
    });
    EXPECT_TRUE(contains(msg, "the visitor threw an exception of type")) << msg;
    EXPECT_TRUE(contains(msg, "Unusual, not derived from std::exception")) << msg;
}

TEST(CallbackThrowsNaming, TheStatusHasItsName) {
    EXPECT_STREQ(dag_status_string(DAG_E_CALLBACK), "a callback threw an exception");
    EXPECT_EQ(DAG_E_CALLBACK, -19);
}

}  // namespace
