// dag_select: Terraform's -target and OpenTofu's -exclude. Random graphs
// against a brute-force selection from the transitive closure; the selected
// graph keeps ids, names, user data and the edges among the selected
// vertices; every error has its own status.
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "capi_test_support.hpp"

namespace {

std::vector<uint64_t> vertices_of(const dag_graph *g) {
    dag_ids *ids = nullptr;
    EXPECT_EQ(dag_vertices(g, &ids, nullptr), DAG_OK);
    return take_ids(ids);
}

std::set<std::pair<uint64_t, uint64_t>> edges_of(const dag_graph *g) {
    dag_ids *ids = nullptr;
    EXPECT_EQ(dag_edges(g, &ids, nullptr), DAG_OK);
    const std::vector<uint64_t> flat = take_ids(ids);
    std::set<std::pair<uint64_t, uint64_t>> out;
    for (size_t i = 0; i + 1 < flat.size(); i += 2) out.insert({flat[i], flat[i + 1]});
    return out;
}

GraphPtr selection(const dag_graph *g, const std::vector<uint64_t> &targets, const std::vector<uint64_t> &excludes,
                unsigned flags) {
    dag_graph *out = nullptr;
    dag_error *err = nullptr;
    const dag_status st =
        dag_select(g, targets.data(), targets.size(), excludes.data(), excludes.size(), flags, &out, &err);
    EXPECT_EQ(st, DAG_OK) << (err ? dag_error_message(err) : "");
    dag_error_free(err);
    return GraphPtr(out);
}

// a -> b -> c (a depends on b, b on c), the header's example.
struct Chain {
    GraphPtr g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    Chain() {
        EXPECT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
        EXPECT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    }
};

TEST(CapiSelect, HeadersExampleHolds) {
    Chain x;
    EXPECT_EQ(vertices_of(selection(x.g.get(), {x.b}, {}, 0).get()), (std::vector<uint64_t>{x.b, x.c}));
    EXPECT_EQ(vertices_of(selection(x.g.get(), {x.b}, {}, DAG_SELECT_DEPENDENTS).get()),
              (std::vector<uint64_t>{x.a, x.b}));
    EXPECT_EQ(vertices_of(selection(x.g.get(), {}, {x.b}, DAG_SELECT_ALL).get()), (std::vector<uint64_t>{x.c}));
    EXPECT_EQ(vertices_of(selection(x.g.get(), {}, {x.b}, DAG_SELECT_ALL | DAG_SELECT_DEPENDENTS).get()),
              (std::vector<uint64_t>{x.a}));
    // Targets first, then the exclusion; no targets and no DAG_SELECT_ALL select nothing.
    EXPECT_EQ(vertices_of(selection(x.g.get(), {x.a}, {x.c}, 0).get()), (std::vector<uint64_t>{}));
    EXPECT_EQ(vertices_of(selection(x.g.get(), {x.c}, {x.a}, DAG_SELECT_DEPENDENTS).get()),
              (std::vector<uint64_t>{}));
    EXPECT_EQ(vertices_of(selection(x.g.get(), {}, {}, 0).get()), (std::vector<uint64_t>{}));
}

TEST(CapiSelect, KeepsIdsNamesUserDataAndTheNextId) {
    GraphPtr g = new_graph();
    int marks[4];
    uint64_t ids[4];
    const char *names[4] = {"w", nullptr, "y", "z"};
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(dag_add_vertex(g.get(), names[i], &marks[i], &ids[i], nullptr), DAG_OK);
    uint64_t gone = add(g.get(), "removed");
    ASSERT_EQ(dag_remove_vertex(g.get(), gone, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), ids[3], ids[1], nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), ids[1], ids[0], nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), ids[2], ids[0], nullptr), DAG_OK);

    GraphPtr s = selection(g.get(), {ids[3]}, {}, 0);
    ASSERT_TRUE(s);
    EXPECT_EQ(vertices_of(s.get()), (std::vector<uint64_t>{ids[0], ids[1], ids[3]}));
    EXPECT_EQ(edges_of(s.get()), (std::set<std::pair<uint64_t, uint64_t>>{{ids[3], ids[1]}, {ids[1], ids[0]}}));
    for (int i : {0, 1, 3}) {
        const char *name = "not written";
        ASSERT_EQ(dag_vertex_name(s.get(), ids[i], &name, nullptr), DAG_OK);
        if (names[i])
            EXPECT_STREQ(name, names[i]);
        else
            EXPECT_EQ(name, nullptr);
        void *user = nullptr;
        ASSERT_EQ(dag_vertex_user_data(s.get(), ids[i], &user, nullptr), DAG_OK);
        EXPECT_EQ(user, &marks[i]);
    }
    uint64_t found = 0;
    ASSERT_EQ(dag_find_vertex(s.get(), "z", &found, nullptr), DAG_OK);
    EXPECT_EQ(found, ids[3]);
    EXPECT_EQ(dag_find_vertex(s.get(), "y", &found, nullptr), DAG_E_NOT_FOUND);
    // The left-out name is free in the selection; the next id is the original's.
    EXPECT_EQ(add(s.get(), "y"), add(g.get(), "next"));
}

// ------------------------------------------------------------------------
// Random graphs against the transitive closure

struct RandomGraph {
    GraphPtr g = new_graph();
    std::vector<uint64_t> ids;  // live vertices
    std::vector<std::vector<bool>> reaches;  // [i][j]: ids[i] depends on ids[j], transitively

    explicit RandomGraph(std::mt19937 &rng) {
        const size_t n = std::uniform_int_distribution<size_t>(1, 24)(rng);
        std::bernoulli_distribution removed(0.15), edge(std::uniform_real_distribution<double>(0.02, 0.4)(rng));
        for (size_t i = 0; i < n; ++i) {
            const std::string name = "v" + std::to_string(i);
            const uint64_t id = add(g.get(), i % 5 == 4 ? nullptr : name.c_str());
            if (removed(rng))
                EXPECT_EQ(dag_remove_vertex(g.get(), id, nullptr), DAG_OK);
            else
                ids.push_back(id);
        }
        const size_t m = ids.size();
        reaches.assign(m, std::vector<bool>(m, false));
        // Edges only towards earlier vertices: a DAG.
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < i; ++j)
                if (edge(rng)) {
                    EXPECT_EQ(dag_connect(g.get(), ids[i], ids[j], nullptr), DAG_OK);
                    reaches[i][j] = true;
                }
        for (size_t k = 0; k < m; ++k)
            for (size_t i = 0; i < m; ++i)
                if (reaches[i][k])
                    for (size_t j = 0; j < m; ++j)
                        if (reaches[k][j]) reaches[i][j] = true;
    }

    std::vector<size_t> pick(std::mt19937 &rng) const {
        std::vector<size_t> out;
        if (ids.empty()) return out;
        const size_t k = std::uniform_int_distribution<size_t>(0, 3)(rng);
        std::uniform_int_distribution<size_t> any(0, ids.size() - 1);
        for (size_t i = 0; i < k; ++i) out.push_back(any(rng));
        return out;
    }

    // Whether ids[v] is in what dag_select is documented to keep.
    bool selected(size_t v, const std::vector<size_t> &targets, const std::vector<size_t> &excludes,
                  unsigned flags) const {
        const bool dependents = flags & DAG_SELECT_DEPENDENTS;
        bool kept = flags & DAG_SELECT_ALL;
        for (size_t t : targets) kept = kept || t == v || (dependents ? reaches[v][t] : reaches[t][v]);
        for (size_t x : excludes) kept = kept && !(x == v || (dependents ? reaches[x][v] : reaches[v][x]));
        return kept;
    }
};

TEST(CapiSelect, MatchesABruteForceSelectionOnRandomGraphs) {
    std::mt19937 rng(20261127);
    int partial = 0;  // rounds that kept some vertices and left out others
    for (int round = 0; round < 400; ++round) {
        RandomGraph r(rng);
        const std::vector<size_t> targets = r.pick(rng), excludes = r.pick(rng);
        const unsigned flags = std::uniform_int_distribution<unsigned>(0, 3)(rng);
        std::vector<uint64_t> target_ids, exclude_ids, expected;
        for (size_t t : targets) target_ids.push_back(r.ids[t]);
        for (size_t x : excludes) exclude_ids.push_back(r.ids[x]);
        for (size_t v = 0; v < r.ids.size(); ++v)
            if (r.selected(v, targets, excludes, flags)) expected.push_back(r.ids[v]);

        partial += !expected.empty() && expected.size() < r.ids.size();
        GraphPtr s = selection(r.g.get(), target_ids, exclude_ids, flags);
        ASSERT_TRUE(s);
        ASSERT_EQ(vertices_of(s.get()), expected) << "round " << round << ", flags " << flags;
        const std::set<uint64_t> kept(expected.begin(), expected.end());
        std::set<std::pair<uint64_t, uint64_t>> expected_edges;
        for (auto [from, to] : edges_of(r.g.get()))
            if (kept.count(from) && kept.count(to)) expected_edges.insert({from, to});
        ASSERT_EQ(edges_of(s.get()), expected_edges) << "round " << round;
        for (uint64_t id : expected) {
            const char *original = nullptr, *copy = nullptr;
            ASSERT_EQ(dag_vertex_name(r.g.get(), id, &original, nullptr), DAG_OK);
            ASSERT_EQ(dag_vertex_name(s.get(), id, &copy, nullptr), DAG_OK);
            EXPECT_EQ(std::string(original ? original : "-"), std::string(copy ? copy : "-"));
        }
    }
    EXPECT_GT(partial, 100) << "the random cases hardly tested a selection";
}

// ------------------------------------------------------------------------
// Errors: each its own status, and *out untouched

TEST(CapiSelect, EachErrorHasItsOwnStatus) {
    Chain x;
    dag_graph *out = nullptr;
    const uint64_t one[] = {x.a};
    auto call = [&](const dag_graph *g, const uint64_t *t, size_t tn, const uint64_t *e, size_t en, unsigned flags,
                    dag_graph **o) {
        return [=](dag_error **err) { return dag_select(g, t, tn, e, en, flags, o, err); };
    };
    EXPECT_NE(expect_error(DAG_E_NULL_ARGUMENT, call(nullptr, one, 1, nullptr, 0, 0, &out)).find("'g'"),
              std::string::npos);
    EXPECT_NE(expect_error(DAG_E_NULL_ARGUMENT, call(x.g.get(), one, 1, nullptr, 0, 0, nullptr)).find("'out'"),
              std::string::npos);
    EXPECT_NE(expect_error(DAG_E_NULL_ARGUMENT, call(x.g.get(), nullptr, 1, nullptr, 0, 0, &out)).find("'targets'"),
              std::string::npos);
    EXPECT_NE(expect_error(DAG_E_NULL_ARGUMENT, call(x.g.get(), one, 1, nullptr, 2, 0, &out)).find("'excludes'"),
              std::string::npos);
    EXPECT_NE(expect_error(DAG_E_INVALID_ARGUMENT, call(x.g.get(), one, 1, nullptr, 0, 4, &out)).find("flag"),
              std::string::npos);
    EXPECT_NE(expect_error(DAG_E_INVALID_ARGUMENT, call(x.g.get(), one, SIZE_MAX, nullptr, 0, 0, &out))
                  .find("target_count"),
              std::string::npos);
    EXPECT_NE(expect_error(DAG_E_INVALID_ARGUMENT, call(x.g.get(), one, 1, one, SIZE_MAX, 0, &out))
                  .find("exclude_count"),
              std::string::npos);

    const uint64_t unknown[] = {x.c + 1};
    EXPECT_NE(expect_error(DAG_E_UNKNOWN_VERTEX, call(x.g.get(), unknown, 1, nullptr, 0, 0, &out))
                  .find(std::to_string(x.c + 1)),
              std::string::npos);
    ASSERT_EQ(dag_remove_vertex(x.g.get(), x.c, nullptr), DAG_OK);
    const uint64_t removed[] = {x.c};
    EXPECT_NE(expect_error(DAG_E_UNKNOWN_VERTEX, call(x.g.get(), one, 1, removed, 1, DAG_SELECT_ALL, &out))
                  .find("removed"),
              std::string::npos);
    EXPECT_EQ(out, nullptr) << "written on failure";

    // DAG_SELECT_ALL ignores the targets, known or not.
    GraphPtr all = selection(x.g.get(), {x.c}, {}, DAG_SELECT_ALL);
    EXPECT_EQ(vertices_of(all.get()), (std::vector<uint64_t>{x.a, x.b}));
}

TEST(CapiSelect, ReadsAGraphWhileItIsWalked) {
    Chain x;
    dag_walker *walk = nullptr;
    ASSERT_EQ(dag_walk_begin(x.g.get(), nullptr, &walk, nullptr), DAG_OK);
    GraphPtr s = selection(x.g.get(), {x.b}, {}, 0);
    EXPECT_EQ(vertices_of(s.get()), (std::vector<uint64_t>{x.b, x.c}));
    EXPECT_EQ(dag_walk_cancel(walk, nullptr), DAG_OK);
    dag_walk_report *report = nullptr;
    EXPECT_EQ(dag_walk_wait_for(walk, 10000, &report, nullptr), DAG_E_CANCELLED);
    dag_walk_report_free(report);
    dag_walk_free(walk);
}

}  // namespace
