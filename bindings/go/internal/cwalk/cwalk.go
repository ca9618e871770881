// Package cwalk times libdag's walks from C, with nothing of Go inside the
// walk: the baseline that the Go binding's walk benchmarks print next to
// their own numbers, measured in the same run on the same graphs.
package cwalk

// #cgo CFLAGS: -I${SRCDIR}/../../../../include
// #cgo LDFLAGS: -L${SRCDIR}/../../../../build -ldag
// #include <stdint.h>
// #include <time.h>
// #include <dag/dag.h>
//
// static int64_t now_ns(void) {
//     struct timespec ts;
//     clock_gettime(CLOCK_MONOTONIC, &ts);
//     return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
// }
//
// static dag_walk_result empty(dag_walker *w, uint64_t v, const char **m, void *u) {
//     (void)w; (void)v; (void)m; (void)u;
//     return DAG_WALK_OK;
// }
//
// /* One callback walk of g with empty callbacks: nanoseconds, or -1. */
// static int64_t callback_walk(dag_graph *g) {
//     int64_t start = now_ns();
//     dag_walk_report *report = NULL;
//     dag_status s = dag_walk(g, empty, NULL, NULL, &report, NULL);
//     int64_t end = now_ns();
//     dag_walk_report_free(report);
//     return s == DAG_OK ? end - start : -1;
// }
//
// /* One pull walk of g, one thread taking and completing every vertex. */
// static int64_t pull_walk(dag_graph *g) {
//     int64_t start = now_ns();
//     dag_walker *w = NULL;
//     if (dag_walk_begin(g, NULL, &w, NULL) != DAG_OK) return -1;
//     uint64_t ids[16];
//     dag_walker *walks[16];
//     for (;;) {
//         size_t n = 0;
//         if (dag_walk_next_ready(w, ids, walks, 16, -1, &n, NULL) != DAG_OK) break;
//         if (n == 0) break;
//         for (size_t i = 0; i < n; i++) dag_walk_complete(walks[i], ids[i], DAG_WALK_OK, NULL, NULL);
//     }
//     dag_walk_report *report = NULL;
//     dag_status s = dag_walk_wait(w, &report, NULL);
//     int64_t end = now_ns();
//     dag_walk_report_free(report);
//     dag_walk_free(w);
//     return s == DAG_OK ? end - start : -1;
// }
//
// /* A chain (fanout 0) or a hub that every other vertex depends on. */
// static dag_graph *shape(size_t n, int fanout) {
//     dag_graph *g = NULL;
//     if (dag_new(&g, NULL) != DAG_OK) return NULL;
//     uint64_t first = 0, prev = 0;
//     for (size_t i = 0; i < n; i++) {
//         uint64_t id = 0;
//         dag_add_vertex(g, NULL, NULL, &id, NULL);
//         if (i == 0) first = id;
//         else dag_connect(g, id, fanout ? first : prev, NULL);
//         prev = id;
//     }
//     return g;
// }
import "C"

import (
	"errors"
	"time"
)

// Shape is a benchmark graph built in C.
type Shape struct {
	g *C.dag_graph
}

// Chain is n vertices, each depending on the one before.
func Chain(n int) *Shape { return &Shape{C.shape(C.size_t(n), 0)} }

// FanOut is n vertices, all but the first depending on the first.
func FanOut(n int) *Shape { return &Shape{C.shape(C.size_t(n), 1)} }

// Close frees the graph.
func (s *Shape) Close() { C.dag_free(s.g) }

// CallbackWalk times one walk with empty C callbacks on libdag's pool.
func (s *Shape) CallbackWalk() (time.Duration, error) { return result(C.callback_walk(s.g)) }

// PullWalk times one pull-mode walk driven by a single C thread.
func (s *Shape) PullWalk() (time.Duration, error) { return result(C.pull_walk(s.g)) }

func result(ns C.int64_t) (time.Duration, error) {
	if ns < 0 {
		return 0, errors.New("cwalk: the walk failed")
	}
	return time.Duration(ns), nil
}
