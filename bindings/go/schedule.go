package dag

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"time"
	"unsafe"
)

// Priority says which ready vertex starts first (WalkOptions.Priority,
// libdag 1.3). With one, ties go by name, then id, so a walk at
// Parallelism 1 starts its vertices in the same order every time.
type Priority int

const (
	// PriorityNone, the default and the fastest, starts ready vertices
	// about in the order they became ready, and is not specified further
	// (libdag 1.3 changed it: 1.2 went depth first).
	PriorityNone Priority = iota
	// PriorityCriticalPath starts the vertex with the longest remaining
	// path to the end of the walk first, each vertex counting its weight
	// (WalkOptions.Weights, 1 unless given).
	PriorityCriticalPath
	// PriorityName goes by name.
	PriorityName
)

// hasRetries reports whether some vertex may be tried more than once.
func (opts *WalkOptions) hasRetries() bool {
	if opts.Retries > 0 {
		return true
	}
	for _, n := range opts.VertexRetries {
		if n > 0 {
			return true
		}
	}
	return false
}

// schedule checks the pool and retry options and copies the pools, the
// needs and the per-vertex retry counts into C memory (nil when there are
// none). libdag borrows them only for the call that starts the walk; free
// the result with C.dagbind_schedule_free after it.
func (opts *WalkOptions) schedule(op string) (*C.dagbind_schedule, error) {
	if opts.Retries < 0 || opts.RetryDelay < 0 || opts.RetryMaxDelay < 0 {
		return nil, newError(StatusInvalidArgument, op, "Retries, RetryDelay and RetryMaxDelay must not be negative")
	}
	needs := 0
	for _, pools := range opts.PoolNeeds {
		needs += len(pools)
	}
	if opts.Priority < PriorityNone || opts.Priority > PriorityName {
		return nil, newError(StatusInvalidArgument, op, "Priority is not a Priority")
	}
	if len(opts.Pools) == 0 && needs == 0 && len(opts.VertexRetries) == 0 && len(opts.Weights) == 0 {
		return nil, nil
	}
	s := C.dagbind_schedule_new(C.size_t(len(opts.Pools)), C.size_t(needs), C.size_t(len(opts.VertexRetries)),
		C.size_t(len(opts.Weights)))
	if s == nil {
		return nil, newError(StatusNoMemory, op, "out of memory")
	}
	fail := func(err error) (*C.dagbind_schedule, error) {
		C.dagbind_schedule_free(s)
		return nil, err
	}
	names := unsafe.Slice(s.pool_names, s.pool_count)
	capacities := unsafe.Slice(s.pool_capacities, s.pool_count)
	i := 0
	for name, capacity := range opts.Pools {
		if capacity < 0 {
			return fail(newError(StatusInvalidArgument, op, "pool "+name+"'s capacity must not be negative"))
		}
		c, err := cString(op, "a pool name", name)
		if err != nil {
			return fail(err)
		}
		names[i], capacities[i] = c, C.size_t(capacity)
		i++
	}
	vertices := unsafe.Slice(s.need_vertices, s.need_count)
	needNames := unsafe.Slice(s.need_names, s.need_count)
	i = 0
	for vertex, pools := range opts.PoolNeeds {
		for _, pool := range pools {
			c, err := cString(op, "a pool name", pool)
			if err != nil {
				return fail(err)
			}
			vertices[i], needNames[i] = C.uint64_t(vertex), c
			i++
		}
	}
	retryVertices := unsafe.Slice(s.retry_vertices, s.retry_vertex_count)
	counts := unsafe.Slice(s.retry_counts, s.retry_vertex_count)
	i = 0
	for vertex, n := range opts.VertexRetries {
		if n < 0 {
			return fail(newError(StatusInvalidArgument, op, "VertexRetries must not be negative"))
		}
		retryVertices[i], counts[i] = C.uint64_t(vertex), C.size_t(n)
		i++
	}
	weightVertices := unsafe.Slice(s.weight_vertices, s.weight_count)
	weights := unsafe.Slice(s.weights, s.weight_count)
	i = 0
	for vertex, w := range opts.Weights {
		weightVertices[i], weights[i] = C.uint64_t(vertex), C.uint64_t(w)
		i++
	}
	return s, nil
}

// millis is d in whole milliseconds, a positive d under one counting as
// one: libdag reads 0 as none (no wait, no cap), and a cap of 900 µs meant
// no cap at all.
func millis(d time.Duration) C.uint64_t {
	ms := d / time.Millisecond
	if d > 0 && ms == 0 {
		ms = 1
	}
	return C.uint64_t(ms)
}
