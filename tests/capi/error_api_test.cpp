#include "capi_test_support.hpp"

#include <set>

TEST(CapiErrors, EveryStatusHasItsOwnName) {
    std::set<std::string> names;
    for (int s = DAG_OK; s >= DAG_E_CALLBACK; --s) {
        std::string name = dag_status_string(static_cast<dag_status>(s));
        EXPECT_NE(name, "unrecognised status") << s;
        names.insert(name);
    }
    EXPECT_EQ(names.size(), static_cast<size_t>(1 - DAG_E_CALLBACK));
    EXPECT_STREQ(dag_status_string(static_cast<dag_status>(-1000)), "unrecognised status");
    EXPECT_STREQ(dag_status_string(static_cast<dag_status>(5)), "unrecognised status");
}

TEST(CapiErrors, TheTimeoutStatusIsPinnedAndNamed) {
    EXPECT_EQ(DAG_E_TIMEOUT, -20);
    EXPECT_STREQ(dag_status_string(DAG_E_TIMEOUT), "timed out");
}

TEST(CapiErrors, StatusValuesArePinned) {
    EXPECT_EQ(DAG_OK, 0);
    EXPECT_EQ(DAG_E_NULL_ARGUMENT, -1);
    EXPECT_EQ(DAG_E_UNKNOWN_VERTEX, -4);
    EXPECT_EQ(DAG_E_DUPLICATE_NAME, -6);
    EXPECT_EQ(DAG_E_BAD_UTF8, -7);
    EXPECT_EQ(DAG_E_CYCLE, -8);
    EXPECT_EQ(DAG_E_BUSY, -9);
    EXPECT_EQ(DAG_E_INTERNAL, -17);
    EXPECT_EQ(DAG_E_WALK_FAILED, -18);
    EXPECT_EQ(DAG_E_CALLBACK, -19);
}

TEST(CapiErrors, NullErrorObjectIsHarmless) {
    EXPECT_EQ(dag_error_status(nullptr), DAG_E_NULL_ARGUMENT);
    EXPECT_STREQ(dag_error_message(nullptr), "");
    dag_error_free(nullptr);
    dag_ids_free(nullptr);
    dag_string_free(nullptr);
    dag_free(nullptr);
    EXPECT_EQ(dag_ids_count(nullptr), 0u);
    EXPECT_EQ(dag_ids_data(nullptr), nullptr);
}

TEST(CapiErrors, SuccessClearsTheErrorOutParameter) {
    dag_graph *g = nullptr;
    dag_error *err = reinterpret_cast<dag_error *>(0x1);
    ASSERT_EQ(dag_new(&g, &err), DAG_OK);
    EXPECT_EQ(err, nullptr);
    dag_free(g);
}

TEST(CapiErrors, MessageNamesTheFunctionAndTheProblem) {
    auto g = new_graph();
    std::string msg = expect_error(DAG_E_UNKNOWN_VERTEX, [&](dag_error **e) { return dag_remove_vertex(g.get(), 42, e); });
    EXPECT_NE(msg.find("dag_remove_vertex"), std::string::npos) << msg;
    EXPECT_NE(msg.find("42"), std::string::npos) << msg;
}

TEST(CapiErrors, ErrorMayBeOmitted) {
    EXPECT_EQ(dag_remove_vertex(nullptr, 1, nullptr), DAG_E_NULL_ARGUMENT);
}

TEST(CapiVersion, MatchesTheHeader) {
    EXPECT_EQ(dag_version(), static_cast<unsigned>(DAG_VERSION_NUMBER));
    EXPECT_STREQ(dag_version_string(), DAG_VERSION_STRING);
}
