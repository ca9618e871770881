// dag_search: the search whose callback can match, skip, stop or abort.
#include "capi_test_support.hpp"

#include <functional>
#include <map>

namespace {

using Ids = std::vector<uint64_t>;

// The callback's answers by vertex (NO_MATCH for the rest), and the
// vertices it was called for, in order.
struct Script {
    std::map<uint64_t, int> answers;
    Ids seen;
};

int scripted(uint64_t id, void *user) {
    auto *s = static_cast<Script *>(user);
    s->seen.push_back(id);
    auto it = s->answers.find(id);
    return it == s->answers.end() ? DAG_SEARCH_NO_MATCH : it->second;
}

// a -> b -> c, a -> d (ids 1..4): the header's example.
GraphPtr example() {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d");
    EXPECT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    EXPECT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    EXPECT_EQ(dag_connect(g.get(), a, d, nullptr), DAG_OK);
    return g;
}

constexpr uint64_t a = 1, b = 2, c = 3, d = 4;

dag_status run(const dag_graph *g, Ids start, unsigned flags, Script &s, Ids *found) {
    dag_ids *out = reinterpret_cast<dag_ids *>(0x1);
    const dag_status st = dag_search(g, start.data(), start.size(), flags, scripted, &s, &out, nullptr);
    if (st == DAG_OK) {
        *found = take_ids(out);
    } else {
        EXPECT_EQ(out, reinterpret_cast<dag_ids *>(0x1)) << "out written on failure";
    }
    return st;
}

}  // namespace

TEST(CapiSearch, TheHeadersExample) {
    GraphPtr g = example();
    Ids found;
    Script s{{{b, DAG_SEARCH_MATCH}, {c, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {a}, 0, s, &found), DAG_OK);
    EXPECT_EQ(s.seen, (Ids{d, b, c})) << "depth first, largest id of a batch first";
    EXPECT_EQ(found, (Ids{b, c}));

    Script first{{{b, DAG_SEARCH_MATCH}, {c, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {a}, DAG_SEARCH_FIRST_MATCH, first, &found), DAG_OK);
    EXPECT_EQ(found, (Ids{b}));
    EXPECT_EQ(first.seen, (Ids{d, b})) << "nothing beyond a first match";

    Script stop{{{b, DAG_SEARCH_STOP}, {d, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {a}, 0, stop, &found), DAG_OK);
    EXPECT_EQ(found, (Ids{d})) << "what matched before the stop, not the stopping vertex";
    EXPECT_EQ(stop.seen, (Ids{d, b}));

    Script last{{{b, DAG_SEARCH_MATCH_AND_STOP}}, {}};
    ASSERT_EQ(run(g.get(), {a}, 0, last, &found), DAG_OK);
    EXPECT_EQ(found, (Ids{b}));
    EXPECT_EQ(last.seen, (Ids{d, b}));
}

TEST(CapiSearch, SkipEndsOnlyItsBranch) {
    GraphPtr g = example();
    Ids found;
    Script s{{{b, DAG_SEARCH_SKIP}, {c, DAG_SEARCH_MATCH}, {d, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {a}, 0, s, &found), DAG_OK);
    EXPECT_EQ(found, (Ids{d}));
    EXPECT_EQ(s.seen, (Ids{d, b})) << "c lies beyond the skipped b";
}

TEST(CapiSearch, TowardsDependents) {
    GraphPtr g = example();
    Ids found;
    Script all{{{a, DAG_SEARCH_MATCH}, {b, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {c}, DAG_SEARCH_DEPENDENTS, all, &found), DAG_OK);
    EXPECT_EQ(all.seen, (Ids{b, a}));
    EXPECT_EQ(found, (Ids{a, b}));

    Script first{{{a, DAG_SEARCH_MATCH}, {b, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {c}, DAG_SEARCH_DEPENDENTS | DAG_SEARCH_FIRST_MATCH, first, &found), DAG_OK);
    EXPECT_EQ(found, (Ids{b}));

    Script stop{{{b, DAG_SEARCH_STOP}}, {}};
    ASSERT_EQ(run(g.get(), {c, d}, DAG_SEARCH_DEPENDENTS, stop, &found), DAG_OK);
    EXPECT_TRUE(found.empty());
    EXPECT_EQ(stop.seen, (Ids{b})) << "a, the common dependent, is never reached";
}

TEST(CapiSearch, ResultsAreAscendingWhateverTheOrderOfDiscovery) {
    // A chain 10 -> 9 -> ... -> 1 walked from the top: discovered in
    // descending id order, returned ascending.
    GraphPtr g = new_graph();
    Ids v;
    for (int i = 0; i < 10; ++i) v.push_back(add(g.get(), nullptr));
    for (size_t i = v.size() - 1; i > 0; --i) ASSERT_EQ(dag_connect(g.get(), v[i], v[i - 1], nullptr), DAG_OK);
    Script s;
    for (size_t i = 0; i + 1 < v.size(); i += 2) s.answers[v[i]] = DAG_SEARCH_MATCH;
    Ids found;
    ASSERT_EQ(run(g.get(), {v.back()}, 0, s, &found), DAG_OK);
    EXPECT_EQ(s.seen.front(), v[v.size() - 2]);
    EXPECT_EQ(found, (Ids{v[0], v[2], v[4], v[6], v[8]}));
}

TEST(CapiSearch, StopMidwayKeepsEverythingMatchedSoFar) {
    // A chain of 100 below one start: stop at the 60th vertex reached.
    GraphPtr g = new_graph();
    Ids v;
    for (int i = 0; i < 101; ++i) v.push_back(add(g.get(), nullptr));
    for (size_t i = 0; i + 1 < v.size(); ++i) ASSERT_EQ(dag_connect(g.get(), v[i], v[i + 1], nullptr), DAG_OK);
    Script s;
    for (size_t i = 1; i < v.size(); ++i) s.answers[v[i]] = i == 60 ? DAG_SEARCH_STOP : DAG_SEARCH_MATCH;
    Ids found;
    ASSERT_EQ(run(g.get(), {v[0]}, 0, s, &found), DAG_OK);
    EXPECT_EQ(s.seen.size(), 60u);
    EXPECT_EQ(found, Ids(v.begin() + 1, v.begin() + 60));
}

TEST(CapiSearch, AbortMidwayReturnsCancelledAndLeavesTheGraphUsable) {
    GraphPtr g = example();
    Script s{{{d, DAG_SEARCH_MATCH}, {b, DAG_SEARCH_ABORT}}, {}};
    dag_ids *out = nullptr;
    const std::string msg = expect_error(DAG_E_CANCELLED, [&](dag_error **e) {
        return dag_search(g.get(), &a, 1, 0, scripted, &s, &out, e);
    });
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(msg, "dag_search: the callback aborted the search at vertex 2");
    EXPECT_EQ(s.seen, (Ids{d, b}));
    // The search let go of the graph: it changes, and searches, again.
    EXPECT_EQ(dag_connect(g.get(), d, c, nullptr), DAG_OK);
    const uint64_t e = add(g.get(), "e");
    EXPECT_EQ(dag_connect(g.get(), c, e, nullptr), DAG_OK);
    Ids found;
    Script again{{{e, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(run(g.get(), {a}, 0, again, &found), DAG_OK);
    EXPECT_EQ(found, (Ids{e}));
}

TEST(CapiSearch, PredicatesAreSearchCallbacks) {
    // 0 and 1 mean what a predicate's answers do: dag_search with FIRST_MATCH
    // gives what dag_first_ancestors_with does on a random graph.
    GraphPtr g = new_graph();
    Ids v;
    for (int i = 0; i < 40; ++i) v.push_back(add(g.get(), nullptr));
    uint64_t seed = 7;
    for (size_t i = 0; i < v.size(); ++i)
        for (size_t j = i + 1; j < v.size(); ++j) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            if ((seed >> 60) < 3) { ASSERT_EQ(dag_connect(g.get(), v[i], v[j], nullptr), DAG_OK); }
        }
    auto every_third = [](uint64_t id, void *) { return id % 3 == 0 ? 1 : 0; };
    for (unsigned dir : {0u, unsigned(DAG_SEARCH_DEPENDENTS)}) {
        const uint64_t start[2] = {v[dir ? 35 : 2], v[dir ? 30 : 5]};
        dag_ids *old_way = nullptr, *new_way = nullptr;
        ASSERT_EQ(dir ? dag_first_descendants_with(g.get(), start, 2, every_third, nullptr, &old_way, nullptr)
                      : dag_first_ancestors_with(g.get(), start, 2, every_third, nullptr, &old_way, nullptr),
                  DAG_OK);
        ASSERT_EQ(dag_search(g.get(), start, 2, dir | DAG_SEARCH_FIRST_MATCH, every_third, nullptr, &new_way,
                             nullptr),
                  DAG_OK);
        const Ids expected = take_ids(old_way);
        EXPECT_FALSE(expected.empty());
        EXPECT_EQ(take_ids(new_way), expected) << "direction " << dir;
    }
}

TEST(CapiSearch, OutMayBeNull) {
    GraphPtr g = example();
    Script s{{{b, DAG_SEARCH_MATCH}}, {}};
    ASSERT_EQ(dag_search(g.get(), &a, 1, 0, scripted, &s, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(s.seen, (Ids{d, b, c}));
}

namespace {

struct Mutator {
    dag_graph *g;
    std::vector<dag_status> statuses;
    int answer;
};

int mutating(uint64_t id, void *user) {
    auto *m = static_cast<Mutator *>(user);
    m->statuses.push_back(dag_add_vertex(m->g, "new", nullptr, nullptr, nullptr));
    m->statuses.push_back(dag_remove_vertex(m->g, id, nullptr));
    m->statuses.push_back(dag_connect(m->g, id, id, nullptr));
    m->statuses.push_back(dag_disconnect(m->g, 1, 2, nullptr));
    m->statuses.push_back(dag_set_vertex_name(m->g, id, "renamed", nullptr));
    dag_walker *w = nullptr;
    m->statuses.push_back(dag_walk_start(m->g, [](dag_walker *, uint64_t, const char **, void *) {
        return DAG_WALK_OK;
    }, nullptr, nullptr, &w, nullptr));
    dag_walk_free(w);
    // Reading is allowed.
    size_t n = 0;
    EXPECT_EQ(dag_dependency_count(m->g, id, &n, nullptr), DAG_OK);
    return m->answer;
}

}  // namespace

TEST(CapiSearch, ChangingTheGraphFromTheCallbackIsBusy) {
    for (int answer : {DAG_SEARCH_NO_MATCH, DAG_SEARCH_STOP, DAG_SEARCH_ABORT}) {
        GraphPtr g = example();
        Mutator m{g.get(), {}, answer};
        const dag_status st = dag_search(g.get(), &a, 1, 0, mutating, &m, nullptr, nullptr);
        EXPECT_EQ(st, answer == DAG_SEARCH_ABORT ? DAG_E_CANCELLED : DAG_OK);
        ASSERT_FALSE(m.statuses.empty());
        for (dag_status s : m.statuses) EXPECT_EQ(s, DAG_E_BUSY) << dag_status_string(s);
        EXPECT_EQ(dag_vertex_count(g.get()), 4u);
        EXPECT_EQ(dag_edge_count(g.get()), 3u);
        EXPECT_EQ(dag_add_vertex(g.get(), "new", nullptr, nullptr, nullptr), DAG_OK) << "free again afterwards";
    }
}

TEST(CapiSearch, BadArguments) {
    GraphPtr g = example();
    Script s;
    dag_ids *out = nullptr;
    auto status = [](dag_status expected, auto &&call) { return expect_error(expected, call); };
    status(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_search(nullptr, &a, 1, 0, scripted, &s, &out, e); });
    status(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_search(g.get(), &a, 1, 0, nullptr, &s, &out, e); });
    status(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_search(g.get(), nullptr, 1, 0, scripted, &s, &out, e); });
    const std::string flags =
        status(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_search(g.get(), &a, 1, 8, scripted, &s, &out, e); });
    EXPECT_NE(flags.find("flag"), std::string::npos) << flags;
    status(DAG_E_INVALID_ARGUMENT,
           [&](dag_error **e) { return dag_search(g.get(), &a, SIZE_MAX, 0, scripted, &s, &out, e); });
    const uint64_t unknown[2] = {a, 99};
    status(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_search(g.get(), unknown, 2, 0, scripted, &s, &out, e); });
    EXPECT_TRUE(s.seen.empty()) << "nothing is called before the start set is checked";
    Script bad{{{d, 6}}, {}};
    const std::string msg = status(DAG_E_INVALID_ARGUMENT,
                                   [&](dag_error **e) { return dag_search(g.get(), &a, 1, 0, scripted, &bad, &out, e); });
    EXPECT_NE(msg.find("not a dag_search_action"), std::string::npos) << msg;
    EXPECT_EQ(out, nullptr);
    // An empty start set searches nothing.
    ASSERT_EQ(dag_search(g.get(), nullptr, 0, 0, scripted, &s, &out, nullptr), DAG_OK);
    EXPECT_TRUE(take_ids(out).empty());
    EXPECT_TRUE(s.seen.empty());
}
