/*
 * C side of the Go binding: libdag's callbacks are C function pointers
 * taking `void *user_data`, while Go exports functions with its own
 * prototypes and hands out callback state as cgo.Handle integers. These
 * functions adapt one to the other, so that no Go code converts an integer
 * to a pointer (which `go vet` rightly flags) and every callback type
 * matches libdag's exactly.
 */
#ifndef DAGBIND_SHIM_H
#define DAGBIND_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include <dag/dag.h>

/* dag_search with the Go callback of the search behind `handle`. */
dag_status dagbind_search(const dag_graph *g, const uint64_t *ids, size_t count, unsigned flags,
                          uintptr_t handle, dag_ids **out, dag_error **err);

dag_status dagbind_traverse(const dag_graph *g, const uint64_t *start, size_t count,
                            unsigned flags, uintptr_t handle, dag_error **err);

/*
 * The walk's pools and per-vertex retry counts (dag_walk_options' 1.3
 * arrays), in C memory: Go fills the arrays of dagbind_schedule_new, and
 * the names are C strings the schedule owns.
 */
typedef struct dagbind_schedule {
    char **pool_names;
    size_t *pool_capacities;
    size_t pool_count;
    uint64_t *need_vertices;
    char **need_names;
    size_t need_count;
    uint64_t *retry_vertices;
    size_t *retry_counts;
    size_t retry_vertex_count;
    uint64_t *weight_vertices;
    uint64_t *weights;
    size_t weight_count;
} dagbind_schedule;

/* A schedule with room for the counts given, every name NULL; NULL when out of memory. */
dagbind_schedule *dagbind_schedule_new(size_t pools, size_t needs, size_t retry_vertices, size_t weights);

/* Frees a schedule, its arrays and its names; NULL is ignored. */
void dagbind_schedule_free(dagbind_schedule *s);

/*
 * Walk options as scalars, so that Go can pass them on the stack: cgo
 * forbids passing Go memory that holds a Go pointer, and dag_walk_options
 * holds one (always_run), which travels as its own argument instead.
 * Zero parallelism or threads keeps libdag's default; `observer` is the
 * cgo.Handle of the Go observer, 0 for none; `schedule` a
 * dagbind_schedule pointer, 0 for none.
 */
typedef struct dagbind_walk_config {
    size_t parallelism;
    size_t threads;
    int reverse;
    int fail_fast;
    int timestamps;
    uintptr_t observer;
    uintptr_t schedule;
    size_t retries;
    uint64_t retry_delay_ms;
    uint64_t retry_max_delay_ms;
    int retry_doubling;
    int priority;
} dagbind_walk_config;

/* dag_walk_start with the Go callback of the walk behind `handle`. */
dag_status dagbind_walk_start(dag_graph *g, dagbind_walk_config cfg, const uint64_t *always_run,
                              size_t always_run_count, uintptr_t handle, dag_walker **out,
                              dag_error **err);

/* dag_walk_begin: a pull walk, whose vertices Go runs on goroutines. */
dag_status dagbind_walk_begin(dag_graph *g, dagbind_walk_config cfg, const uint64_t *always_run,
                              size_t always_run_count, dag_walker **out, dag_error **err);

/* The most vertices dagbind_complete_next takes at once. */
#define DAGBIND_READY_BATCH 16

/*
 * What one Go goroutine of a pull walk passes to libdag, in C memory: cgo
 * checks every Go pointer handed to C, which would cost more than the call.
 */
typedef struct dagbind_puller {
    uint64_t ids[DAGBIND_READY_BATCH];
    dag_walker *walks[DAGBIND_READY_BATCH];
    dag_status completed; /* dag_walk_complete's status */
    size_t count;         /* how many vertices were taken */
    dag_error *err;       /* the error of whichever call failed */
} dagbind_puller;

/*
 * Finishes a vertex of a pull walk with `result` (a dag_walk_result), then,
 * when `take` is set, takes up to
 * DAGBIND_READY_BATCH vertices that are ready now: one call from Go per
 * vertex instead of two. Returns dag_walk_next_ready's status, with
 * DAG_E_TIMEOUT (nothing ready) turned into DAG_OK and a count of 0.
 *
 * The pointers (all to C memory: the walks, the message, the puller)
 * travel as integers: for a pointer argument cgo emits a check that
 * allocates, which would be most of what Go adds to a vertex.
 */
dag_status dagbind_complete_next(uintptr_t root, uintptr_t walk, uint64_t vertex, int result,
                                 uintptr_t message, int take, uintptr_t puller);

/*
 * A vertex's user data as an integer: the Go side stores a number of the
 * caller's (an index, a key), never a pointer, and converting here keeps
 * integer-to-pointer conversions out of Go code.
 */
dag_status dagbind_set_user_data(dag_graph *g, uint64_t id, uintptr_t data, dag_error **err);
dag_status dagbind_user_data(const dag_graph *g, uint64_t id, uintptr_t *out, dag_error **err);
dag_status dagbind_update_add_vertex(dag_walk_update *update, const char *name, uintptr_t data,
                                     int always_run, uint64_t *out_provisional, dag_error **err);

/*
 * The calling thread, as an integer (pthread_self()). The Go side compares
 * it with the thread of each search in progress to recognise calls made
 * from a search's own callback.
 */
uintptr_t dagbind_thread(void);

#endif
