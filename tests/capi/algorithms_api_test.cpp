// The algorithms through the public C API only: results, ownership, and a
// status and message for every kind of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "capi_test_support.hpp"

namespace {

using Ids = std::vector<uint64_t>;

// a -> b -> c (a depends on b, b on c): ids 1, 2, 3.
GraphPtr abc() {
    GraphPtr g = new_graph();
    add(g.get(), "a");
    add(g.get(), "b");
    add(g.get(), "c");
    EXPECT_EQ(dag_connect(g.get(), 1, 2, nullptr), DAG_OK);
    EXPECT_EQ(dag_connect(g.get(), 2, 3, nullptr), DAG_OK);
    return g;
}

std::vector<Ids> take_lists(dag_id_lists *lists) {
    std::vector<Ids> out;
    for (size_t i = 0; i < dag_id_lists_count(lists); ++i) {
        size_t n = 0;
        const uint64_t *data = dag_id_lists_get(lists, i, &n);
        out.emplace_back(data, data + n);
    }
    dag_id_lists_free(lists);
    return out;
}

struct Recorder {
    std::vector<std::pair<uint64_t, size_t>> visits;
    uint64_t skip_at = 0;
    uint64_t stop_at = 0;
    int bad_return_at = 0;
};

int record(uint64_t id, size_t depth, void *user_data) {
    auto *r = static_cast<Recorder *>(user_data);
    r->visits.emplace_back(id, depth);
    if (id == r->stop_at) return DAG_VISIT_STOP;
    if (id == r->skip_at) return DAG_VISIT_SKIP;
    if (r->bad_return_at && id == static_cast<uint64_t>(r->bad_return_at)) return 7;
    return DAG_VISIT_CONTINUE;
}

int is_id(uint64_t id, void *user_data) { return id == *static_cast<uint64_t *>(user_data); }

TEST(AlgorithmsApi, ThreeVertexExamples) {
    GraphPtr g = abc();
    uint64_t root = 0;
    EXPECT_EQ(dag_root(g.get(), &root, nullptr), DAG_OK);
    EXPECT_EQ(root, 1u);

    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_topological_order(g.get(), &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{1, 2, 3}));
    ASSERT_EQ(dag_reverse_topological_order(g.get(), &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{3, 2, 1}));

    const uint64_t a = 1, c = 3;
    ASSERT_EQ(dag_ancestors(g.get(), &a, 1, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{2, 3}));
    ASSERT_EQ(dag_descendants(g.get(), &c, 1, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{1, 2}));
    ASSERT_EQ(dag_ancestors(g.get(), &c, 1, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), Ids{});
}

TEST(AlgorithmsApi, ValidationResultAsTextAndData) {
    GraphPtr g = abc();
    dag_validation *v = nullptr;
    ASSERT_EQ(dag_validate(g.get(), nullptr, &v, nullptr), DAG_OK);
    EXPECT_EQ(dag_validation_status(v), DAG_OK);
    EXPECT_STREQ(dag_validation_text(v), "");
    EXPECT_EQ(dag_validation_message_count(v), 0u);
    dag_validation_free(v);

    ASSERT_EQ(dag_connect(g.get(), 3, 1, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), 2, 2, nullptr), DAG_OK);
    dag_validate_options opts;
    ASSERT_EQ(dag_validate_options_init(&opts, sizeof opts, nullptr), DAG_OK);
    EXPECT_EQ(opts.single_root, 1);
    v = nullptr;
    std::string msg =
        expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_validate(g.get(), &opts, &v, e); });
    EXPECT_NE(msg.find("no roots found\nCycle:\n  a\n  b\n  c\nSelf reference: b"), std::string::npos) << msg;
    ASSERT_NE(v, nullptr) << "the result comes back with the failure";
    EXPECT_EQ(dag_validation_status(v), DAG_E_CYCLE);
    EXPECT_STREQ(dag_validation_text(v), "no roots found\nCycle:\n  a\n  b\n  c\nSelf reference: b");
    ASSERT_EQ(dag_validation_message_count(v), 3u);
    EXPECT_STREQ(dag_validation_message(v, 1), "Cycle:\n  a\n  b\n  c");
    EXPECT_EQ(dag_validation_message(v, 3), nullptr);
    ASSERT_EQ(dag_validation_cycle_count(v), 1u);
    size_t n = 0;
    const uint64_t *cycle = dag_validation_cycle(v, 0, &n);
    EXPECT_EQ(Ids(cycle, cycle + n), (Ids{1, 2, 3}));
    EXPECT_EQ(dag_validation_cycle(v, 1, &n), nullptr);
    EXPECT_EQ(n, 0u);
    const uint64_t *selfs = dag_validation_self_references(v, &n);
    EXPECT_EQ(Ids(selfs, selfs + n), (Ids{2}));
    dag_validation_free(v);

    opts.single_root = 0;
    msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_validate(g.get(), &opts, nullptr, e); });
    EXPECT_NE(msg.find("Cycle:\n  a\n  b\n  c\nSelf reference: b"), std::string::npos);
}

TEST(AlgorithmsApi, RootProblemsHaveTheirOwnStatus) {
    GraphPtr g = new_graph();
    expect_error(DAG_E_NO_ROOT, [&](dag_error **e) {
        uint64_t r;
        return dag_root(g.get(), &r, e);
    });
    expect_error(DAG_E_NO_ROOT, [&](dag_error **e) { return dag_validate(g.get(), nullptr, nullptr, e); });
    add(g.get(), "y");
    add(g.get(), "x");
    std::string msg = expect_error(DAG_E_MULTIPLE_ROOTS, [&](dag_error **e) {
        uint64_t r;
        return dag_root(g.get(), &r, e);
    });
    EXPECT_NE(msg.find("multiple roots: x, y"), std::string::npos) << msg;
    expect_error(DAG_E_MULTIPLE_ROOTS, [&](dag_error **e) { return dag_validate(g.get(), nullptr, nullptr, e); });
}

TEST(AlgorithmsApi, OptionsSizeIsChecked) {
    dag_validate_options opts;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_validate_options_init(&opts, 4, e); });
    expect_error(DAG_E_NULL_ARGUMENT,
                 [&](dag_error **e) { return dag_validate_options_init(nullptr, sizeof opts, e); });
    GraphPtr g = abc();
    ASSERT_EQ(dag_validate_options_init(&opts, sizeof opts, nullptr), DAG_OK);
    opts.size = 1;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_validate(g.get(), &opts, nullptr, e); });
}

TEST(AlgorithmsApi, ComponentsAndCycles) {
    GraphPtr g = abc();
    ASSERT_EQ(dag_connect(g.get(), 2, 1, nullptr), DAG_OK);
    dag_id_lists *lists = nullptr;
    ASSERT_EQ(dag_strongly_connected(g.get(), &lists, nullptr), DAG_OK);
    EXPECT_EQ(take_lists(lists), (std::vector<Ids>{{3}, {2, 1}}));
    ASSERT_EQ(dag_cycles(g.get(), &lists, nullptr), DAG_OK);
    EXPECT_EQ(take_lists(lists), (std::vector<Ids>{{1, 2}}));
    EXPECT_EQ(dag_id_lists_count(nullptr), 0u);
    EXPECT_EQ(dag_id_lists_get(nullptr, 0, nullptr), nullptr);
    dag_id_lists_free(nullptr);
}

TEST(AlgorithmsApi, TransitiveReduction) {
    GraphPtr g = abc();
    ASSERT_EQ(dag_connect(g.get(), 1, 3, nullptr), DAG_OK);
    size_t removed = 0;
    ASSERT_EQ(dag_transitive_reduction(g.get(), &removed, nullptr), DAG_OK);
    EXPECT_EQ(removed, 1u);
    EXPECT_FALSE(dag_has_edge(g.get(), 1, 3));
    EXPECT_EQ(dag_transitive_reduction(g.get(), nullptr, nullptr), DAG_OK);

    ASSERT_EQ(dag_connect(g.get(), 3, 1, nullptr), DAG_OK);
    std::string msg =
        expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_transitive_reduction(g.get(), &removed, e); });
    EXPECT_NE(msg.find("Cycle:\n  a\n  b\n  c"), std::string::npos) << msg;
    EXPECT_EQ(dag_edge_count(g.get()), 3u) << "unchanged";
}

TEST(AlgorithmsApi, OrdersRefuseCycles) {
    GraphPtr g = abc();
    ASSERT_EQ(dag_connect(g.get(), 3, 3, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    std::string msg = expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_topological_order(g.get(), &ids, e); });
    EXPECT_NE(msg.find("Self reference: c"), std::string::npos);
    expect_error(DAG_E_CYCLE, [&](dag_error **e) { return dag_reverse_topological_order(g.get(), &ids, e); });
    EXPECT_EQ(ids, nullptr);
}

TEST(AlgorithmsApi, TraverseDepthAndBreadthFirst) {
    // a -> b, a -> c
    GraphPtr g = new_graph();
    add(g.get(), "a");
    add(g.get(), "b");
    add(g.get(), "c");
    dag_connect(g.get(), 1, 2, nullptr);
    dag_connect(g.get(), 1, 3, nullptr);
    const uint64_t a = 1;
    Recorder dfs;
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, 0, record, &dfs, nullptr), DAG_OK);
    EXPECT_EQ(dfs.visits, (std::vector<std::pair<uint64_t, size_t>>{{1, 0}, {3, 1}, {2, 1}}));
    Recorder bfs;
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, DAG_TRAVERSE_BREADTH_FIRST, record, &bfs, nullptr), DAG_OK);
    EXPECT_EQ(bfs.visits, (std::vector<std::pair<uint64_t, size_t>>{{1, 0}, {2, 1}, {3, 1}}));
    const uint64_t b = 2;
    Recorder up;
    ASSERT_EQ(dag_traverse(g.get(), &b, 1, DAG_TRAVERSE_REVERSE | DAG_TRAVERSE_SORTED, record, &up, nullptr), DAG_OK);
    EXPECT_EQ(up.visits, (std::vector<std::pair<uint64_t, size_t>>{{2, 0}, {1, 1}}));
}

// As in Terraform's walk: a start vertex that a walk from another start
// vertex takes off the stack first is visited there, at that depth.
TEST(AlgorithmsApi, StartVertexReachedFromAnotherFirstTakesThatDepth) {
    // a -> b
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    const uint64_t start[] = {b, a};
    Recorder dfs;
    ASSERT_EQ(dag_traverse(g.get(), start, 2, 0, record, &dfs, nullptr), DAG_OK);
    EXPECT_EQ(dfs.visits, (std::vector<std::pair<uint64_t, size_t>>{{a, 0}, {b, 1}}));
    Recorder bfs;
    ASSERT_EQ(dag_traverse(g.get(), start, 2, DAG_TRAVERSE_BREADTH_FIRST, record, &bfs, nullptr), DAG_OK);
    EXPECT_EQ(bfs.visits, (std::vector<std::pair<uint64_t, size_t>>{{b, 0}, {a, 0}}));
}

TEST(AlgorithmsApi, VisitorSkipsStopsAndMisbehaves) {
    GraphPtr g = abc();
    const uint64_t a = 1;
    Recorder skip;
    skip.skip_at = 2;
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, 0, record, &skip, nullptr), DAG_OK);
    EXPECT_EQ(skip.visits.size(), 2u);
    Recorder stop;
    stop.stop_at = 1;
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, 0, record, &stop, nullptr), DAG_OK);
    EXPECT_EQ(stop.visits.size(), 1u);
    Recorder bad;
    bad.bad_return_at = 2;
    std::string msg =
        expect_error(DAG_E_INVALID_ARGUMENT,
                     [&](dag_error **e) { return dag_traverse(g.get(), &a, 1, 0, record, &bad, e); });
    EXPECT_NE(msg.find("returned 7"), std::string::npos) << msg;
    EXPECT_EQ(bad.visits.size(), 2u);
}

// A visitor or predicate that changes the graph it is called for would pull
// the traversal's adjacency lists from under it: refused, nothing changes.
struct Mutator {
    dag_graph *g;
    std::vector<dag_status> statuses;
};

void mutate_all_ways(Mutator &m, uint64_t id) {
    const uint64_t pair[2] = {id, 3};
    m.statuses.push_back(dag_add_vertex(m.g, "new", nullptr, nullptr, nullptr));
    m.statuses.push_back(dag_remove_vertex(m.g, 3, nullptr));
    m.statuses.push_back(dag_connect(m.g, 3, id, nullptr));
    m.statuses.push_back(dag_connect_many(m.g, pair, 1, nullptr));
    m.statuses.push_back(dag_disconnect(m.g, 2, 3, nullptr));
    m.statuses.push_back(dag_set_vertex_name(m.g, id, "renamed", nullptr));
    m.statuses.push_back(dag_transitive_reduction(m.g, nullptr, nullptr));
}

int mutating_visitor(uint64_t id, size_t, void *user) {
    mutate_all_ways(*static_cast<Mutator *>(user), id);
    return DAG_VISIT_CONTINUE;
}

int mutating_predicate(uint64_t id, void *user) {
    mutate_all_ways(*static_cast<Mutator *>(user), id);
    return 0;
}

TEST(AlgorithmsApi, ChangingTheGraphFromAVisitorOrPredicateIsRefused) {
    GraphPtr g = abc();  // a -> b -> c
    const uint64_t a = 1;
    Mutator m{g.get(), {}};
    ASSERT_EQ(dag_traverse(g.get(), &a, 1, 0, mutating_visitor, &m, nullptr), DAG_OK);
    int found = -1;
    ASSERT_EQ(dag_match_ancestor(g.get(), &a, 1, mutating_predicate, &m, &found, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_first_ancestors_with(g.get(), &a, 1, mutating_predicate, &m, &ids, nullptr), DAG_OK);
    dag_ids_free(ids);
    ASSERT_EQ(m.statuses.size(), 7u * (3 + 2 + 2));
    for (dag_status st : m.statuses) EXPECT_EQ(st, DAG_E_BUSY);
    EXPECT_EQ(dag_vertex_count(g.get()), 3u);
    EXPECT_EQ(dag_edge_count(g.get()), 2u);
    // Once the traversal has returned, the graph changes again.
    EXPECT_EQ(dag_add_vertex(g.get(), "new", nullptr, nullptr, nullptr), DAG_OK);
}

// Frees the graph held in user data at its first call.
int freeing_visitor(uint64_t, size_t, void *user_data) {
    auto *g = static_cast<dag_graph **>(user_data);
    if (*g) dag_free(std::exchange(*g, nullptr));
    return DAG_VISIT_CONTINUE;
}

int freeing_predicate(uint64_t, void *user_data) {
    freeing_visitor(0, 0, user_data);
    return 0;
}

int freeing_search(uint64_t, void *user_data) {
    freeing_visitor(0, 0, user_data);
    return DAG_SEARCH_MATCH;
}

TEST(AlgorithmsApi, FreeingTheGraphFromACallbackFreesItAsTheCallReturns) {
    // The call went on reading the graph freed under it (AddressSanitizer:
    // heap-use-after-free); each call here frees a graph of its own.
    const uint64_t a = 1;
    const auto freed_during = [](auto call) {
        dag_graph *g = abc().release();
        dag_graph *held = g;
        const dag_status st = call(g, &held);
        EXPECT_EQ(held, nullptr) << "the callback was never called";
        dag_free(held);
        return st;
    };
    EXPECT_EQ(freed_during([&](dag_graph *g, dag_graph **held) {
                  return dag_traverse(g, &a, 1, 0, freeing_visitor, held, nullptr);
              }),
              DAG_OK);
    int found = -1;
    EXPECT_EQ(freed_during([&](dag_graph *g, dag_graph **held) {
                  return dag_match_ancestor(g, &a, 1, freeing_predicate, held, &found, nullptr);
              }),
              DAG_OK);
    EXPECT_EQ(found, 0);
    dag_ids *ids = nullptr;
    EXPECT_EQ(freed_during([&](dag_graph *g, dag_graph **held) {
                  return dag_first_ancestors_with(g, &a, 1, freeing_predicate, held, &ids, nullptr);
              }),
              DAG_OK);
    EXPECT_EQ(dag_ids_count(ids), 0u);
    dag_ids_free(ids);
    ids = nullptr;
    EXPECT_EQ(freed_during([&](dag_graph *g, dag_graph **held) {
                  return dag_search(g, &a, 1, 0, freeing_search, held, &ids, nullptr);
              }),
              DAG_OK);
    // b and c, every vertex reached from a: the search read the graph on after the free.
    EXPECT_EQ(dag_ids_count(ids), 2u);
    dag_ids_free(ids);
}

TEST(AlgorithmsApi, FirstWithAndMatch) {
    // a -> b -> c, a -> d
    GraphPtr g = abc();
    add(g.get(), "d");
    dag_connect(g.get(), 1, 4, nullptr);
    const uint64_t a = 1, c = 3;
    uint64_t target = 2;
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_first_ancestors_with(g.get(), &a, 1, is_id, &target, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{2}));
    ASSERT_EQ(dag_first_descendants_with(g.get(), &c, 1, is_id, &target, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{2}));
    int found = -1;
    ASSERT_EQ(dag_match_ancestor(g.get(), &a, 1, is_id, &target, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 1);
    ASSERT_EQ(dag_match_descendant(g.get(), &a, 1, is_id, &target, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 0);
    target = 1;
    ASSERT_EQ(dag_match_ancestor(g.get(), &a, 1, is_id, &target, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 0) << "a vertex is not its own ancestor";
}

TEST(AlgorithmsApi, NullArgumentsAreRefused) {
    GraphPtr g = abc();
    const uint64_t a = 1;
    dag_ids *ids = nullptr;
    dag_id_lists *lists = nullptr;
    uint64_t id = 0;
    int found = 0;
    Recorder r;
    auto null_case = [](auto call) { expect_error(DAG_E_NULL_ARGUMENT, call); };
    null_case([&](dag_error **e) { return dag_root(nullptr, &id, e); });
    null_case([&](dag_error **e) { return dag_root(g.get(), nullptr, e); });
    null_case([&](dag_error **e) { return dag_validate(nullptr, nullptr, nullptr, e); });
    null_case([&](dag_error **e) { return dag_strongly_connected(nullptr, &lists, e); });
    null_case([&](dag_error **e) { return dag_strongly_connected(g.get(), nullptr, e); });
    null_case([&](dag_error **e) { return dag_cycles(nullptr, &lists, e); });
    null_case([&](dag_error **e) { return dag_cycles(g.get(), nullptr, e); });
    null_case([&](dag_error **e) { return dag_transitive_reduction(nullptr, nullptr, e); });
    null_case([&](dag_error **e) { return dag_topological_order(nullptr, &ids, e); });
    null_case([&](dag_error **e) { return dag_topological_order(g.get(), nullptr, e); });
    null_case([&](dag_error **e) { return dag_reverse_topological_order(nullptr, &ids, e); });
    null_case([&](dag_error **e) { return dag_reverse_topological_order(g.get(), nullptr, e); });
    null_case([&](dag_error **e) { return dag_traverse(nullptr, &a, 1, 0, record, &r, e); });
    null_case([&](dag_error **e) { return dag_traverse(g.get(), &a, 1, 0, nullptr, &r, e); });
    null_case([&](dag_error **e) { return dag_traverse(g.get(), nullptr, 1, 0, record, &r, e); });
    null_case([&](dag_error **e) { return dag_ancestors(nullptr, &a, 1, &ids, e); });
    null_case([&](dag_error **e) { return dag_ancestors(g.get(), nullptr, 2, &ids, e); });
    null_case([&](dag_error **e) { return dag_ancestors(g.get(), &a, 1, nullptr, e); });
    null_case([&](dag_error **e) { return dag_descendants(nullptr, &a, 1, &ids, e); });
    null_case([&](dag_error **e) { return dag_descendants(g.get(), &a, 1, nullptr, e); });
    null_case([&](dag_error **e) { return dag_first_ancestors_with(g.get(), &a, 1, nullptr, nullptr, &ids, e); });
    null_case([&](dag_error **e) { return dag_first_ancestors_with(g.get(), &a, 1, is_id, &id, nullptr, e); });
    null_case([&](dag_error **e) { return dag_first_descendants_with(nullptr, &a, 1, is_id, &id, &ids, e); });
    null_case([&](dag_error **e) { return dag_match_ancestor(g.get(), &a, 1, is_id, &id, nullptr, e); });
    null_case([&](dag_error **e) { return dag_match_descendant(g.get(), &a, 1, nullptr, nullptr, &found, e); });
    EXPECT_TRUE(r.visits.empty());
    EXPECT_EQ(dag_validation_status(nullptr), DAG_E_NULL_ARGUMENT);
    EXPECT_STREQ(dag_validation_text(nullptr), "");
    EXPECT_EQ(dag_validation_cycle(nullptr, 0, nullptr), nullptr);
    EXPECT_EQ(dag_validation_self_references(nullptr, nullptr), nullptr);
    dag_validation_free(nullptr);
}

TEST(AlgorithmsApi, UnknownAndRemovedIdsAreRefused) {
    GraphPtr g = abc();
    ASSERT_EQ(dag_remove_vertex(g.get(), 3, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    int found = 0;
    Recorder r;
    for (uint64_t bad : {uint64_t{0}, uint64_t{3}, uint64_t{42}}) {
        const uint64_t start[] = {1, bad};
        std::string msg = expect_error(DAG_E_UNKNOWN_VERTEX,
                                       [&](dag_error **e) { return dag_ancestors(g.get(), start, 2, &ids, e); });
        EXPECT_NE(msg.find(std::to_string(bad)), std::string::npos) << msg;
        expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_descendants(g.get(), start, 2, &ids, e); });
        expect_error(DAG_E_UNKNOWN_VERTEX,
                     [&](dag_error **e) { return dag_traverse(g.get(), start, 2, 0, record, &r, e); });
        expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) {
            return dag_first_descendants_with(g.get(), start, 2, is_id, &bad, &ids, e);
        });
        expect_error(DAG_E_UNKNOWN_VERTEX,
                     [&](dag_error **e) { return dag_match_ancestor(g.get(), start, 2, is_id, &bad, &found, e); });
    }
    EXPECT_TRUE(r.visits.empty()) << "nothing is visited when a start id is bad";
    EXPECT_EQ(ids, nullptr);
}

TEST(AlgorithmsApi, UnknownFlagsAreRefused) {
    GraphPtr g = abc();
    const uint64_t a = 1;
    Recorder r;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_traverse(g.get(), &a, 1, 8, record, &r, e); });
    EXPECT_TRUE(r.visits.empty());
}

TEST(AlgorithmsApi, EmptyGraphsAndEmptyStartSets) {
    GraphPtr g = new_graph();
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_topological_order(g.get(), &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), Ids{});
    ASSERT_EQ(dag_ancestors(g.get(), nullptr, 0, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), Ids{});
    Recorder r;
    ASSERT_EQ(dag_traverse(g.get(), nullptr, 0, 0, record, &r, nullptr), DAG_OK);
    EXPECT_TRUE(r.visits.empty());
    size_t removed = 1;
    ASSERT_EQ(dag_transitive_reduction(g.get(), &removed, nullptr), DAG_OK);
    EXPECT_EQ(removed, 0u);
    dag_id_lists *lists = nullptr;
    ASSERT_EQ(dag_strongly_connected(g.get(), &lists, nullptr), DAG_OK);
    EXPECT_TRUE(take_lists(lists).empty());
}

TEST(AlgorithmsApi, DuplicateStartIdsCountOnce) {
    GraphPtr g = abc();
    const uint64_t twice[] = {1, 1};
    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_ancestors(g.get(), twice, 2, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{2, 3}));
    Recorder r;
    ASSERT_EQ(dag_traverse(g.get(), twice, 2, 0, record, &r, nullptr), DAG_OK);
    EXPECT_EQ(r.visits.size(), 3u);
}


// A predicate that matches the ids in `matches` and counts its calls per id.
struct CountingMatch {
    std::vector<uint64_t> matches;
    std::map<uint64_t, int> calls;
};

int count_and_match(uint64_t id, void *user_data) {
    auto *m = static_cast<CountingMatch *>(user_data);
    ++m->calls[id];
    return std::find(m->matches.begin(), m->matches.end(), id) != m->matches.end();
}

TEST(AlgorithmsApi, DuplicateStartIdsCountOnceForFirstWithAndMatch) {
    // a -> b -> c, a -> d: ids 1, 2, 3, 4.
    GraphPtr g = abc();
    add(g.get(), "d");
    ASSERT_EQ(dag_connect(g.get(), 1, 4, nullptr), DAG_OK);
    using Calls = std::map<uint64_t, int>;
    dag_ids *ids = nullptr;

    // Each vertex reached is tested once, however often its start is given.
    const uint64_t a_twice[] = {1, 1};
    CountingMatch b{{2}, {}};
    ASSERT_EQ(dag_first_ancestors_with(g.get(), a_twice, 2, count_and_match, &b, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{2}));
    EXPECT_EQ(b.calls, (Calls{{2, 1}, {4, 1}})) << "c lies behind the match b";
    const uint64_t a_b_a[] = {1, 2, 1, 2};
    CountingMatch c{{3}, {}};
    ASSERT_EQ(dag_first_ancestors_with(g.get(), a_b_a, 4, count_and_match, &c, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{3}));
    EXPECT_EQ(c.calls, (Calls{{2, 1}, {3, 1}, {4, 1}}));
    const uint64_t c_twice[] = {3, 3};
    CountingMatch b_up{{2}, {}};
    ASSERT_EQ(dag_first_descendants_with(g.get(), c_twice, 2, count_and_match, &b_up, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (Ids{2}));
    EXPECT_EQ(b_up.calls, (Calls{{2, 1}})) << "a lies behind the match b";
    CountingMatch none{{}, {}};
    ASSERT_EQ(dag_first_descendants_with(g.get(), c_twice, 2, count_and_match, &none, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), Ids{});
    EXPECT_EQ(none.calls, (Calls{{1, 1}, {2, 1}}));

    int found = -1;
    CountingMatch none_down{{}, {}};
    ASSERT_EQ(dag_match_ancestor(g.get(), a_twice, 2, count_and_match, &none_down, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 0);
    EXPECT_EQ(none_down.calls, (Calls{{2, 1}, {3, 1}, {4, 1}}));
    CountingMatch d{{4}, {}};
    ASSERT_EQ(dag_match_ancestor(g.get(), a_twice, 2, count_and_match, &d, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 1);
    uint64_t target = 1;
    ASSERT_EQ(dag_match_ancestor(g.get(), a_twice, 2, is_id, &target, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 0) << "a duplicated start vertex is still not its own ancestor";
    ASSERT_EQ(dag_match_descendant(g.get(), c_twice, 2, is_id, &target, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 1);
    target = 3;
    ASSERT_EQ(dag_match_descendant(g.get(), c_twice, 2, is_id, &target, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 0) << "a duplicated start vertex is still not its own descendant";
    CountingMatch none_up{{}, {}};
    ASSERT_EQ(dag_match_descendant(g.get(), c_twice, 2, count_and_match, &none_up, &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 0);
    EXPECT_EQ(none_up.calls, (Calls{{1, 1}, {2, 1}}));
}

TEST(AlgorithmsApi, CyclesOfAnEmptyGraphAreAnEmptyList) {
    GraphPtr g = new_graph();
    dag_id_lists *lists = nullptr;
    dag_error *err = reinterpret_cast<dag_error *>(0x1);
    ASSERT_EQ(dag_cycles(g.get(), &lists, &err), DAG_OK);
    EXPECT_EQ(err, nullptr) << "success clears *err";
    ASSERT_NE(lists, nullptr) << "an empty list, not no list";
    EXPECT_EQ(dag_id_lists_count(lists), 0u);
    size_t n = 99;
    EXPECT_EQ(dag_id_lists_get(lists, 0, &n), nullptr);
    EXPECT_EQ(n, 0u);
    dag_id_lists_free(lists);

    // Self references are not cycles here either.
    const uint64_t a = add(g.get(), "a");
    ASSERT_EQ(dag_connect(g.get(), a, a, nullptr), DAG_OK);
    lists = nullptr;
    ASSERT_EQ(dag_cycles(g.get(), &lists, nullptr), DAG_OK);
    EXPECT_EQ(take_lists(lists), std::vector<Ids>{});
}


TEST(AlgorithmsApi, IdListsOutOfRangeIndexIsNull) {
    GraphPtr g = abc();
    dag_id_lists *lists = nullptr;
    ASSERT_EQ(dag_strongly_connected(g.get(), &lists, nullptr), DAG_OK);
    const size_t count = dag_id_lists_count(lists);
    ASSERT_EQ(count, 3u);
    // SIZE_MAX is the index whose successor wraps to 0.
    for (size_t index : {count, count + 1, SIZE_MAX - 1, SIZE_MAX}) {
        size_t n = 99;
        EXPECT_EQ(dag_id_lists_get(lists, index, &n), nullptr) << index;
        EXPECT_EQ(n, 0u) << index;
        EXPECT_EQ(dag_id_lists_get(lists, index, nullptr), nullptr) << index;
    }
    size_t n = 0;
    EXPECT_NE(dag_id_lists_get(lists, count - 1, &n), nullptr);
    EXPECT_EQ(n, 1u);
    dag_id_lists_free(lists);
}

TEST(AlgorithmsApi, IdCountsNoArrayCanHoldAreRefused) {
    GraphPtr g = abc();
    const uint64_t a = 1;
    dag_ids *ids = nullptr;
    int found = 7;
    uint64_t target = 2;
    Recorder r;
    // SIZE_MAX / 8 + 1 ids are 2^64 bytes, a size that wraps to 0; the last
    // is the smallest count refused.
    for (size_t count : {SIZE_MAX, SIZE_MAX / 4, SIZE_MAX / 8 + 1, size_t{PTRDIFF_MAX} / sizeof(uint64_t) + 1}) {
        auto refused = [&](auto call) {
            const std::string msg = expect_error(DAG_E_INVALID_ARGUMENT, call);
            EXPECT_NE(msg.find(std::to_string(count)), std::string::npos) << msg;
        };
        refused([&](dag_error **e) { return dag_traverse(g.get(), &a, count, 0, record, &r, e); });
        refused([&](dag_error **e) { return dag_ancestors(g.get(), &a, count, &ids, e); });
        refused([&](dag_error **e) { return dag_descendants(g.get(), &a, count, &ids, e); });
        refused([&](dag_error **e) { return dag_first_ancestors_with(g.get(), &a, count, is_id, &target, &ids, e); });
        refused([&](dag_error **e) { return dag_first_descendants_with(g.get(), &a, count, is_id, &target, &ids, e); });
        refused([&](dag_error **e) { return dag_match_ancestor(g.get(), &a, count, is_id, &target, &found, e); });
        refused([&](dag_error **e) { return dag_match_descendant(g.get(), &a, count, is_id, &target, &found, e); });
    }
    EXPECT_TRUE(r.visits.empty());
    EXPECT_EQ(ids, nullptr);
    EXPECT_EQ(found, 7);
}

}  // namespace
