package dag_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	dag "libdag/bindings/go"
)

func TestFirstAncestorsWith(t *testing.T) {
	// The header's example: a->b, b->c, a->d with matches b and c gives {b}:
	// c is only reached through b.
	g, ids := build(t, "a->b", "b->c", "a->d")
	match := func(id uint64) bool { return id == ids["b"] || id == ids["c"] }
	found, err := g.FirstAncestorsWith([]uint64{ids["a"]}, match)
	wantNames(t, "FirstAncestorsWith", g, found, err, "b")

	found, err = g.FirstDescendantsWith([]uint64{ids["c"]}, func(id uint64) bool { return id != ids["c"] })
	wantNames(t, "FirstDescendantsWith", g, found, err, "b")
}

func TestMatchAncestorAndDescendant(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	isC := func(id uint64) bool { return id == ids["c"] }
	if ok, err := g.MatchAncestor([]uint64{ids["a"]}, isC); err != nil || !ok {
		t.Errorf("MatchAncestor(a, c) = %v, %v; want true", ok, err)
	}
	if ok, err := g.MatchAncestor([]uint64{ids["c"]}, isC); err != nil || ok {
		t.Errorf("MatchAncestor(c, c) = %v, %v; want false: a start vertex is not its own ancestor", ok, err)
	}
	isA := func(id uint64) bool { return id == ids["a"] }
	if ok, err := g.MatchDescendant([]uint64{ids["c"]}, isA); err != nil || !ok {
		t.Errorf("MatchDescendant(c, a) = %v, %v; want true", ok, err)
	}
	_, err := g.MatchAncestor([]uint64{4242}, isA)
	wantErr(t, "MatchAncestor of an unknown id", err, dag.ErrUnknownVertex, "")
	_, err = g.MatchAncestor([]uint64{ids["a"]}, nil)
	wantErr(t, "MatchAncestor(nil)", err, dag.ErrInvalidArgument, "nil")
}

func TestTraverseOrders(t *testing.T) {
	// The header's example: with a->b, a->c from a, depth first visits
	// a (0), c (1), b (1); breadth first a (0), b (1), c (1).
	g, ids := build(t, "a->b", "a->c")
	visit := func(flags dag.TraverseFlags, start ...uint64) []string {
		var seen []string
		err := g.Traverse(start, flags, func(id uint64, depth int) dag.Visit {
			name, err := g.Name(id) // reading from the visitor is allowed
			if err != nil {
				t.Errorf("Name from visitor: %v", err)
			}
			seen = append(seen, fmt.Sprintf("%s%d", name, depth))
			return dag.VisitContinue
		})
		if err != nil {
			t.Fatalf("Traverse: %v", err)
		}
		return seen
	}
	if got, want := visit(0, ids["a"]), []string{"a0", "c1", "b1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("depth first = %v, want %v", got, want)
	}
	if got, want := visit(dag.TraverseBreadthFirst, ids["a"]), []string{"a0", "b1", "c1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("breadth first = %v, want %v", got, want)
	}
	if got, want := visit(dag.TraverseReverse, ids["b"]), []string{"b0", "a1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reverse = %v, want %v", got, want)
	}
}

func TestTraverseSkipAndStop(t *testing.T) {
	g, ids := build(t, "a->b", "b->c", "a->d")
	var seen []uint64
	err := g.Traverse([]uint64{ids["a"]}, dag.TraverseBreadthFirst, func(id uint64, _ int) dag.Visit {
		seen = append(seen, id)
		if id == ids["b"] {
			return dag.VisitSkip
		}
		return dag.VisitContinue
	})
	wantNames(t, "Traverse skipping b", g, seen, err, "a", "b", "d")

	seen = nil
	err = g.Traverse([]uint64{ids["a"]}, 0, func(id uint64, _ int) dag.Visit {
		seen = append(seen, id)
		return dag.VisitStop
	})
	wantNames(t, "Traverse stopping at once", g, seen, err, "a")

	err = g.Traverse([]uint64{ids["a"]}, 0, func(uint64, int) dag.Visit { return dag.Visit(7) })
	wantErr(t, "Traverse with a bad answer", err, dag.ErrInvalidArgument, "")
	err = g.Traverse([]uint64{777}, 0, func(uint64, int) dag.Visit { return dag.VisitContinue })
	wantErr(t, "Traverse from an unknown id", err, dag.ErrUnknownVertex, "")
}

func TestCallbackCannotChangeTheGraph(t *testing.T) {
	g, ids := build(t, "a->b")
	var addErr, walkErr error
	_, err := g.FirstAncestorsWith([]uint64{ids["a"]}, func(uint64) bool {
		_, addErr = g.AddVertex("x")
		_, walkErr = g.Walk(dag.WalkOptions{}, func(uint64) error { return nil })
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "AddVertex from a predicate", addErr, dag.ErrBusy, "AddVertex")
	wantErr(t, "Walk from a predicate", walkErr, dag.ErrBusy, "")
	// Once the search has returned the graph can change again.
	if _, err := g.AddVertex("x"); err != nil {
		t.Errorf("AddVertex after the search: %v", err)
	}
}

func TestCallbackPanicReachesCaller(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	sentinel := errors.New("predicate exploded")
	calls := 0
	func() {
		defer func() {
			if r := recover(); r != sentinel {
				t.Errorf("recovered %v, want the predicate's panic value", r)
			}
		}()
		_, _ = g.FirstAncestorsWith([]uint64{ids["a"]}, func(uint64) bool {
			calls++
			panic(sentinel)
		})
		t.Error("FirstAncestorsWith returned instead of panicking")
	}()
	if calls != 1 {
		t.Errorf("predicate called %d times after panicking, want 1", calls)
	}
	func() {
		defer func() {
			if r := recover(); r != "visitor panic" {
				t.Errorf("recovered %v, want the visitor's panic value", r)
			}
		}()
		_ = g.Traverse([]uint64{ids["a"]}, 0, func(uint64, int) dag.Visit { panic("visitor panic") })
	}()
	// The graph's lock was released on the way out.
	if _, err := g.AddVertex("after-panic"); err != nil {
		t.Errorf("AddVertex after a recovered panic: %v", err)
	}
}

func TestChangeFromAnotherGoroutineWaitsForSearch(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	added := make(chan error, 1)
	started := false
	var countsSeen []int
	_, err := g.MatchAncestor([]uint64{ids["a"]}, func(uint64) bool {
		if !started {
			started = true
			go func() {
				_, err := g.AddVertex("late")
				added <- err
			}()
			// Give the writer time to queue up; reads from this callback
			// must still get through while it waits.
			time.Sleep(20 * time.Millisecond)
		}
		countsSeen = append(countsSeen, g.VertexCount())
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(countsSeen, []int{3, 3}) {
		t.Errorf("VertexCount from the callback = %v, want [3 3]: the change ran during the search", countsSeen)
	}
	select {
	case err := <-added:
		if err != nil {
			t.Errorf("AddVertex from another goroutine: %v, want it to wait and succeed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiting AddVertex never ran")
	}
	if g.VertexCount() != 4 {
		t.Errorf("VertexCount = %d after the waiting change, want 4", g.VertexCount())
	}
}

func TestSearchActions(t *testing.T) {
	// The header's example: a->b, b->c, a->d (ids in that order) from a.
	g, ids := build(t, "a->b", "b->c", "a->d")
	a, b, c, d := ids["a"], ids["b"], ids["c"], ids["d"]
	cases := []struct {
		what    string
		flags   dag.SearchFlags
		answers map[uint64]dag.SearchAction
		found   []string
		seen    []string
	}{
		{"match", 0, map[uint64]dag.SearchAction{b: dag.SearchMatch, c: dag.SearchMatch}, []string{"b", "c"}, []string{"d", "b", "c"}},
		{"first match", dag.SearchFirstMatch, map[uint64]dag.SearchAction{b: dag.SearchMatch, c: dag.SearchMatch}, []string{"b"}, []string{"d", "b"}},
		{"skip", 0, map[uint64]dag.SearchAction{b: dag.SearchSkip, c: dag.SearchMatch, d: dag.SearchMatch}, []string{"d"}, []string{"d", "b"}},
		{"stop", 0, map[uint64]dag.SearchAction{b: dag.SearchStop, d: dag.SearchMatch}, []string{"d"}, []string{"d", "b"}},
		{"match and stop", 0, map[uint64]dag.SearchAction{b: dag.SearchMatchAndStop}, []string{"b"}, []string{"d", "b"}},
		{"dependents", dag.SearchDependents, map[uint64]dag.SearchAction{b: dag.SearchMatch, a: dag.SearchMatch}, nil, nil},
	}
	for _, tc := range cases {
		var seen []uint64
		start := a
		if tc.flags&dag.SearchDependents != 0 {
			start = c
			tc.found, tc.seen = []string{"a", "b"}, []string{"b", "a"}
		}
		found, err := g.Search([]uint64{start}, tc.flags, func(id uint64) dag.SearchAction {
			seen = append(seen, id)
			return tc.answers[id]
		})
		wantNames(t, tc.what+": found", g, found, err, tc.found...)
		wantNames(t, tc.what+": seen", g, seen, nil, tc.seen...)
	}
}

func TestSearchStopsAndAbortsMidway(t *testing.T) {
	g, err := dag.New()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	chain := make([]uint64, 40)
	for i := range chain {
		if chain[i], err = g.AddUnnamedVertex(); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if err := g.Connect(chain[i-1], chain[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := 0
	found, err := g.Search(chain[:1], 0, func(uint64) dag.SearchAction {
		calls++
		if calls == 15 {
			return dag.SearchStop
		}
		return dag.SearchMatch
	})
	if err != nil || !reflect.DeepEqual(found, chain[1:15]) || calls != 15 {
		t.Errorf("stopped search = %v, %v after %d calls; want %v after 15", found, err, calls, chain[1:15])
	}
	calls = 0
	found, err = g.Search(chain[:1], 0, func(uint64) dag.SearchAction {
		calls++
		if calls == 15 {
			return dag.SearchAbort
		}
		return dag.SearchMatch
	})
	if found != nil || calls != 15 {
		t.Errorf("aborted search = %v after %d calls; want nil after 15", found, calls)
	}
	wantErr(t, "aborted search", err, dag.ErrCancelled, "aborted")
	// The graph is free again.
	if err := g.Connect(chain[39], chain[0]); err != nil {
		t.Errorf("Connect after an aborted search: %v", err)
	}
	_, err = g.Search(chain[:1], 0, func(uint64) dag.SearchAction { return dag.SearchAction(9) })
	wantErr(t, "bad answer", err, dag.ErrInvalidArgument, "dag: Search: ")
	_, err = g.Search(chain[:1], 8, func(uint64) dag.SearchAction { return dag.SearchMatch })
	wantErr(t, "bad flags", err, dag.ErrInvalidArgument, "flag")
	_, err = g.Search(chain[:1], 0, nil)
	wantErr(t, "nil decide", err, dag.ErrInvalidArgument, "nil")
}

func TestSearchPanicAbortsAtOnce(t *testing.T) {
	// a depends on b, c and d: the old predicate trampoline ended only the
	// panicking branch; an abort ends the whole search at the panic.
	g, ids := build(t, "a->b", "a->c", "a->d")
	calls := 0
	func() {
		defer func() {
			if r := recover(); r != "decide panic" {
				t.Errorf("recovered %v, want the callback's panic value", r)
			}
		}()
		_, _ = g.Search([]uint64{ids["a"]}, 0, func(uint64) dag.SearchAction {
			calls++
			panic("decide panic")
		})
	}()
	if calls != 1 {
		t.Errorf("callback called %d times, want 1", calls)
	}
	if _, err := g.AddVertex("after"); err != nil {
		t.Errorf("AddVertex after a recovered panic: %v", err)
	}
}

// A panic in the predicate of FirstAncestorsWith and its kin ends libdag's
// search there: they are dag_search, whose callback can end it. They were
// libdag's predicate searches, which cannot be stopped: each went on to its
// end, calling back for every vertex left.
func TestAPanickingPredicateEndsTheSearch(t *testing.T) {
	g, ids := build(t, "v1->v2", "v2->v3", "v3->v4", "v4->v5", "v1->v6")
	first, last := []uint64{ids["v1"]}, []uint64{ids["v5"]}
	for name, search := range map[string]func(match func(uint64) bool){
		"FirstAncestorsWith":   func(match func(uint64) bool) { _, _ = g.FirstAncestorsWith(first, match) },
		"FirstDescendantsWith": func(match func(uint64) bool) { _, _ = g.FirstDescendantsWith(last, match) },
		"MatchAncestor":        func(match func(uint64) bool) { _, _ = g.MatchAncestor(first, match) },
		"MatchDescendant":      func(match func(uint64) bool) { _, _ = g.MatchDescendant(last, match) },
	} {
		callbacks := 0
		restore := dag.OnSearchCallback(func() { callbacks++ })
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("%s: recovered %v, want the predicate's panic", name, r)
				}
			}()
			search(func(uint64) bool { panic("boom") })
		}()
		restore()
		if callbacks != 1 {
			t.Errorf("%s: libdag called back %d times, want once: the search went on past the panic", name, callbacks)
		}
	}
}

// The predicate searches run dag_search; their messages name the method
// called, not Search.
func TestPredicateSearchErrorsNameTheMethod(t *testing.T) {
	g, _ := build(t, "a->b")
	never := func(uint64) bool { return false }
	unknown := []uint64{4242}
	_, err := g.FirstAncestorsWith(unknown, never)
	wantErr(t, "FirstAncestorsWith", err, dag.ErrUnknownVertex, "dag: FirstAncestorsWith: ")
	_, err = g.FirstDescendantsWith(unknown, never)
	wantErr(t, "FirstDescendantsWith", err, dag.ErrUnknownVertex, "dag: FirstDescendantsWith: ")
	_, err = g.MatchAncestor(unknown, never)
	wantErr(t, "MatchAncestor", err, dag.ErrUnknownVertex, "dag: MatchAncestor: ")
	_, err = g.MatchDescendant(unknown, never)
	wantErr(t, "MatchDescendant", err, dag.ErrUnknownVertex, "dag: MatchDescendant: ")
	_, err = g.Search(unknown, 0, func(uint64) dag.SearchAction { return dag.SearchNoMatch })
	wantErr(t, "Search", err, dag.ErrUnknownVertex, "dag: Search: ")
}
