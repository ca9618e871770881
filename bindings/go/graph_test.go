package dag_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	dag "libdag/bindings/go"
)

func TestBuildAndQuery(t *testing.T) {
	g, ids := build(t, "a->b", "a->c", "d->b")
	a, b, c, d := ids["a"], ids["b"], ids["c"], ids["d"]

	if g.VertexCount() != 4 || g.EdgeCount() != 3 {
		t.Fatalf("VertexCount, EdgeCount = %d, %d; want 4, 3", g.VertexCount(), g.EdgeCount())
	}
	vertices, err := g.Vertices()
	if err != nil || !reflect.DeepEqual(vertices, []uint64{a, b, c, d}) {
		t.Errorf("Vertices = %v, %v; want %v", vertices, err, []uint64{a, b, c, d})
	}
	edges, err := g.Edges()
	want := []dag.Edge{{From: a, To: b}, {From: a, To: c}, {From: d, To: b}}
	if err != nil || !reflect.DeepEqual(edges, want) {
		t.Errorf("Edges = %v, %v; want %v", edges, err, want)
	}
	deps, err := g.Dependencies(a)
	wantNames(t, "Dependencies(a)", g, deps, err, "b", "c")
	deps, err = g.Dependencies(b)
	wantNames(t, "Dependencies(b)", g, deps, err)
	users, err := g.Dependents(b)
	wantNames(t, "Dependents(b)", g, users, err, "a", "d")
	if !g.HasEdge(a, b) || g.HasEdge(b, a) {
		t.Error("HasEdge does not follow the edge's direction")
	}
	if id, err := g.Find("c"); err != nil || id != c {
		t.Errorf("Find(c) = %d, %v; want %d", id, err, c)
	}
}

func TestConnectIsIdempotentAndSelfEdgesAreStored(t *testing.T) {
	g, ids := build(t, "a->b")
	if err := g.Connect(ids["a"], ids["b"]); err != nil {
		t.Fatalf("Connect again: %v", err)
	}
	if err := g.Connect(ids["a"], ids["a"]); err != nil {
		t.Fatalf("Connect self: %v", err)
	}
	if g.EdgeCount() != 2 || !g.HasEdge(ids["a"], ids["a"]) {
		t.Errorf("EdgeCount = %d; want the edge a->b once and the self edge", g.EdgeCount())
	}
	if err := g.Disconnect(ids["b"], ids["a"]); err != nil {
		t.Errorf("Disconnect of a missing edge: %v", err)
	}
	if err := g.Disconnect(ids["a"], ids["b"]); err != nil || g.HasEdge(ids["a"], ids["b"]) {
		t.Errorf("Disconnect(a, b) = %v, edge still there: %v", err, g.HasEdge(ids["a"], ids["b"]))
	}
}

func TestConnectManyIsAllOrNothing(t *testing.T) {
	g, ids := build(t, "a", "b", "c")
	a, b, c := ids["a"], ids["b"], ids["c"]
	err := g.ConnectMany([]dag.Edge{{From: a, To: b}, {From: b, To: 12345}})
	wantErr(t, "ConnectMany with an unknown id", err, dag.ErrUnknownVertex, "")
	if g.EdgeCount() != 0 {
		t.Fatalf("ConnectMany failed but added %d edges", g.EdgeCount())
	}
	if err := g.ConnectMany([]dag.Edge{{From: a, To: b}, {From: b, To: c}, {From: a, To: b}}); err != nil {
		t.Fatalf("ConnectMany: %v", err)
	}
	if g.EdgeCount() != 2 || !g.HasEdge(a, b) || !g.HasEdge(b, c) {
		t.Errorf("edges after ConnectMany: %d", g.EdgeCount())
	}
	if err := g.ConnectMany(nil); err != nil {
		t.Errorf("ConnectMany(nil): %v", err)
	}
}

func TestNamesAndUnnamedVertices(t *testing.T) {
	g, ids := build(t, "a")
	u, err := g.AddUnnamedVertex()
	if err != nil {
		t.Fatal(err)
	}
	if name, err := g.Name(u); err != nil || name != "" {
		t.Errorf("Name(unnamed) = %q, %v", name, err)
	}
	if err := g.SetName(u, "named"); err != nil {
		t.Fatal(err)
	}
	if id, err := g.Find("named"); err != nil || id != u {
		t.Errorf("Find after SetName = %d, %v", id, err)
	}
	if err := g.SetName(u, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Find("named"); !errors.Is(err, dag.ErrNotFound) {
		t.Errorf("old name still found: %v", err)
	}
	// The name is free again once its vertex is removed; ids are not reused.
	if err := g.RemoveVertex(ids["a"]); err != nil {
		t.Fatal(err)
	}
	again, err := g.AddVertex("a")
	if err != nil {
		t.Fatal(err)
	}
	if again == ids["a"] || again == u {
		t.Errorf("id %d reused", again)
	}
	// An unnamed vertex prints as its id and sorts as that text.
	if got, want := g.String(), fmt.Sprintf("%d\na\n", u); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestStringLayout(t *testing.T) {
	// The header's example: vertices "1", "2", "3" and the edge 1 -> 3.
	g, _ := build(t, "1->3", "2")
	if got, want := g.String(), "1\n  3\n2\n3\n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	empty, _ := build(t)
	if got := empty.String(); got != "" {
		t.Errorf("empty String() = %q", got)
	}
}

func TestReplaceVertex(t *testing.T) {
	g, ids := build(t, "a->old", "old->c", "new")
	if err := g.ReplaceVertex(ids["old"], ids["new"]); err != nil {
		t.Fatal(err)
	}
	if g.HasVertex(ids["old"]) {
		t.Error("original still in the graph")
	}
	if !g.HasEdge(ids["a"], ids["new"]) || !g.HasEdge(ids["new"], ids["c"]) || g.EdgeCount() != 2 {
		t.Errorf("edges not taken over: %s", g)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	g, ids := build(t, "a->b")
	c, err := g.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.String() != g.String() {
		t.Fatalf("clone %q differs from %q", c, g)
	}
	x, err := c.AddVertex("x")
	if err != nil {
		t.Fatal(err)
	}
	if x == ids["a"] || x == ids["b"] || g.HasVertex(x) {
		t.Errorf("clone's new id %d collides or leaked into the original", x)
	}
	if err := c.Disconnect(ids["a"], ids["b"]); err != nil || !g.HasEdge(ids["a"], ids["b"]) {
		t.Errorf("changing the clone changed the original: %v", err)
	}
}

func TestSubsume(t *testing.T) {
	g, ids := build(t, "a->shared")
	other, oids := build(t, "b->shared", "b->c")
	if err := g.Subsume(other); err != nil {
		t.Fatal(err)
	}
	// "shared" is the same vertex in both; b and c are new in g.
	if g.VertexCount() != 4 || g.EdgeCount() != 3 {
		t.Errorf("after Subsume: %q", g)
	}
	b, err := g.Find("b")
	if err != nil {
		t.Fatal(err)
	}
	if !g.HasEdge(b, ids["shared"]) {
		t.Errorf("b's edge not merged onto g's shared: %q", g)
	}
	if other.VertexCount() != 3 || !other.HasEdge(oids["b"], oids["c"]) {
		t.Error("Subsume changed the other graph")
	}
	wantErr(t, "Subsume(self)", g.Subsume(g), dag.ErrInvalidArgument, "itself")
}

func TestAddVerticesOrderAndConsecutiveIDs(t *testing.T) {
	g, ids := build(t, "x")
	got, err := g.AddVertices([]string{"a", "", "b", "c"})
	if err != nil {
		t.Fatalf("AddVertices: %v", err)
	}
	if len(got) != 4 {
		t.Fatalf("AddVertices returned %d ids, want 4", len(got))
	}
	for i, id := range got {
		if id == dag.NoVertex || id == ids["x"] || (i > 0 && id != got[0]+uint64(i)) {
			t.Fatalf("ids %v are not new and consecutive", got)
		}
	}
	// "" adds an unnamed vertex, which Name reports as "".
	if n := names(t, g, got); !reflect.DeepEqual(n, []string{"a", "", "b", "c"}) {
		t.Errorf("names of the new vertices = %q", n)
	}
	if g.VertexCount() != 5 {
		t.Errorf("VertexCount = %d, want 5", g.VertexCount())
	}
	if id, err := g.Find("b"); err != nil || id != got[2] {
		t.Errorf("Find(b) = %d, %v; want %d", id, err, got[2])
	}
	unnamed, err := g.AddVertices(make([]string, 3))
	if err != nil || len(unnamed) != 3 || unnamed[0] != got[3]+1 || unnamed[2] != unnamed[0]+2 {
		t.Errorf("AddVertices of 3 unnamed = %v, %v", unnamed, err)
	}
}

func TestAddVerticesIsAllOrNothing(t *testing.T) {
	g, ids := build(t, "a->b")
	before := g.String()
	ids2, err := g.AddVertices([]string{"p", "q", "p"})
	wantErr(t, "AddVertices with a name given twice", err, dag.ErrDuplicateName, "dag: AddVertices: vertex 2: ")
	if ids2 != nil {
		t.Errorf("AddVertices failed but returned ids %v", ids2)
	}
	_, err = g.AddVertices([]string{"p", "b"})
	wantErr(t, "AddVertices with a taken name", err, dag.ErrDuplicateName, "vertex 1: ")
	_, err = g.AddVertices([]string{"p", "q\x00r"})
	wantErr(t, "AddVertices with a NUL byte", err, dag.ErrInvalidArgument, "dag: AddVertices: vertex 1: the name holds a NUL byte")
	_, err = g.AddVertices([]string{"p", "\xff"})
	wantErr(t, "AddVertices with bad UTF-8", err, dag.ErrBadUTF8, "vertex 1")
	if g.VertexCount() != 2 || g.String() != before {
		t.Errorf("a failed AddVertices changed the graph: %q, was %q", g, before)
	}
	if _, err := g.Find("p"); !errors.Is(err, dag.ErrNotFound) {
		t.Errorf("Find(p) after the failed batches: %v, want ErrNotFound", err)
	}
	// The failed batches used no ids: the next one follows b's.
	next, err := g.AddVertices([]string{"p", "q"})
	if err != nil || !reflect.DeepEqual(next, []uint64{ids["b"] + 1, ids["b"] + 2}) {
		t.Errorf("AddVertices after the failures = %v, %v; want ids after %d", next, err, ids["b"])
	}
}

func TestFindVerticesMatchesFind(t *testing.T) {
	g, _ := build(t, "a->b", "c")
	query := []string{"c", "missing", "a", "b", "a", "also missing"}
	got, err := g.FindVertices(query)
	if err != nil {
		t.Fatalf("FindVertices: %v", err)
	}
	if len(got) != len(query) {
		t.Fatalf("FindVertices returned %d ids for %d names", len(got), len(query))
	}
	for i, name := range query {
		id, err := g.Find(name)
		switch {
		case errors.Is(err, dag.ErrNotFound):
			if got[i] != dag.NoVertex {
				t.Errorf("FindVertices[%d] (%q) = %d; Find says not found, want NoVertex", i, name, got[i])
			}
		case err != nil:
			t.Fatalf("Find(%q): %v", name, err)
		case got[i] != id:
			t.Errorf("FindVertices[%d] (%q) = %d; Find says %d", i, name, got[i], id)
		}
	}
	_, err = g.FindVertices([]string{"a", ""})
	wantErr(t, "FindVertices with an empty name", err, dag.ErrInvalidArgument, "dag: FindVertices: names[1]")
	_, err = g.FindVertices([]string{"a\x00b"})
	wantErr(t, "FindVertices with a NUL byte", err, dag.ErrInvalidArgument, "dag: FindVertices: names[0] holds a NUL byte")
	_, err = g.FindVertices([]string{"a", "b", "\xff"})
	wantErr(t, "FindVertices with bad UTF-8", err, dag.ErrBadUTF8, "names[2]")
}

func TestBatchVertexCallsOnEmptyAndClosed(t *testing.T) {
	g, _ := build(t, "a")
	for _, names := range [][]string{nil, {}} {
		added, err := g.AddVertices(names)
		if err != nil || added == nil || len(added) != 0 {
			t.Errorf("AddVertices(%#v) = %#v, %v; want an empty slice", names, added, err)
		}
		found, err := g.FindVertices(names)
		if err != nil || found == nil || len(found) != 0 {
			t.Errorf("FindVertices(%#v) = %#v, %v; want an empty slice", names, found, err)
		}
	}
	if g.VertexCount() != 1 {
		t.Errorf("empty batches changed the graph: %q", g)
	}
	g.Close()
	if _, err := g.AddVertices([]string{"b"}); err != dag.ErrClosed {
		t.Errorf("AddVertices after Close: %v", err)
	}
	if _, err := g.AddVertices(nil); err != dag.ErrClosed {
		t.Errorf("AddVertices(nil) after Close: %v", err)
	}
	if _, err := g.FindVertices([]string{"a"}); err != dag.ErrClosed {
		t.Errorf("FindVertices after Close: %v", err)
	}
}

// A Graph that is a struct's field or a slice's element is not the start
// of an allocation: Close cleared the finalizer of that address, and the
// runtime stopped the program ("pointer not at beginning of allocated
// block"), which no recover catches.
func TestCloseOfAGraphInsideAStructOrSlice(t *testing.T) {
	type holder struct {
		n int
		g dag.Graph
	}
	h := &holder{}
	if _, err := h.g.AddVertex("a"); !errors.Is(err, dag.ErrClosed) {
		t.Fatalf("AddVertex on a zero Graph: %v, want ErrClosed", err)
	}
	if err := h.g.Close(); err != nil {
		t.Fatalf("Close of a zero Graph: %v", err)
	}

	g, _ := build(t, "a")
	graphs := make([]dag.Graph, 2)
	graphs[1] = *g
	if _, err := graphs[1].AddVertex("b"); err != nil {
		t.Fatalf("AddVertex through a copy: %v", err)
	}
	if err := graphs[1].Close(); err != nil {
		t.Fatalf("Close through a copy: %v", err)
	}
	if _, err := g.AddVertex("c"); !errors.Is(err, dag.ErrClosed) {
		t.Fatalf("AddVertex after a copy's Close: %v, want ErrClosed", err)
	}
	var b dag.Builder
	if err := b.Close(); err != nil {
		t.Fatalf("Close of a zero Builder: %v", err)
	}
	builders := make([]struct {
		n int
		b dag.Builder
	}, 1)
	if err := builders[0].b.Close(); err != nil {
		t.Fatalf("Close of a zero Builder in a struct: %v", err)
	}
}
