// What every harness asserts of a C API call, and small owners of what the
// API returns. A broken promise aborts, so libFuzzer keeps the input.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace fuzz {

[[noreturn]] inline void fail(const char *what, const std::string &detail = {}) {
    std::fprintf(stderr, "fuzz invariant broken: %s %s\n", what, detail.c_str());
    std::abort();
}

inline void require(bool ok, const char *what, const std::string &detail = {}) {
    if (!ok) fail(what, detail);
}

// A status is one the header declares, never DAG_E_INTERNAL (a libdag bug by
// its own definition), and an error object comes with every failure and
// carries that status and a message.
inline dag_status checked(dag_status st, dag_error *err) {
    require(st <= DAG_OK && st >= DAG_E_TIMEOUT, "status out of range", std::to_string(st));
    if (st == DAG_E_INTERNAL)
        fail("DAG_E_INTERNAL", err != nullptr ? dag_error_message(err) : "");
    if (st != DAG_OK) {
        require(err != nullptr, "failure without an error object", dag_status_string(st));
        require(dag_error_status(err) == st, "error object's status differs");
        require(dag_error_message(err) != nullptr, "error without a message");
    } else {
        require(err == nullptr, "success with an error object");
    }
    dag_error_free(err);
    return st;
}

// Calls f(&err) and checks what it returns: CALL(dag_connect(g, a, b, e)).
#define FUZZ_CALL(expr_with_e)                                  \
    ([&]() {                                                    \
        dag_error *e = nullptr;                                 \
        dag_status fuzz_st_ = (expr_with_e);                    \
        return ::fuzz::checked(fuzz_st_, e);                    \
    }())

inline std::vector<uint64_t> take(dag_ids *ids) {
    std::vector<uint64_t> v;
    if (ids == nullptr) return v;
    const uint64_t *d = dag_ids_data(ids);
    v.assign(d, d + dag_ids_count(ids));
    dag_ids_free(ids);
    return v;
}

inline std::vector<uint64_t> vertices(const dag_graph *g) {
    dag_ids *ids = nullptr;
    require(FUZZ_CALL(dag_vertices(g, &ids, &e)) == DAG_OK, "dag_vertices");
    return take(ids);
}

// Pairs (from, to) flattened, as dag_edges gives them.
inline std::vector<uint64_t> edges(const dag_graph *g) {
    dag_ids *ids = nullptr;
    require(FUZZ_CALL(dag_edges(g, &ids, &e)) == DAG_OK, "dag_edges");
    return take(ids);
}

// A vertex's name, or nullptr for an unnamed one.
inline const char *name_of(const dag_graph *g, uint64_t id) {
    const char *name = nullptr;
    require(FUZZ_CALL(dag_vertex_name(g, id, &name, &e)) == DAG_OK, "dag_vertex_name");
    return name;
}

}  // namespace fuzz
