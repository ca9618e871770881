package dag

// This file holds the only Go functions libdag calls. Its preamble may hold
// declarations only: cgo copies the preamble of a file with //export into
// two C files, so a definition here would be defined twice. The C halves
// of the trampolines are in shim.c.

// #include <stddef.h>
// #include <stdint.h>
import "C"

import (
	"runtime/cgo"
)

// dagbindMatch runs the predicate of a FirstAncestorsWith-style search, on
// the goroutine that started the search.
//
//export dagbindMatch
func dagbindMatch(h C.uintptr_t, id C.uint64_t) (matched C.int) {
	s := cgo.Handle(h).Value().(*search)
	if s.panicked {
		// A match ends each branch and ends MatchAncestor at once: the
		// quickest way out of a search whose result will not be used.
		return 1
	}
	returned := false
	defer func() {
		if !returned {
			s.recordPanic(recover())
			matched = 1
		}
	}()
	ok := s.match(uint64(id))
	returned = true
	if ok {
		return 1
	}
	return 0
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
// libdag's pool threads. *message is set to a C string on failure, owned by
// the walk's state until the walk ends.
//
//export dagbindWalkVertex
func dagbindWalkVertex(h C.uintptr_t, vertex C.uint64_t, message **C.char) C.int {
	w := cgo.Handle(h).Value().(*walkState)
	return w.run(uint64(vertex), message)
}
