package dag_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	dag "libdag/bindings/go"
)

// unnamed makes a graph of n unnamed vertices, each but the first depending
// on the one dependency(i) names (a chain: i-1; a fan: 0); closed when the
// test ends.
func unnamed(t *testing.T, n int, dependency func(i int) int) (*dag.Graph, []uint64) {
	t.Helper()
	g, err := dag.New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	ids, err := g.AddVertices(make([]string, n))
	if err != nil {
		t.Fatalf("AddVertices: %v", err)
	}
	for i := 1; i < n; i++ {
		if err := g.Connect(ids[i], ids[dependency(i)]); err != nil {
			t.Fatalf("Connect: %v", err)
		}
	}
	return g, ids
}

// build makes a graph from specs: "a->b" adds the edge a -> b (a depends on
// b), a lone "a" adds a vertex; vertices are added in order of first
// mention, so their ids follow that order. The graph is closed when the
// test ends.
func build(t *testing.T, specs ...string) (*dag.Graph, map[string]uint64) {
	t.Helper()
	g, err := dag.New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	ids := make(map[string]uint64)
	vertex := func(name string) uint64 {
		if id, ok := ids[name]; ok {
			return id
		}
		id, err := g.AddVertex(name)
		if err != nil {
			t.Fatalf("AddVertex(%q): %v", name, err)
		}
		ids[name] = id
		return id
	}
	for _, spec := range specs {
		from, to, isEdge := strings.Cut(spec, "->")
		if !isEdge {
			vertex(spec)
			continue
		}
		f, tt := vertex(from), vertex(to)
		if err := g.Connect(f, tt); err != nil {
			t.Fatalf("Connect(%s): %v", spec, err)
		}
	}
	return g, ids
}

// names maps ids to their names in g, keeping the order.
func names(t *testing.T, g *dag.Graph, ids []uint64) []string {
	t.Helper()
	out := make([]string, len(ids))
	for i, id := range ids {
		name, err := g.Name(id)
		if err != nil {
			t.Fatalf("Name(%d): %v", id, err)
		}
		out[i] = name
	}
	return out
}

func wantNames(t *testing.T, what string, g *dag.Graph, ids []uint64, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got := names(t, g, ids)
	if len(want) == 0 {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// wantErr checks that err matches sentinel and, when fragment is not
// empty, that its message contains fragment.
func wantErr(t *testing.T, what string, err error, sentinel error, fragment string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, sentinel)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("%s: error %q does not match %v", what, err, sentinel)
	}
	if fragment != "" && !strings.Contains(err.Error(), fragment) {
		t.Errorf("%s: error %q does not contain %q", what, err, fragment)
	}
}

// waitUntil polls cond until it holds: for a state that no channel
// announces. It fails the test if that takes more than ten seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after 10s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// holdInSearch keeps g read by a Traverse on another goroutine, its visitor
// blocked, until release is called; release waits for the search to end.
func holdInSearch(g *dag.Graph) (release func() error) {
	let, searching := make(chan struct{}), make(chan struct{})
	searched := make(chan error, 1)
	go func() {
		searched <- g.Traverse([]uint64{1}, 0, func(uint64, int) dag.Visit {
			close(searching)
			<-let
			return dag.VisitStop
		})
	}()
	<-searching
	return func() error {
		close(let)
		return <-searched
	}
}
