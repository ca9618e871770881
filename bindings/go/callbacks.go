package dag

// This file holds the only Go functions libdag calls. Its preamble may hold
// declarations only: cgo copies the preamble of a file with //export into
// two C files, so a definition here would be defined twice. The C halves
// of the trampolines are in shim.c.

// #include <stddef.h>
// #include <stdint.h>
// #include <dag/dag.h>
import "C"

import (
	"runtime/cgo"
)

// searchCalledBack runs each time libdag calls a Search callback: a test's
// hook, to see that the search ends at a panic.
var searchCalledBack = func() {}

// dagbindSearch runs the callback of Search (and of the predicate searches
// built on it), on the goroutine that started the search.
//
//export dagbindSearch
func dagbindSearch(h C.uintptr_t, id C.uint64_t) (action C.int) {
	searchCalledBack()
	s := cgo.Handle(h).Value().(*search)
	returned := false
	defer func() {
		if !returned {
			// Aborting ends the search at once; the method that started
			// it panics again with the same value.
			s.recordPanic(recover())
			action = C.DAG_SEARCH_ABORT
		}
	}()
	a := s.decide(uint64(id))
	returned = true
	return C.int(a)
}

// dagbindVisit runs the visitor of Traverse, on the goroutine that called
// Traverse.
//
//export dagbindVisit
func dagbindVisit(h C.uintptr_t, id C.uint64_t, depth C.size_t) (next C.int) {
	s := cgo.Handle(h).Value().(*search)
	if s.panicked {
		return C.int(VisitStop)
	}
	returned := false
	defer func() {
		if !returned {
			s.recordPanic(recover())
			next = C.int(VisitStop)
		}
	}()
	v := s.visit(uint64(id), int(depth))
	returned = true
	return C.int(v)
}

// dagbindWalkVertex runs a walk's callback for one vertex, on one of
// libdag's pool threads. A failure goes to libdag with dag_walk_fail, which
// copies its message before returning.
//
//export dagbindWalkVertex
func dagbindWalkVertex(h C.uintptr_t, walk *C.dag_walker, vertex C.uint64_t) C.int {
	w := cgo.Handle(h).Value().(*walkState)
	return w.run(walk, uint64(vertex))
}

// dagbindWalkEvent runs a walk's Observer: on libdag's pool threads for a
// callback walk (Graph.Walk), on the goroutines that take, finish and
// cancel vertices for Walk. A panic in the observer cannot be reported
// through libdag, which ignores what an observer returns: it is recovered
// and kept, and raised again once the walk has ended.
//
//export dagbindWalkEvent
func dagbindWalkEvent(h C.uintptr_t, walk *C.dag_walker, event C.int, vertex C.uint64_t, status C.int,
	running, done, total C.size_t, sequence C.uint64_t) {
	o := cgo.Handle(h).Value().(*observer)
	o.deliver(walk, WalkEvent{
		Kind:     EventKind(event),
		Vertex:   uint64(vertex),
		Status:   VertexStatus(status),
		Running:  int(running),
		Done:     int(done),
		Total:    int(total),
		Sequence: uint64(sequence),
	})
}
