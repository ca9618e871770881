package dag

// #include "shim.h"
import "C"

import (
	"runtime"
	"runtime/cgo"
	"strings"
)

// search is the state of one call that runs a Go callback synchronously
// (Traverse and Search, which the predicate searches use), reached from the
// trampolines in callbacks.go through a cgo.Handle.
type search struct {
	decide func(id uint64) SearchAction
	visit  func(id uint64, depth int) Visit

	// A panic cannot unwind through libdag's C++ frames, so the trampoline
	// stops it, makes the search end (a traversal stops, a search aborts),
	// and the method that started the search panics again with the same
	// value once libdag has returned. Only the search's own goroutine
	// touches these fields.
	panicked   bool
	panicValue interface{}
}

func (s *search) recordPanic(value interface{}) {
	s.panicked = true
	s.panicValue = value
}

// run calls libdag with a handle to s. The caller then checks s.panicked,
// frees what libdag returned, and panics again with s.panicValue.
func (s *search) run(call func(h C.uintptr_t) C.dag_status) C.dag_status {
	h := cgo.NewHandle(s)
	defer h.Delete()
	return call(C.uintptr_t(h))
}

// repanic raises a callback's panic on the caller's goroutine, once what
// libdag returned has been freed.
func (s *search) repanic() {
	if s.panicked {
		panic(s.panicValue)
	}
}

// beginSearch pins the goroutine to its thread, where libdag will call the
// search's callback, and takes the read lock as a search on that thread.
func (g *Graph) beginSearch() (*C.dag_graph, C.uintptr_t, error) {
	runtime.LockOSThread()
	thread := C.dagbind_thread()
	ptr, err := g.handle().beginSearch(thread)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, 0, err
	}
	return ptr, thread, nil
}

func (g *Graph) endSearch(thread C.uintptr_t) {
	g.h.endSearch(thread)
	runtime.UnlockOSThread()
}

// Visit is what a Traverse visitor tells the traversal to do next.
type Visit int

const (
	// VisitContinue goes on, beyond this vertex too.
	VisitContinue Visit = C.DAG_VISIT_CONTINUE
	// VisitSkip does not go beyond this vertex (Terraform's
	// errStopWalkBranch) but goes on elsewhere.
	VisitSkip Visit = C.DAG_VISIT_SKIP
	// VisitStop ends the traversal now (Terraform's errStopWalk); Traverse
	// then returns nil.
	VisitStop Visit = C.DAG_VISIT_STOP
)

// TraverseFlags choose Traverse's order and direction; combine with |.
// 0 is a depth-first traversal towards dependencies.
type TraverseFlags uint

const (
	// TraverseBreadthFirst uses a queue instead of a stack.
	TraverseBreadthFirst TraverseFlags = C.DAG_TRAVERSE_BREADTH_FIRST
	// TraverseReverse goes towards dependents instead of dependencies
	// (Terraform's Reverse...Walk).
	TraverseReverse TraverseFlags = C.DAG_TRAVERSE_REVERSE
	// TraverseSorted takes the start set and each batch of neighbours in
	// name order instead of id order: Terraform's deterministic test walk.
	TraverseSorted TraverseFlags = C.DAG_TRAVERSE_SORTED
)

// Traverse is Terraform's DepthFirstWalk, BreadthFirstWalk,
// ReverseDepthFirstWalk and ReverseBreadthFirstWalk from a start set. visit
// is called once for every vertex reached, with the depth at which it was
// first taken off the frontier (0 for a start vertex reached as such), and
// its answer decides whether the traversal goes beyond it. With a -> b,
// a -> c and start [a], depth first visits a (0), c (1), b (1); breadth
// first a (0), b (1), c (1).
//
// visit runs synchronously on the calling goroutine. It may call the
// Graph's reading methods; a changing method called from it returns
// ErrBusy, and one called on another goroutine waits until Traverse
// returns (so visit must not wait for such a goroutine). It must not call
// runtime.Goexit (so not t.FailNow either). If visit panics, the traversal
// stops and Traverse panics with the same value.
//
// Errors: ErrUnknownVertex (a start id; nothing is visited),
// ErrInvalidArgument (unknown flags, visit returned something other than a
// Visit constant, visit is nil), ErrClosed.
func (g *Graph) Traverse(start []uint64, flags TraverseFlags, visit func(id uint64, depth int) Visit) error {
	if visit == nil {
		return newError(StatusInvalidArgument, "Traverse", "visit is nil")
	}
	ptr, thread, err := g.beginSearch()
	if err != nil {
		return err
	}
	defer g.endSearch(thread)
	data, count := idsArg(start)
	var cerr *C.dag_error
	s := &search{visit: visit}
	status := s.run(func(h C.uintptr_t) C.dag_status {
		return C.dagbind_traverse(ptr, data, count, C.uint(flags), h, &cerr)
	})
	if s.panicked {
		C.dag_error_free(cerr)
		s.repanic()
	}
	return check(status, cerr)
}

// SearchAction is what a Search callback says about a vertex.
type SearchAction int

const (
	// SearchNoMatch: not a match; the search goes on beyond it.
	SearchNoMatch SearchAction = C.DAG_SEARCH_NO_MATCH
	// SearchMatch: a match; the search goes on beyond it unless
	// SearchFirstMatch is set.
	SearchMatch SearchAction = C.DAG_SEARCH_MATCH
	// SearchMatchAndStop: a match, and the last: Search returns it with
	// every earlier match.
	SearchMatchAndStop SearchAction = C.DAG_SEARCH_MATCH_AND_STOP
	// SearchStop: not a match; Search returns every earlier match.
	SearchStop SearchAction = C.DAG_SEARCH_STOP
	// SearchAbort: Search returns ErrCancelled and no result.
	SearchAbort SearchAction = C.DAG_SEARCH_ABORT
	// SearchSkip: not a match, and nothing beyond it is searched.
	SearchSkip SearchAction = C.DAG_SEARCH_SKIP
)

// SearchFlags choose Search's direction and how a match ends a branch;
// combine with |. 0 searches the ancestors, going beyond every match.
type SearchFlags uint

const (
	// SearchDependents searches towards dependents (Terraform's
	// descendants) instead of dependencies.
	SearchDependents SearchFlags = C.DAG_SEARCH_DEPENDENTS
	// SearchFirstMatch ends each branch at its first match, as
	// FirstAncestorsWith does.
	SearchFirstMatch SearchFlags = C.DAG_SEARCH_FIRST_MATCH
)

// Search searches the ancestors of ids (with SearchDependents, their
// descendants) depth first, calls decide once for every vertex reached, and
// returns, ascending, the vertices it matched. decide can also end a branch
// (SearchSkip), end the search with what it has found (SearchStop,
// SearchMatchAndStop), or abort it (SearchAbort: ErrCancelled). A vertex of
// ids is reached only from a vertex of ids. With a -> b, b -> c, a -> d (ids
// in that order) and ids [a], decide sees d, b, c.
//
// decide runs as Traverse's visit does (synchronously, reading methods
// only). If decide panics, the search is aborted and Search panics with the
// same value.
//
// Errors: ErrCancelled (SearchAbort), ErrUnknownVertex (a start id; decide
// is not called), ErrInvalidArgument (unknown flags, decide returned
// something other than a SearchAction, decide is nil), ErrClosed.
func (g *Graph) Search(ids []uint64, flags SearchFlags, decide func(id uint64) SearchAction) ([]uint64, error) {
	if decide == nil {
		return nil, newError(StatusInvalidArgument, "Search", "decide is nil")
	}
	return g.search("Search", ids, flags, decide)
}

// search runs dag_search for the method op: libdag's messages name Search,
// and are reworded to name op.
func (g *Graph) search(op string, ids []uint64, flags SearchFlags, decide func(uint64) SearchAction) ([]uint64, error) {
	ptr, thread, err := g.beginSearch()
	if err != nil {
		return nil, err
	}
	defer g.endSearch(thread)
	data, count := idsArg(ids)
	var out *C.dag_ids
	var cerr *C.dag_error
	s := &search{decide: decide}
	status := s.run(func(h C.uintptr_t) C.dag_status {
		return C.dagbind_search(ptr, data, count, C.uint(flags), h, &out, &cerr)
	})
	if s.panicked {
		C.dag_ids_free(out)
		C.dag_error_free(cerr)
		s.repanic()
	}
	if err := check(status, cerr); err != nil {
		if e, ok := err.(*Error); ok && strings.HasPrefix(e.Message, searchPrefix) {
			e.Message = "dag: " + op + ": " + e.Message[len(searchPrefix):]
		}
		return nil, err
	}
	return takeIDs(out), nil
}

// searchPrefix begins the messages of dag_search's errors.
const searchPrefix = "dag: Search: "

// FirstAncestorsWith is Terraform's FirstAncestorsWith for a set: it searches
// the ancestors of ids and returns, ascending, each vertex for which match
// is true, without going beyond it (each branch ends at its first match).
// With a -> b, b -> c, a -> d and match true for b and c, the result for [a]
// is [b].
//
// match runs synchronously on the calling goroutine, once per vertex
// reached. It may call the Graph's reading methods; a changing method
// called from it returns ErrBusy, and one called on another goroutine waits
// until the search returns (so match must not wait for such a goroutine).
// It must not call runtime.Goexit. If match panics, the search ends there,
// and the method panics with the same value.
//
// Errors: ErrUnknownVertex, ErrInvalidArgument (match is nil), ErrClosed.
func (g *Graph) FirstAncestorsWith(ids []uint64, match func(id uint64) bool) ([]uint64, error) {
	return g.firstWith("FirstAncestorsWith", ids, match, 0)
}

// FirstDescendantsWith is FirstAncestorsWith towards dependents
// (Terraform's FirstDescendantsWith).
func (g *Graph) FirstDescendantsWith(ids []uint64, match func(id uint64) bool) ([]uint64, error) {
	return g.firstWith("FirstDescendantsWith", ids, match, SearchDependents)
}

// firstWith is dag_first_ancestors_with (dag_first_descendants_with) as
// dag.h defines it: dag_search with DAG_SEARCH_FIRST_MATCH, whose callback
// can end the search when match panics. libdag's predicate searches cannot
// be stopped: they would go on to their end.
func (g *Graph) firstWith(op string, ids []uint64, match func(uint64) bool, flags SearchFlags) ([]uint64, error) {
	if match == nil {
		return nil, newError(StatusInvalidArgument, op, "match is nil")
	}
	return g.search(op, ids, flags|SearchFirstMatch, func(id uint64) SearchAction {
		if match(id) {
			return SearchMatch
		}
		return SearchNoMatch
	})
}

// MatchAncestor is Terraform's MatchAncestor for a set: it reports whether
// match is true for some ancestor of ids, stopping at the first. A vertex
// of ids counts only when it is its own ancestor (through a cycle or another
// vertex of ids). match runs as for FirstAncestorsWith.
//
// Errors: ErrUnknownVertex, ErrInvalidArgument (match is nil), ErrClosed.
func (g *Graph) MatchAncestor(ids []uint64, match func(id uint64) bool) (bool, error) {
	return g.matchAny("MatchAncestor", ids, match, 0)
}

// MatchDescendant is MatchAncestor towards dependents (Terraform's
// MatchDescendant).
func (g *Graph) MatchDescendant(ids []uint64, match func(id uint64) bool) (bool, error) {
	return g.matchAny("MatchDescendant", ids, match, SearchDependents)
}

// matchAny is dag_match_ancestor (dag_match_descendant) as dag.h defines
// it: dag_search answering DAG_SEARCH_MATCH_AND_STOP for a match; see
// firstWith.
func (g *Graph) matchAny(op string, ids []uint64, match func(uint64) bool, flags SearchFlags) (bool, error) {
	if match == nil {
		return false, newError(StatusInvalidArgument, op, "match is nil")
	}
	found, err := g.search(op, ids, flags, func(id uint64) SearchAction {
		if match(id) {
			return SearchMatchAndStop
		}
		return SearchNoMatch
	})
	return len(found) > 0, err
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
