// dag_roots, dag_leaves, dag_dependency_count and dag_dependent_count.
#include "capi_test_support.hpp"

namespace {

std::vector<uint64_t> roots_of(const dag_graph *g) {
    dag_ids *ids = nullptr;
    EXPECT_EQ(dag_roots(g, &ids, nullptr), DAG_OK);
    return take_ids(ids);
}

std::vector<uint64_t> leaves_of(const dag_graph *g) {
    dag_ids *ids = nullptr;
    EXPECT_EQ(dag_leaves(g, &ids, nullptr), DAG_OK);
    return take_ids(ids);
}

size_t dependencies_of(const dag_graph *g, uint64_t id) {
    size_t n = 12345;
    EXPECT_EQ(dag_dependency_count(g, id, &n, nullptr), DAG_OK) << id;
    return n;
}

size_t dependents_of(const dag_graph *g, uint64_t id) {
    size_t n = 12345;
    EXPECT_EQ(dag_dependent_count(g, id, &n, nullptr), DAG_OK) << id;
    return n;
}

}  // namespace

TEST(CapiDegrees, TheHeadersThreeVertexExample) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), a, c, nullptr), DAG_OK);
    EXPECT_EQ(roots_of(g.get()), (std::vector<uint64_t>{a}));
    EXPECT_EQ(leaves_of(g.get()), (std::vector<uint64_t>{b, c}));
    EXPECT_EQ(dependencies_of(g.get(), a), 2u);
    EXPECT_EQ(dependents_of(g.get(), a), 0u);
    EXPECT_EQ(dependencies_of(g.get(), b), 0u);
    EXPECT_EQ(dependents_of(g.get(), b), 1u);
    uint64_t root = 0;
    ASSERT_EQ(dag_root(g.get(), &root, nullptr), DAG_OK);
    EXPECT_EQ(root, a) << "dag_root agrees with the single root";
}

TEST(CapiDegrees, EmptyGraphHasNoRootsOrLeaves) {
    GraphPtr g = new_graph();
    EXPECT_TRUE(roots_of(g.get()).empty());
    EXPECT_TRUE(leaves_of(g.get()).empty());
}

TEST(CapiDegrees, AnIsolatedVertexIsBothAndASelfLoopNeither) {
    GraphPtr g = new_graph();
    const uint64_t lone = add(g.get(), "lone"), self = add(g.get(), "self");
    ASSERT_EQ(dag_connect(g.get(), self, self, nullptr), DAG_OK);
    EXPECT_EQ(roots_of(g.get()), (std::vector<uint64_t>{lone}));
    EXPECT_EQ(leaves_of(g.get()), (std::vector<uint64_t>{lone}));
    EXPECT_EQ(dependencies_of(g.get(), self), 1u);
    EXPECT_EQ(dependents_of(g.get(), self), 1u);
}

TEST(CapiDegrees, RemovedVerticesAndTheirEdgesDoNotCount) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c"), d = add(g.get(), "d");
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), b, c, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), d, c, nullptr), DAG_OK);
    EXPECT_EQ(roots_of(g.get()), (std::vector<uint64_t>{a, d}));
    EXPECT_EQ(dependents_of(g.get(), c), 2u);
    ASSERT_EQ(dag_remove_vertex(g.get(), a, nullptr), DAG_OK);
    ASSERT_EQ(dag_remove_vertex(g.get(), c, nullptr), DAG_OK);
    // b lost its dependent and its dependency: it is now both.
    EXPECT_EQ(roots_of(g.get()), (std::vector<uint64_t>{b, d}));
    EXPECT_EQ(leaves_of(g.get()), (std::vector<uint64_t>{b, d}));
    EXPECT_EQ(dependencies_of(g.get(), d), 0u);
    expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) {
        size_t n;
        return dag_dependency_count(g.get(), a, &n, e);
    });
}

TEST(CapiDegrees, DegreesMatchTheNeighbourListsOnAWideGraph) {
    GraphPtr g = new_graph();
    std::vector<uint64_t> v;
    for (int i = 0; i < 60; ++i) v.push_back(add(g.get(), nullptr));
    // i depends on every j > i that i divides: a mix of hubs and leaves.
    for (size_t i = 0; i < v.size(); ++i)
        for (size_t j = i + 1; j < v.size(); ++j)
            if ((j + 1) % (i + 1) == 0) { ASSERT_EQ(dag_connect(g.get(), v[i], v[j], nullptr), DAG_OK); }
    std::vector<uint64_t> roots, leaves;
    for (uint64_t id : v) {
        dag_ids *deps = nullptr, *dents = nullptr;
        ASSERT_EQ(dag_dependencies(g.get(), id, &deps, nullptr), DAG_OK);
        ASSERT_EQ(dag_dependents(g.get(), id, &dents, nullptr), DAG_OK);
        const size_t out = take_ids(deps).size(), in = take_ids(dents).size();
        EXPECT_EQ(dependencies_of(g.get(), id), out) << id;
        EXPECT_EQ(dependents_of(g.get(), id), in) << id;
        if (in == 0) roots.push_back(id);
        if (out == 0) leaves.push_back(id);
    }
    EXPECT_EQ(roots_of(g.get()), roots);
    EXPECT_EQ(leaves_of(g.get()), leaves);
    EXPECT_GT(leaves.size(), 1u);
}

TEST(CapiDegrees, UnknownIdsAndNullArguments) {
    GraphPtr g = new_graph();
    const uint64_t a = add(g.get(), "a");
    size_t n = 7;
    for (uint64_t bad : {DAG_NO_VERTEX, a + 1, UINT64_MAX}) {
        expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_dependency_count(g.get(), bad, &n, e); });
        expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_dependent_count(g.get(), bad, &n, e); });
    }
    EXPECT_EQ(n, 7u) << "out-parameters are written only on success";
    dag_ids *ids = nullptr;
    auto null = [](auto &&call) { expect_error(DAG_E_NULL_ARGUMENT, call); };
    null([&](dag_error **e) { return dag_roots(nullptr, &ids, e); });
    null([&](dag_error **e) { return dag_roots(g.get(), nullptr, e); });
    null([&](dag_error **e) { return dag_leaves(nullptr, &ids, e); });
    null([&](dag_error **e) { return dag_leaves(g.get(), nullptr, e); });
    null([&](dag_error **e) { return dag_dependency_count(nullptr, a, &n, e); });
    null([&](dag_error **e) { return dag_dependency_count(g.get(), a, nullptr, e); });
    null([&](dag_error **e) { return dag_dependent_count(nullptr, a, &n, e); });
    null([&](dag_error **e) { return dag_dependent_count(g.get(), a, nullptr, e); });
    EXPECT_EQ(ids, nullptr);
    const std::string msg =
        expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_dependent_count(g.get(), a, nullptr, e); });
    EXPECT_EQ(msg.rfind("dag_dependent_count: ", 0), 0u) << msg;
}
