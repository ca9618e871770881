// What the C API benchmarks share: a failed call ends the run with its
// message (a benchmark that timed a failure would report nonsense), and the
// change that makes the next query or walk of a graph cold.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <dag/dag.h>

inline void check(dag_status st, dag_error *err, const char *what) {
    if (st == DAG_OK) return;
    std::fprintf(stderr, "%s: %s\n", what, err ? dag_error_message(err) : dag_status_string(st));
    std::exit(1);
}

// Leaves the graph as it was but drops what queries and walks keep on it:
// the next one freezes the graph and checks it for cycles again.
inline void touch(dag_graph *g) {
    dag_error *err = nullptr;
    std::uint64_t id = 0;
    check(dag_add_vertex(g, nullptr, nullptr, &id, &err), err, "dag_add_vertex");
    check(dag_remove_vertex(g, id, &err), err, "dag_remove_vertex");
}
