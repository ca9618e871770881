package dag

// #include "shim.h"
import "C"

import (
	"runtime/cgo"
	"sync"
)

// EventKind is what happened to a vertex, in a WalkEvent.
type EventKind int

const (
	// EventStarted: the vertex is about to run. In dag.Walk, one handed out
	// just as the context is done is then finished cancelled without fn
	// being called (its VertexResult says Ran false).
	EventStarted EventKind = C.DAG_WALK_EVENT_STARTED
	// EventFinished: a vertex that started has finished; Status says how.
	EventFinished EventKind = C.DAG_WALK_EVENT_FINISHED
	// EventSkipped: the vertex finished without running (upstream failed,
	// cancelled, not run); Status says which.
	EventSkipped EventKind = C.DAG_WALK_EVENT_SKIPPED
)

// String returns "started", "finished" or "skipped".
func (k EventKind) String() string {
	switch k {
	case EventStarted:
		return "started"
	case EventFinished:
		return "finished"
	case EventSkipped:
		return "skipped"
	}
	return "unknown"
}

// WalkEvent is one event of a walk, as WalkOptions.Observer receives it.
type WalkEvent struct {
	// Kind is what happened.
	Kind EventKind
	// Vertex is the vertex it happened to: an id of the walked graph, or,
	// when Sub is true, of the sub-graph an expanded vertex walks.
	Vertex uint64
	// Sub reports whether Vertex belongs to a sub-walk (Vertex.Expand).
	Sub bool
	// Status is the vertex's final status for EventFinished and
	// EventSkipped, VertexNotRun for EventStarted.
	Status VertexStatus
	// Running, Done and Total are the counts of the vertex's walk (or
	// sub-walk) after the event: vertices running, finished, and in all.
	Running, Done, Total int
	// Sequence numbers the events of a walk and its sub-walks 1, 2, 3...
	// in the order their counts were taken. Events can arrive out of that
	// order, from several goroutines at once; ordered by Sequence, the Done
	// and Total of each walk never decrease (a sub-walk's events, with Sub
	// set, count that sub-walk's vertices, not the walk's).
	Sequence uint64
}

// observer is a walk's Go observer, reached from dagbindWalkEvent through a
// cgo.Handle.
type observer struct {
	fn func(WalkEvent)
	// graph is the walked graph: events of other walks are a sub-walk's.
	graph *C.dag_graph

	mu       sync.Mutex
	panicked bool
	value    interface{}
}

// newObserver returns the handle to pass in the walk's options (0 for no
// observer) and a function that releases it and raises, on the caller's
// goroutine, a panic the observer had; call it once the walk has ended.
func newObserver(fn func(WalkEvent), graph *C.dag_graph) (C.uintptr_t, func()) {
	if fn == nil {
		return 0, func() {}
	}
	o := &observer{fn: fn, graph: graph}
	h := cgo.NewHandle(o)
	return C.uintptr_t(h), func() {
		h.Delete()
		o.mu.Lock()
		panicked, value := o.panicked, o.value
		o.mu.Unlock()
		if panicked {
			panic(value)
		}
	}
}

// deliver calls the observer. libdag ignores what an observer does, so a
// panic cannot end the walk: the first one is kept for newObserver's
// release, and the observer is not called again.
func (o *observer) deliver(walk *C.dag_walker, e WalkEvent) {
	o.mu.Lock()
	stopped := o.panicked
	o.mu.Unlock()
	if stopped {
		return
	}
	e.Sub = C.dag_walk_graph(walk) != o.graph
	returned := false
	defer func() {
		if !returned {
			value := recover()
			o.mu.Lock()
			if !o.panicked {
				o.panicked, o.value = true, value
			}
			o.mu.Unlock()
		}
	}()
	o.fn(e)
	returned = true
}
