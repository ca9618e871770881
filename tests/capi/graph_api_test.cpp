#include "capi_test_support.hpp"

TEST(CapiGraph, BuildAndPrint) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "1"), b = add(g.get(), "2"), c = add(g.get(), "3");
    (void)b;
    ASSERT_EQ(dag_connect(g.get(), a, c, nullptr), DAG_OK);
    char *s = nullptr;
    ASSERT_EQ(dag_to_string(g.get(), &s, nullptr), DAG_OK);
    EXPECT_EQ(take_string(s), "1\n  3\n2\n3\n");
    EXPECT_EQ(dag_vertex_count(g.get()), 3u);
    EXPECT_EQ(dag_edge_count(g.get()), 1u);
}

TEST(CapiGraph, VertexIdsNamesAndUserData) {
    auto g = new_graph();
    int tag = 7;
    uint64_t id = 0;
    ASSERT_EQ(dag_add_vertex(g.get(), "aws_instance.web", &tag, &id, nullptr), DAG_OK);
    EXPECT_EQ(id, 1u);
    EXPECT_EQ(dag_add_vertex(g.get(), nullptr, nullptr, nullptr, nullptr), DAG_OK) << "out_id may be NULL";
    EXPECT_EQ(dag_vertex_count(g.get()), 2u);
    EXPECT_TRUE(dag_has_vertex(g.get(), 2));

    uint64_t found = 0;
    ASSERT_EQ(dag_find_vertex(g.get(), "aws_instance.web", &found, nullptr), DAG_OK);
    EXPECT_EQ(found, id);
    const char *name = nullptr;
    ASSERT_EQ(dag_vertex_name(g.get(), id, &name, nullptr), DAG_OK);
    EXPECT_STREQ(name, "aws_instance.web");
    ASSERT_EQ(dag_vertex_name(g.get(), 2, &name, nullptr), DAG_OK);
    EXPECT_EQ(name, nullptr);

    void *user = nullptr;
    ASSERT_EQ(dag_vertex_user_data(g.get(), id, &user, nullptr), DAG_OK);
    EXPECT_EQ(user, &tag);
    ASSERT_EQ(dag_set_vertex_user_data(g.get(), id, nullptr, nullptr), DAG_OK);
    ASSERT_EQ(dag_vertex_user_data(g.get(), id, &user, nullptr), DAG_OK);
    EXPECT_EQ(user, nullptr);

    ASSERT_EQ(dag_set_vertex_name(g.get(), 2, "later", nullptr), DAG_OK);
    ASSERT_EQ(dag_find_vertex(g.get(), "later", &found, nullptr), DAG_OK);
    EXPECT_EQ(found, 2u);
    ASSERT_EQ(dag_set_vertex_name(g.get(), 2, nullptr, nullptr), DAG_OK);
    expect_error(DAG_E_NOT_FOUND, [&](dag_error **e) { return dag_find_vertex(g.get(), "later", &found, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_find_vertex(g.get(), "", &found, e); });
}

TEST(CapiGraph, EdgesAndListings) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    ASSERT_EQ(dag_connect(g.get(), a, c, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_connect(g.get(), c, b, nullptr), DAG_OK);
    EXPECT_EQ(dag_edge_count(g.get()), 3u);
    EXPECT_TRUE(dag_has_edge(g.get(), a, b));
    EXPECT_FALSE(dag_has_edge(g.get(), b, a));
    EXPECT_FALSE(dag_has_edge(g.get(), a, 99));

    dag_ids *ids = nullptr;
    ASSERT_EQ(dag_vertices(g.get(), &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (std::vector<uint64_t>{a, b, c}));
    ASSERT_EQ(dag_edges(g.get(), &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (std::vector<uint64_t>{a, b, a, c, c, b}));
    ASSERT_EQ(dag_dependencies(g.get(), a, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (std::vector<uint64_t>{b, c}));
    ASSERT_EQ(dag_dependents(g.get(), b, &ids, nullptr), DAG_OK);
    EXPECT_EQ(take_ids(ids), (std::vector<uint64_t>{a, c}));
    ASSERT_EQ(dag_dependents(g.get(), a, &ids, nullptr), DAG_OK);
    EXPECT_EQ(dag_ids_count(ids), 0u);
    EXPECT_EQ(dag_ids_data(ids), nullptr);
    dag_ids_free(ids);

    ASSERT_EQ(dag_disconnect(g.get(), a, b, nullptr), DAG_OK);
    ASSERT_EQ(dag_disconnect(g.get(), a, b, nullptr), DAG_OK) << "removing a missing edge is a no-op";
    EXPECT_EQ(dag_edge_count(g.get()), 2u);
}

TEST(CapiGraph, ConnectMany) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b"), c = add(g.get(), "c");
    const uint64_t pairs[] = {a, b, b, c, a, b, c, c};
    ASSERT_EQ(dag_connect_many(g.get(), pairs, 4, nullptr), DAG_OK);
    EXPECT_EQ(dag_edge_count(g.get()), 3u);
    EXPECT_TRUE(dag_has_edge(g.get(), c, c));
    EXPECT_EQ(dag_connect_many(g.get(), nullptr, 0, nullptr), DAG_OK);
    const uint64_t bad[] = {a, c, c, 99};
    std::string msg = expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_connect_many(g.get(), bad, 2, e); });
    EXPECT_NE(msg.find("edge 1"), std::string::npos) << msg;
    EXPECT_FALSE(dag_has_edge(g.get(), a, c)) << "all or nothing";
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_connect_many(nullptr, pairs, 1, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_connect_many(g.get(), nullptr, 1, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_connect_many(g.get(), pairs, SIZE_MAX, e); });
    // Below the old bound of SIZE_MAX / 2, yet more pairs than any array holds:
    // the call would read past the caller's array.
    const size_t too_many = static_cast<size_t>(PTRDIFF_MAX) / 16 + 1;
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_connect_many(g.get(), pairs, too_many, e); });
}

TEST(CapiGraph, RemoveAndReplace) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "1"), b = add(g.get(), "2"), c = add(g.get(), "3");
    dag_connect(g.get(), a, b, nullptr);
    dag_connect(g.get(), b, c, nullptr);
    uint64_t r = add(g.get(), "42");
    ASSERT_EQ(dag_replace_vertex(g.get(), b, r, nullptr), DAG_OK);
    char *s = nullptr;
    ASSERT_EQ(dag_to_string(g.get(), &s, nullptr), DAG_OK);
    EXPECT_EQ(take_string(s), "1\n  42\n3\n42\n  3\n");
    EXPECT_FALSE(dag_has_vertex(g.get(), b));
    ASSERT_EQ(dag_remove_vertex(g.get(), r, nullptr), DAG_OK);
    EXPECT_EQ(dag_edge_count(g.get()), 0u);
    EXPECT_EQ(add(g.get(), "2"), 5u) << "names are freed, ids are not reused";
}

TEST(CapiGraph, CloneIsIndependent) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    dag_connect(g.get(), a, b, nullptr);
    dag_graph *copy = nullptr;
    ASSERT_EQ(dag_clone(g.get(), &copy, nullptr), DAG_OK);
    GraphPtr c(copy);
    ASSERT_EQ(dag_remove_vertex(c.get(), a, nullptr), DAG_OK);
    EXPECT_TRUE(dag_has_edge(g.get(), a, b));
    EXPECT_EQ(dag_vertex_count(c.get()), 1u);
    EXPECT_EQ(add(c.get(), "z"), 3u);
}

TEST(CapiGraph, SubsumeMergesNamedVertices) {
    auto g = new_graph(), other = new_graph();
    uint64_t a = add(g.get(), "a");
    uint64_t oa = add(other.get(), "a"), ob = add(other.get(), "b");
    dag_connect(other.get(), oa, ob, nullptr);
    ASSERT_EQ(dag_subsume(g.get(), other.get(), nullptr), DAG_OK);
    uint64_t b = 0;
    ASSERT_EQ(dag_find_vertex(g.get(), "b", &b, nullptr), DAG_OK);
    EXPECT_TRUE(dag_has_edge(g.get(), a, b));
    EXPECT_EQ(dag_vertex_count(other.get()), 2u);
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_subsume(g.get(), g.get(), e); });
}

// --- bad input: every function, every way -----------------------------------

TEST(CapiGraphBadInput, NullHandlesAndOutParameters) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a");
    dag_ids *ids = nullptr;
    char *s = nullptr;
    const char *name = nullptr;
    void *user = nullptr;
    uint64_t id = 0;
    dag_graph *out = nullptr;
    auto null = [](auto &&call) { expect_error(DAG_E_NULL_ARGUMENT, call); };
    null([&](dag_error **e) { return dag_new(nullptr, e); });
    null([&](dag_error **e) { return dag_clone(nullptr, &out, e); });
    null([&](dag_error **e) { return dag_clone(g.get(), nullptr, e); });
    null([&](dag_error **e) { return dag_add_vertex(nullptr, "x", nullptr, &id, e); });
    null([&](dag_error **e) { return dag_remove_vertex(nullptr, a, e); });
    null([&](dag_error **e) { return dag_replace_vertex(nullptr, a, a, e); });
    null([&](dag_error **e) { return dag_find_vertex(nullptr, "a", &id, e); });
    null([&](dag_error **e) { return dag_find_vertex(g.get(), nullptr, &id, e); });
    null([&](dag_error **e) { return dag_find_vertex(g.get(), "a", nullptr, e); });
    null([&](dag_error **e) { return dag_vertex_name(nullptr, a, &name, e); });
    null([&](dag_error **e) { return dag_vertex_name(g.get(), a, nullptr, e); });
    null([&](dag_error **e) { return dag_set_vertex_name(nullptr, a, "b", e); });
    null([&](dag_error **e) { return dag_vertex_user_data(nullptr, a, &user, e); });
    null([&](dag_error **e) { return dag_vertex_user_data(g.get(), a, nullptr, e); });
    null([&](dag_error **e) { return dag_set_vertex_user_data(nullptr, a, nullptr, e); });
    null([&](dag_error **e) { return dag_connect(nullptr, a, a, e); });
    null([&](dag_error **e) { return dag_disconnect(nullptr, a, a, e); });
    null([&](dag_error **e) { return dag_vertices(nullptr, &ids, e); });
    null([&](dag_error **e) { return dag_vertices(g.get(), nullptr, e); });
    null([&](dag_error **e) { return dag_edges(nullptr, &ids, e); });
    null([&](dag_error **e) { return dag_edges(g.get(), nullptr, e); });
    null([&](dag_error **e) { return dag_dependencies(nullptr, a, &ids, e); });
    null([&](dag_error **e) { return dag_dependencies(g.get(), a, nullptr, e); });
    null([&](dag_error **e) { return dag_dependents(nullptr, a, &ids, e); });
    null([&](dag_error **e) { return dag_dependents(g.get(), a, nullptr, e); });
    null([&](dag_error **e) { return dag_subsume(nullptr, g.get(), e); });
    null([&](dag_error **e) { return dag_subsume(g.get(), nullptr, e); });
    null([&](dag_error **e) { return dag_to_string(nullptr, &s, e); });
    null([&](dag_error **e) { return dag_to_string(g.get(), nullptr, e); });
    EXPECT_FALSE(dag_has_vertex(nullptr, a));
    EXPECT_FALSE(dag_has_edge(nullptr, a, a));
    EXPECT_EQ(dag_vertex_count(nullptr), 0u);
    EXPECT_EQ(dag_edge_count(nullptr), 0u);
    EXPECT_EQ(dag_vertex_count(g.get()), 1u) << "nothing was added by the failed calls";
}

TEST(CapiGraphBadInput, UnknownAndRemovedIds) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), gone = add(g.get(), "gone");
    ASSERT_EQ(dag_remove_vertex(g.get(), gone, nullptr), DAG_OK);
    dag_ids *ids = nullptr;
    const char *name = nullptr;
    void *user = nullptr;
    for (uint64_t bad : {uint64_t{0}, gone, uint64_t{1000}}) {
        auto unknown = [](auto &&call) { return expect_error(DAG_E_UNKNOWN_VERTEX, call); };
        std::string msg = unknown([&](dag_error **e) { return dag_remove_vertex(g.get(), bad, e); });
        EXPECT_NE(msg.find(std::to_string(bad)), std::string::npos) << msg;
        unknown([&](dag_error **e) { return dag_replace_vertex(g.get(), bad, a, e); });
        unknown([&](dag_error **e) { return dag_replace_vertex(g.get(), a, bad, e); });
        unknown([&](dag_error **e) { return dag_vertex_name(g.get(), bad, &name, e); });
        unknown([&](dag_error **e) { return dag_set_vertex_name(g.get(), bad, "x", e); });
        unknown([&](dag_error **e) { return dag_vertex_user_data(g.get(), bad, &user, e); });
        unknown([&](dag_error **e) { return dag_set_vertex_user_data(g.get(), bad, nullptr, e); });
        unknown([&](dag_error **e) { return dag_connect(g.get(), a, bad, e); });
        unknown([&](dag_error **e) { return dag_connect(g.get(), bad, a, e); });
        unknown([&](dag_error **e) { return dag_disconnect(g.get(), a, bad, e); });
        unknown([&](dag_error **e) { return dag_dependencies(g.get(), bad, &ids, e); });
        unknown([&](dag_error **e) { return dag_dependents(g.get(), bad, &ids, e); });
        EXPECT_FALSE(dag_has_vertex(g.get(), bad));
    }
    std::string msg = expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_connect(g.get(), a, gone, e); });
    EXPECT_NE(msg.find("removed"), std::string::npos) << msg;
    EXPECT_EQ(dag_edge_count(g.get()), 0u);
    EXPECT_EQ(dag_vertex_count(g.get()), 1u);
}

TEST(CapiGraphBadInput, DuplicateEmptyAndInvalidNames) {
    auto g = new_graph();
    uint64_t a = add(g.get(), "a"), b = add(g.get(), "b");
    uint64_t id = 0;
    std::string msg = expect_error(DAG_E_DUPLICATE_NAME, [&](dag_error **e) { return dag_add_vertex(g.get(), "a", nullptr, &id, e); });
    EXPECT_NE(msg.find("\"a\""), std::string::npos) << msg;
    expect_error(DAG_E_DUPLICATE_NAME, [&](dag_error **e) { return dag_set_vertex_name(g.get(), b, "a", e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_add_vertex(g.get(), "", nullptr, &id, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_set_vertex_name(g.get(), a, "", e); });
    const char *bad[] = {"\xff", "caf\xe9", "\xc0\xaf", "\xed\xa0\x80", "ok\xe2\x82"};
    for (const char *name : bad) {
        expect_error(DAG_E_BAD_UTF8, [&](dag_error **e) { return dag_add_vertex(g.get(), name, nullptr, &id, e); });
        expect_error(DAG_E_BAD_UTF8, [&](dag_error **e) { return dag_set_vertex_name(g.get(), a, name, e); });
        expect_error(DAG_E_BAD_UTF8, [&](dag_error **e) { return dag_find_vertex(g.get(), name, &id, e); });
    }
    EXPECT_EQ(dag_vertex_count(g.get()), 2u);
    const char *name = nullptr;
    ASSERT_EQ(dag_vertex_name(g.get(), a, &name, nullptr), DAG_OK);
    EXPECT_STREQ(name, "a");
    ASSERT_EQ(dag_vertex_name(g.get(), b, &name, nullptr), DAG_OK);
    EXPECT_STREQ(name, "b");
    ASSERT_EQ(dag_add_vertex(g.get(), "\xd0\x9f\xd0\xa0", nullptr, &id, nullptr), DAG_OK) << "UTF-8 names are fine";
}

TEST(CapiGraph, AddVerticesAddsThemInOrderWithConsecutiveIds) {
    auto g = new_graph();
    add(g.get(), "first");
    int tags[3] = {};
    const char *names[] = {"a", nullptr, "module.m.aws_instance.c"};
    void *users[] = {&tags[0], &tags[1], nullptr};
    uint64_t ids[3] = {};
    ASSERT_EQ(dag_add_vertices(g.get(), names, users, 3, ids, nullptr), DAG_OK);
    EXPECT_EQ(ids[0], 2u);
    EXPECT_EQ(ids[1], 3u);
    EXPECT_EQ(ids[2], 4u);
    EXPECT_EQ(dag_vertex_count(g.get()), 4u);
    for (int i = 0; i < 3; ++i) {
        const char *name = nullptr;
        ASSERT_EQ(dag_vertex_name(g.get(), ids[i], &name, nullptr), DAG_OK);
        if (names[i])
            EXPECT_STREQ(name, names[i]);
        else
            EXPECT_EQ(name, nullptr);
        void *user = &tags[2];
        ASSERT_EQ(dag_vertex_user_data(g.get(), ids[i], &user, nullptr), DAG_OK);
        EXPECT_EQ(user, users[i]);
    }
    uint64_t found = 0;
    ASSERT_EQ(dag_find_vertex(g.get(), "module.m.aws_instance.c", &found, nullptr), DAG_OK);
    EXPECT_EQ(found, ids[2]);
    // No names, no user data, no ids wanted; and an empty batch.
    ASSERT_EQ(dag_add_vertices(g.get(), nullptr, nullptr, 2, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(dag_vertex_count(g.get()), 6u);
    ASSERT_EQ(dag_add_vertices(g.get(), nullptr, nullptr, 0, nullptr, nullptr), DAG_OK);
    EXPECT_EQ(dag_vertex_count(g.get()), 6u);
}

TEST(CapiGraph, AddVerticesAddsNothingWhenOneNameIsRefused) {
    auto g = new_graph();
    add(g.get(), "taken");
    const auto refused = [&](dag_status status, std::vector<const char *> names, const char *needle) {
        const std::string msg = expect_error(status, [&](dag_error **e) {
            return dag_add_vertices(g.get(), names.data(), nullptr, names.size(), nullptr, e);
        });
        EXPECT_NE(msg.find(needle), std::string::npos) << msg;
        EXPECT_EQ(dag_vertex_count(g.get()), 1u) << msg;
    };
    // Many names before the bad one: the batch is past its first groups.
    std::vector<std::string> many;
    for (int i = 0; i < 100; ++i) many.push_back("v" + std::to_string(i));
    std::vector<const char *> names;
    for (const std::string &n : many) names.push_back(n.c_str());
    names.push_back("taken");
    refused(DAG_E_DUPLICATE_NAME, names, "vertex 100: vertex name \"taken\" is already used by vertex 1");
    names.back() = "v7";
    refused(DAG_E_DUPLICATE_NAME, names, "vertex 100: vertex name \"v7\" is already used by vertex 7 of the batch");
    names.back() = "";
    refused(DAG_E_INVALID_ARGUMENT, names, "vertex 100:");
    names.back() = "\xff";
    refused(DAG_E_BAD_UTF8, names, "vertex 100:");
    // Nothing of the refused batches stayed behind: every name is free.
    names.back() = "last";
    ASSERT_EQ(dag_add_vertices(g.get(), names.data(), nullptr, names.size(), nullptr, nullptr), DAG_OK);
    EXPECT_EQ(dag_vertex_count(g.get()), 102u);
    uint64_t id = 0;
    ASSERT_EQ(dag_find_vertex(g.get(), "v7", &id, nullptr), DAG_OK);
    EXPECT_EQ(id, 9u);

    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_add_vertices(nullptr, nullptr, nullptr, 1, nullptr, e); });
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) {
        return dag_add_vertices(g.get(), nullptr, nullptr, SIZE_MAX, nullptr, e);
    });
    // A count an array could hold, but no graph: refused before anything is
    // allocated, not a failure inside the vertex array.
    const std::string big = expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) {
        return dag_add_vertices(g.get(), nullptr, nullptr, PTRDIFF_MAX / 8, nullptr, e);
    });
    EXPECT_NE(big.find("too large"), std::string::npos) << big;
    EXPECT_EQ(dag_vertex_count(g.get()), 102u);
}

TEST(CapiGraph, FindVerticesAnswersAsFindVertexDoes) {
    auto g = new_graph();
    std::vector<std::string> names;
    for (int i = 0; i < 1500; ++i) names.push_back("module.m" + std::to_string(i % 7) + ".r" + std::to_string(i));
    for (const std::string &n : names) add(g.get(), n.c_str());
    // Removed and renamed vertices: their old names are free.
    for (uint64_t id = 5; id <= 1500; id += 11) ASSERT_EQ(dag_remove_vertex(g.get(), id, nullptr), DAG_OK);
    for (uint64_t id = 7; id <= 1500; id += 13) {
        if (dag_has_vertex(g.get(), id)) {
            ASSERT_EQ(dag_set_vertex_name(g.get(), id, ("renamed" + std::to_string(id)).c_str(), nullptr), DAG_OK);
        }
    }
    std::vector<std::string> asked;
    for (int i = 0; i < 1500; i += 2) asked.push_back(names[i]);
    for (int i = 0; i < 300; ++i) asked.push_back("renamed" + std::to_string(i));
    asked.push_back("absent");
    std::vector<const char *> ptrs;
    for (const std::string &n : asked) ptrs.push_back(n.c_str());
    std::vector<uint64_t> ids(ptrs.size(), 12345);
    ASSERT_EQ(dag_find_vertices(g.get(), ptrs.data(), ptrs.size(), ids.data(), nullptr), DAG_OK);
    size_t found = 0;
    for (size_t i = 0; i < ptrs.size(); ++i) {
        uint64_t one = 0;
        const dag_status st = dag_find_vertex(g.get(), ptrs[i], &one, nullptr);
        ASSERT_TRUE(st == DAG_OK || st == DAG_E_NOT_FOUND) << ptrs[i];
        EXPECT_EQ(ids[i], st == DAG_OK ? one : 0u) << ptrs[i];
        found += st == DAG_OK;
    }
    EXPECT_GT(found, 500u);
    EXPECT_LT(found, ptrs.size());
    EXPECT_EQ(dag_find_vertices(g.get(), nullptr, 0, nullptr, nullptr), DAG_OK);
}

TEST(CapiGraph, FindVerticesRefusesBadNamesByPosition) {
    auto g = new_graph();
    add(g.get(), "a");
    uint64_t ids[300];
    std::vector<const char *> names(300, "a");
    names[299] = nullptr;
    std::string msg = expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) {
        return dag_find_vertices(g.get(), names.data(), names.size(), ids, e);
    });
    EXPECT_NE(msg.find("names[299]"), std::string::npos) << msg;
    names[299] = "\xc3";
    msg = expect_error(DAG_E_BAD_UTF8, [&](dag_error **e) { return dag_find_vertices(g.get(), names.data(), 300, ids, e); });
    EXPECT_NE(msg.find("names[299]"), std::string::npos) << msg;
    names[299] = "";
    expect_error(DAG_E_INVALID_ARGUMENT, [&](dag_error **e) { return dag_find_vertices(g.get(), names.data(), 300, ids, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_find_vertices(nullptr, names.data(), 1, ids, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_find_vertices(g.get(), nullptr, 1, ids, e); });
    expect_error(DAG_E_NULL_ARGUMENT, [&](dag_error **e) { return dag_find_vertices(g.get(), names.data(), 1, nullptr, e); });
}
