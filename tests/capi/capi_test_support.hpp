// Helpers shared by the C API suites: RAII holders and error checks.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "dag/dag.h"

struct GraphDeleter {
    void operator()(dag_graph *g) const { dag_free(g); }
};
using GraphPtr = std::unique_ptr<dag_graph, GraphDeleter>;

inline GraphPtr new_graph() {
    dag_graph *g = nullptr;
    EXPECT_EQ(dag_new(&g, nullptr), DAG_OK);
    return GraphPtr(g);
}

inline uint64_t add(dag_graph *g, const char *name) {
    uint64_t id = 0;
    EXPECT_EQ(dag_add_vertex(g, name, nullptr, &id, nullptr), DAG_OK) << name;
    return id;
}

// Runs a call expected to fail, checks its status, and returns its message.
template <class F>
std::string expect_error(dag_status expected, F &&call) {
    dag_error *err = reinterpret_cast<dag_error *>(0x1);
    dag_status st = call(&err);
    EXPECT_EQ(st, expected) << dag_status_string(st);
    if (err == nullptr || err == reinterpret_cast<dag_error *>(0x1)) {
        ADD_FAILURE() << "no error object returned";
        return {};
    }
    EXPECT_EQ(dag_error_status(err), expected);
    std::string msg = dag_error_message(err);
    dag_error_free(err);
    EXPECT_FALSE(msg.empty());
    return msg;
}

inline std::vector<uint64_t> take_ids(dag_ids *ids) {
    std::vector<uint64_t> out;
    const uint64_t *data = dag_ids_data(ids);
    if (data) out.assign(data, data + dag_ids_count(ids));
    dag_ids_free(ids);
    return out;
}

inline std::string take_string(char *s) {
    std::string out = s ? s : "";
    dag_string_free(s);
    return out;
}
