// Every call the header promises leaves its graph unchanged on failure is
// made to fail at each of its allocations in turn: the first, then the
// second, and so on until it succeeds. After every DAG_E_NOMEM the graph
// (and, for dag_walk_apply, the running walk) must be as it was, and the
// final success must give what the same call gives without failures.
//
// This suite has its own executable: it replaces the global operator new
// with one that fails on request. Only the thread that armed it fails, so a
// walk's workers run on undisturbed while the test thread's apply fails.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "walk_test_support.hpp"

namespace {

// Allocations left on this thread before one fails; negative: never fail.
thread_local long allocations_left = -1;
// Whether every allocation after the failed one fails too (memory stays
// short, so cleanup code must not allocate) or only that one does (cleanup
// that allocates runs, and must still restore everything).
thread_local bool failure_persists = false;
// Whether an allocation has failed since the thread was armed.
thread_local bool failed_one = false;
// Whether one has failed on any thread: a walk's pool thread arms itself.
std::atomic<bool> failed_anywhere{false};

void *allocate(std::size_t size) {
    if (allocations_left == 0) {
        failed_one = true;
        failed_anywhere = true;
        if (!failure_persists) allocations_left = -1;
        return nullptr;
    }
    if (allocations_left > 0) --allocations_left;
    return std::malloc(size ? size : 1);
}

}  // namespace

void *operator new(std::size_t size) {
    if (void *p = allocate(size)) return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t size) { return operator new(size); }
void *operator new(std::size_t size, const std::nothrow_t &) noexcept { return allocate(size); }
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept { return allocate(size); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

namespace {

// Everything a caller can see of a graph, as one string: the vertices with
// their names and the edges, in id order.
std::string state_of(const dag_graph *g) {
    std::string out;
    dag_ids *ids = nullptr;
    EXPECT_EQ(dag_vertices(g, &ids, nullptr), DAG_OK);
    for (uint64_t v : take_ids(ids)) {
        const char *name = nullptr;
        EXPECT_EQ(dag_vertex_name(g, v, &name, nullptr), DAG_OK);
        out += std::to_string(v) + (name ? std::string("=") + name : std::string()) + ";";
    }
    dag_ids *pairs = nullptr;
    EXPECT_EQ(dag_edges(g, &pairs, nullptr), DAG_OK);
    std::vector<uint64_t> e = take_ids(pairs);
    for (size_t i = 0; i + 1 < e.size(); i += 2) out += std::to_string(e[i]) + "->" + std::to_string(e[i + 1]) + ";";
    return out;
}

// How a sweep ended, for each k (the allocation that failed).
enum class Outcome { refused, succeeded, untouched };

// Makes a fresh `Fixture`, runs `call` on it with its k-th allocation
// failing, and hands the result to `check`, for k = 0, 1, ... until a call
// makes fewer than k + 1 allocations. A call may fail with DAG_E_NOMEM
// (then `check` must find everything as it was) or recover and succeed
// (then `check` must find the full result). Returns how many calls had an
// allocation fail.
template <class Fixture, class Call, class Check>
long sweep(bool persists, Call &&call, Check &&check) {
    for (long k = 0;; ++k) {
        Fixture x;
        failure_persists = persists;
        failed_one = false;
        allocations_left = k;
        dag_error *err = nullptr;
        const dag_status st = call(x, &err);
        allocations_left = -1;
        if (!failed_one) {
            EXPECT_EQ(st, DAG_OK);
            check(x, Outcome::untouched, k);
            return k;
        }
        if (st != DAG_OK) {
            EXPECT_EQ(st, DAG_E_NOMEM) << "allocation " << k << ": " << (err ? dag_error_message(err) : "");
        }
        dag_error_free(err);
        check(x, st == DAG_OK ? Outcome::succeeded : Outcome::refused, k);
        if (::testing::Test::HasFailure()) return k;
    }
}

// A named diamond with a tail and one shortcut: d -> b -> a, d -> c -> a,
// a -> t, d -> a; and a second graph for dag_subsume.
struct Diamond {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d"),
             t = add(g.get(), "t");
    GraphPtr other = new_graph();
    Diamond() {
        for (auto [x, y] : {std::pair{d, b}, {d, c}, {b, a}, {c, a}, {a, t}, {d, a}})
            EXPECT_EQ(dag_connect(g.get(), x, y, nullptr), DAG_OK);
        uint64_t p = add(other.get(), "only in the other graph"), q = add(other.get(), "a");
        EXPECT_EQ(dag_connect(other.get(), p, q, nullptr), DAG_OK);
    }
};

// The diamond, and a hub that 64 leaves depend on: its list of dependents
// is full at 512 bytes, the most a graph's arena serves a list
// (lib/graph/edge_lists.hpp), so one more dependent moves it to the heap. A
// list that grows within the arena allocates only when the arena needs
// another chunk, which one more edge of a small graph does not.
struct Hub : Diamond {
    uint64_t hub = add(g.get(), "hub");
    Hub() {
        for (int i = 0; i < 64; ++i)
            EXPECT_EQ(dag_connect(g.get(), add(g.get(), ("leaf " + std::to_string(i)).c_str()), hub, nullptr), DAG_OK);
    }
};

// One mutation, failed at each allocation in turn, with failures that
// persist and with one-off ones: each failure must leave the graph as it
// was, each success give what the call gives without failures.
template <class Fixture = Diamond, class Mutation>
void check_mutation(Mutation &&mutate) {
    Fixture plain;
    const std::string before = state_of(plain.g.get());
    ASSERT_EQ(mutate(plain, nullptr), DAG_OK);
    const std::string after = state_of(plain.g.get());
    for (bool persists : {true, false}) {
        const long failures = sweep<Fixture>(persists, mutate, [&](Fixture &x, Outcome o, long k) {
            EXPECT_EQ(state_of(x.g.get()), o == Outcome::refused ? before : after)
                << "allocation " << k << (persists ? ", failures persisting" : ", one failure");
        });
        EXPECT_GT(failures, 0) << "the call allocated nothing: the sweep tested nothing";
    }
}

TEST(AllocationFailure, AddVertexLeavesTheGraphUnchanged) {
    check_mutation([](Diamond &x, dag_error **err) {
        // Short names go into arena space the graph already has; one past
        // the arena's sizes gets an allocation of its own.
        static const std::string long_name(300, 'n');
        uint64_t id = 0;
        return dag_add_vertex(x.g.get(), long_name.c_str(), nullptr, &id, err);
    });
}

TEST(AllocationFailure, AddVerticesIsAllOrNothing) {
    check_mutation([](Diamond &x, dag_error **err) {
        static const std::string long_name(300, 'm');
        const char *names[] = {"n1", nullptr, long_name.c_str(), "n3", "n4", "n5"};
        return dag_add_vertices(x.g.get(), names, nullptr, 6, nullptr, err);
    });
}

TEST(AllocationFailure, ConnectLeavesTheGraphUnchanged) {
    check_mutation<Hub>([](Hub &x, dag_error **err) { return dag_connect(x.g.get(), x.d, x.hub, err); });
}

TEST(AllocationFailure, ConnectManyIsAllOrNothing) {
    check_mutation([](Diamond &x, dag_error **err) {
        const uint64_t pairs[] = {x.b, x.c, x.c, x.t, x.b, x.t, x.d, x.t};
        return dag_connect_many(x.g.get(), pairs, 4, err);
    });
}

// 300 vertices more with no edges: chaining them gives 598 lists their
// first block, 9.6 KB, more than the arena's first chunk holds, so the call
// fails also where the arena needs another chunk.
struct Unlinked : Diamond {
    std::vector<uint64_t> chain;  // (dependent, dependency) pairs
    Unlinked() {
        uint64_t last = add(g.get(), "more 0");
        for (int i = 1; i < 300; ++i) {
            const uint64_t next = add(g.get(), ("more " + std::to_string(i)).c_str());
            chain.insert(chain.end(), {next, last});
            last = next;
        }
    }
};

TEST(AllocationFailure, ConnectManyAcrossTheArenasChunksIsAllOrNothing) {
    check_mutation<Unlinked>([](Unlinked &x, dag_error **err) {
        return dag_connect_many(x.g.get(), x.chain.data(), x.chain.size() / 2, err);
    });
}

TEST(AllocationFailure, ReplaceVertexLeavesTheGraphUnchanged) {
    check_mutation([](Diamond &x, dag_error **err) { return dag_replace_vertex(x.g.get(), x.a, x.t, err); });
}

TEST(AllocationFailure, RenameLeavesTheGraphUnchanged) {
    // Past 256 bytes a name has an allocation of its own; shorter ones share
    // the name table's arena. Made before the sweep counts allocations.
    static const std::string long_name = "b, renamed to a long name" + std::string(300, '.');
    check_mutation([](Diamond &x, dag_error **err) { return dag_set_vertex_name(x.g.get(), x.b, long_name.c_str(), err); });
}

TEST(AllocationFailure, SubsumeIsAllOrNothing) {
    check_mutation([](Diamond &x, dag_error **err) {
        return dag_subsume(x.g.get(), x.other.get(), err);
    });
}

TEST(AllocationFailure, TransitiveReductionLeavesTheGraphUnchanged) {
    check_mutation([](Diamond &x, dag_error **err) {
        size_t removed = 0;
        return dag_transitive_reduction(x.g.get(), &removed, err);
    });
}

// dag_select builds a new graph: a failure leaves `g` as it was and writes
// no graph; a success gives the selection whatever failed on the way.
struct Selected : Diamond {
    dag_graph *out = nullptr;
    ~Selected() { dag_free(out); }
};

TEST(AllocationFailure, SelectWritesAWholeGraphOrNone) {
    auto call = [](Selected &x, dag_error **err) {
        const uint64_t excludes[] = {x.c};
        return dag_select(x.g.get(), nullptr, 0, excludes, 1, DAG_SELECT_ALL, &x.out, err);
    };
    Selected plain;
    const std::string before = state_of(plain.g.get());
    ASSERT_EQ(call(plain, nullptr), DAG_OK);
    const std::string selected = state_of(plain.out);
    ASSERT_EQ(selected, "1=a;2=b;5=t;1->5;2->1;");
    for (bool persists : {true, false}) {
        const long failures = sweep<Selected>(persists, call, [&](Selected &x, Outcome o, long k) {
            EXPECT_EQ(state_of(x.g.get()), before) << "allocation " << k;
            if (o == Outcome::refused)
                EXPECT_EQ(x.out, nullptr) << "allocation " << k;
            else
                EXPECT_EQ(state_of(x.out), selected) << "allocation " << k;
        });
        EXPECT_GT(failures, 0);
    }
}

// A walk held at its gate, and one batch touching every kind of change:
// new vertices (one always-run), edges to and from them, disconnects, and a
// removal. It is the walk's first batch, so applying it also builds the
// walk's order.
struct HeldWalk {
    GatedWalk gw;
    uint64_t a = gw.vertex("a"), b = gw.vertex("b"), c = gw.vertex("c"), gone = gw.vertex("gone");
    UpdatePtr batch;
    std::string before;

    HeldWalk() {
        EXPECT_EQ(dag_connect(gw.g.get(), c, b, nullptr), DAG_OK);
        EXPECT_EQ(dag_connect(gw.g.get(), b, gone, nullptr), DAG_OK);
        before = state_of(gw.g.get());
        gw.start();
        dag_walk_update *u = nullptr;
        EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
        batch.reset(u);
        uint64_t fresh = 0, late = 0;
        EXPECT_EQ(dag_walk_update_add_vertex(u, "fresh, with a name longer than a small-string buffer", nullptr, 0,
                                             &fresh, nullptr),
                  DAG_OK);
        EXPECT_EQ(dag_walk_update_add_vertex(u, nullptr, nullptr, 1, &late, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u, fresh, a, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u, b, fresh, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_connect(u, late, c, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_disconnect(u, c, b, nullptr), DAG_OK);
        EXPECT_EQ(dag_walk_update_remove_vertex(u, gone, nullptr), DAG_OK);
    }
};

// Each failure must leave the graph unchanged and the walk to finish as if
// the batch had never been applied; each success must make the whole batch.
// dag_walk and dag_walk_begin failed at each allocation of the calling
// thread: DAG_E_NOMEM, or a walk that runs every vertex. A failure queueing
// the first vertices or waking the first worker left a walk no worker would
// take up, and freeing it inside the call waited for ever.
TEST(AllocationFailure, AWalkThatCannotStartEndsAndLeavesTheGraphToWalk) {
    const auto walked = [](dag_walker *, uint64_t, const char **, void *) noexcept { return DAG_WALK_OK; };
    for (bool pull : {false, true}) {
        for (bool persists : {true, false}) {
            SCOPED_TRACE(std::string(pull ? "dag_walk_begin" : "dag_walk") + (persists ? ", failures persisting" : ", one failure"));
            dag_walk_report *report = nullptr;
            dag_walker *walker = nullptr;
            const long failures = sweep<Diamond>(
                persists,
                [&](Diamond &x, dag_error **err) {
                    const dag_walk_options o = options();
                    return pull ? dag_walk_begin(x.g.get(), &o, &walker, err)
                                : dag_walk(x.g.get(), walked, nullptr, &o, &report, err);
                },
                [&](Diamond &x, Outcome o, long k) {
                    SCOPED_TRACE("allocation " + std::to_string(k));
                    if (pull && o != Outcome::refused) {
                        WalkPtr w(walker);
                        walker = nullptr;
                        for (size_t done = 0; done < 5;) {
                            uint64_t ids[5];
                            dag_walker *walks[5];
                            size_t n = 0;
                            ASSERT_EQ(dag_walk_next_ready(w.get(), ids, walks, 5, 5000, &n, nullptr), DAG_OK);
                            for (size_t i = 0; i < n; ++i)
                                ASSERT_EQ(dag_walk_complete(walks[i], ids[i], DAG_WALK_OK, nullptr, nullptr), DAG_OK);
                            done += n;
                        }
                        ASSERT_EQ(dag_walk_wait(w.get(), &report, nullptr), DAG_OK);
                    }
                    if (o != Outcome::refused) {
                        ReportPtr r(report);
                        report = nullptr;
                        EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 5u);
                        return;
                    }
                    const dag_walk_options opts = options();
                    EXPECT_EQ(dag_walk(x.g.get(), walked, nullptr, &opts, nullptr, nullptr), DAG_OK)
                        << "the graph is left walkable";
                });
            EXPECT_GT(failures, 5);
        }
    }
}

TEST(AllocationFailure, WalkApplyIsAllOrNothing) {
    for (bool persists : {true, false}) {
        dag_ids *new_ids = nullptr;
        const long failures = sweep<HeldWalk>(
            persists, [&](HeldWalk &x, dag_error **err) { return dag_walk_apply(x.gw.walk.get(), x.batch.get(), &new_ids, err); },
            [&](HeldWalk &x, Outcome o, long k) {
                SCOPED_TRACE("allocation " + std::to_string(k) + (persists ? ", failures persisting" : ", one failure"));
                GatedWalk &gw = x.gw;
                if (o == Outcome::refused) {
                    EXPECT_EQ(state_of(gw.g.get()), x.before);
                    ReportPtr r = gw.finish();
                    ASSERT_EQ(dag_walk_report_size(r.get()), 5u);
                    EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 5u);
                    EXPECT_LT(gw.position(x.gone), gw.position(x.b));
                    EXPECT_LT(gw.position(x.b), gw.position(x.c));
                    return;
                }
                const std::vector<uint64_t> ids = take_ids(new_ids);
                new_ids = nullptr;
                ASSERT_EQ(ids.size(), 2u);
                const uint64_t f = ids[0], l = ids[1];
                EXPECT_TRUE(dag_has_edge(gw.g.get(), f, x.a));
                EXPECT_TRUE(dag_has_edge(gw.g.get(), x.b, f));
                EXPECT_TRUE(dag_has_edge(gw.g.get(), l, x.c));
                EXPECT_FALSE(dag_has_edge(gw.g.get(), x.c, x.b));
                EXPECT_FALSE(dag_has_vertex(gw.g.get(), x.gone));
                ReportPtr r = gw.finish();
                ASSERT_EQ(dag_walk_report_size(r.get()), 7u);
                EXPECT_EQ(dag_walk_report_count(r.get(), DAG_VERTEX_OK), 6u);
                EXPECT_EQ(status_of(r.get(), x.gone), DAG_VERTEX_NOT_RUN);
                EXPECT_LT(gw.position(x.a), gw.position(f));
                EXPECT_LT(gw.position(f), gw.position(x.b));
                EXPECT_LT(gw.position(x.c), gw.position(l));
                EXPECT_EQ(gw.position(x.gone), gw.rec.ran().size()) << "a removed vertex ran";
            });
        EXPECT_GT(failures, 10);
    }
}

// A failure message that cannot be copied on the pool thread, where there
// is no call to report DAG_E_NOMEM to, is dropped: the vertex is still
// reported failed, and the walk still ends (it used to end the process).
// The walk has one vertex, so that after its callback the pool thread
// allocates for the message alone.
TEST(AllocationFailure, FailureMessageThatCannotBeCopiedIsDropped) {
    const std::string message(200, 'm');
    for (bool persists : {true, false}) {
        for (long k = 0;; ++k) {
            SCOPED_TRACE("allocation " + std::to_string(k) + (persists ? ", failures persisting" : ", one failure"));
            GraphPtr g = new_graph();
            const uint64_t v = add(g.get(), "v");
            Recorder rec;
            rec.body = [&](dag_walker *, uint64_t, const char **msg) {
                *msg = message.c_str();
                failure_persists = persists;
                allocations_left = k;  // this pool thread's, from here on
                return DAG_WALK_FAILED;
            };
            failed_anywhere = false;
            ReportPtr r;
            EXPECT_EQ(run_walk(g.get(), rec, options(1, 1), r), DAG_E_WALK_FAILED);
            ASSERT_EQ(status_of(r.get(), v), DAG_VERTEX_FAILED);
            const std::string kept = message_of(r.get(), v);
            if (!failed_anywhere) {
                EXPECT_EQ(kept, message);
                EXPECT_GT(k, 0) << "nothing was allocated for the message: the test tested nothing";
                break;
            }
            EXPECT_TRUE(kept.empty() || kept == message) << kept;
        }
    }
}

}  // namespace
