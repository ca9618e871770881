#include "shim.h"

#include <pthread.h>

#include "_cgo_export.h"

uintptr_t dagbind_thread(void) {
    /* pthread_t is an integer or a pointer on every POSIX system Go's cgo
       supports, so it converts to uintptr_t without loss. */
    return (uintptr_t)pthread_self();
}

static int visit_trampoline(uint64_t id, size_t depth, void *user_data) {
    return dagbindVisit((uintptr_t)user_data, id, depth);
}

static int search_trampoline(uint64_t id, void *user_data) {
    return dagbindSearch((uintptr_t)user_data, id);
}

static dag_walk_result walk_trampoline(dag_walker *walk, uint64_t vertex, const char **message,
                                       void *user_data) {
    (void)message; /* Go fails a vertex with dag_walk_fail, which copies at once. */
    return (dag_walk_result)dagbindWalkVertex((uintptr_t)user_data, walk, vertex);
}

dag_status dagbind_search(const dag_graph *g, const uint64_t *ids, size_t count, unsigned flags,
                          uintptr_t handle, dag_ids **out, dag_error **err) {
    return dag_search(g, ids, count, flags, search_trampoline, (void *)handle, out, err);
}

dag_status dagbind_traverse(const dag_graph *g, const uint64_t *start, size_t count,
                            unsigned flags, uintptr_t handle, dag_error **err) {
    return dag_traverse(g, start, count, flags, visit_trampoline, (void *)handle, err);
}

dag_status dagbind_walk_start(dag_graph *g, size_t parallelism, size_t threads, int reverse,
                              int fail_fast, const uint64_t *always_run,
                              size_t always_run_count, uintptr_t handle, dag_walker **out,
                              dag_error **err) {
    dag_walk_options opts;
    dag_status status = dag_walk_options_init(&opts, sizeof opts, err);
    if (status != DAG_OK) {
        return status;
    }
    if (parallelism != 0) {
        opts.parallelism = parallelism;
    }
    if (threads != 0) {
        opts.threads = threads;
    }
    opts.reverse = reverse;
    opts.failure_policy = fail_fast ? DAG_FAILURE_FAIL_FAST : DAG_FAILURE_CONTINUE;
    opts.always_run = always_run;
    opts.always_run_count = always_run_count;
    return dag_walk_start(g, walk_trampoline, (void *)handle, &opts, out, err);
}
