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
 * dag_walk_start with options built here, on the C stack: dag_walk_options
 * holds a pointer (always_run), and cgo forbids passing Go memory that
 * holds a Go pointer. Zero parallelism or threads keeps libdag's default.
 */
dag_status dagbind_walk_start(dag_graph *g, size_t parallelism, size_t threads, int reverse,
                              int fail_fast, const uint64_t *always_run,
                              size_t always_run_count, uintptr_t handle, dag_walker **out,
                              dag_error **err);

/*
 * The calling thread, as an integer (pthread_self()). The Go side compares
 * it with the thread of each search in progress to recognise calls made
 * from a search's own callback.
 */
uintptr_t dagbind_thread(void);

#endif
