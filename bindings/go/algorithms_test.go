package dag_test

import (
	"reflect"
	"testing"

	dag "libdag/bindings/go"
)

// TestTerraformSemantics pins the direction of every name on the header's
// example a -> b -> c: a depends on b, b depends on c.
func TestTerraformSemantics(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	a, c := ids["a"], ids["c"]

	order, err := g.ReverseTopologicalOrder()
	wantNames(t, "ReverseTopologicalOrder", g, order, err, "c", "b", "a")
	order, err = g.TopologicalOrder()
	wantNames(t, "TopologicalOrder", g, order, err, "a", "b", "c")

	root, err := g.Root()
	if err != nil || root != a {
		t.Errorf("Root = %d, %v; want a (%d)", root, err, a)
	}
	anc, err := g.Ancestors(a)
	wantNames(t, "Ancestors(a)", g, anc, err, "b", "c")
	anc, err = g.Ancestors(c)
	wantNames(t, "Ancestors(c)", g, anc, err)
	anc, err = g.Ancestors(a, ids["b"])
	wantNames(t, "Ancestors(a, b)", g, anc, err, "b", "c")
	desc, err := g.Descendants(c)
	wantNames(t, "Descendants(c)", g, desc, err, "a", "b")
	desc, err = g.Descendants(a)
	wantNames(t, "Descendants(a)", g, desc, err)
	none, err := g.Ancestors()
	wantNames(t, "Ancestors()", g, none, err)
}

func TestOrderTiesByName(t *testing.T) {
	// Added in reverse name order, so id order and name order disagree.
	g, _ := build(t, "c", "b", "a")
	order, err := g.TopologicalOrder()
	wantNames(t, "TopologicalOrder without edges", g, order, err, "a", "b", "c")
	order, err = g.ReverseTopologicalOrder()
	wantNames(t, "ReverseTopologicalOrder without edges", g, order, err, "a", "b", "c")
}

func TestRootErrors(t *testing.T) {
	empty, _ := build(t)
	_, err := empty.Root()
	wantErr(t, "Root of an empty graph", err, dag.ErrNoRoot, "dag: Root: no roots found")

	two, _ := build(t, "b->c", "a->c")
	_, err = two.Root()
	wantErr(t, "Root with two roots", err, dag.ErrMultipleRoots, "multiple roots: a, b")
}

func TestOrdersRefuseCycles(t *testing.T) {
	g, _ := build(t, "a->b", "b->c", "c->a")
	_, err := g.TopologicalOrder()
	wantErr(t, "TopologicalOrder", err, dag.ErrCycle, "Cycle:\n  a\n  b\n  c")
	_, err = g.ReverseTopologicalOrder()
	wantErr(t, "ReverseTopologicalOrder", err, dag.ErrCycle, "Cycle:")

	self, _ := build(t, "a->a")
	_, err = self.TopologicalOrder()
	wantErr(t, "TopologicalOrder with a self reference", err, dag.ErrCycle, "Self reference: a")
}

func TestStronglyConnectedAndCycles(t *testing.T) {
	// The header's example: a->b, b->a, b->c gives {c} then {b, a}.
	g, ids := build(t, "a->b", "b->a", "b->c")
	sccs, err := g.StronglyConnected()
	want := [][]uint64{{ids["c"]}, {ids["b"], ids["a"]}}
	if err != nil || !reflect.DeepEqual(sccs, want) {
		t.Errorf("StronglyConnected = %v, %v; want %v", sccs, err, want)
	}
	cycles, err := g.Cycles()
	if err != nil || len(cycles) != 1 {
		t.Fatalf("Cycles = %v, %v; want one cycle", cycles, err)
	}
	wantNames(t, "Cycles()[0]", g, cycles[0], nil, "a", "b")

	acyclic, _ := build(t, "a->b", "a->a")
	cycles, err = acyclic.Cycles()
	if err != nil || len(cycles) != 0 || cycles == nil {
		t.Errorf("Cycles of a graph with only a self reference = %#v, %v; want an empty list", cycles, err)
	}
}

func TestTransitiveReduction(t *testing.T) {
	g, ids := build(t, "a->b", "b->c", "a->c", "a->d")
	removed, err := g.TransitiveReduction()
	if err != nil || removed != 1 {
		t.Fatalf("TransitiveReduction = %d, %v; want 1 edge removed", removed, err)
	}
	if g.HasEdge(ids["a"], ids["c"]) || !g.HasEdge(ids["a"], ids["b"]) || !g.HasEdge(ids["b"], ids["c"]) || !g.HasEdge(ids["a"], ids["d"]) {
		t.Errorf("wrong edges after reduction:\n%s", g)
	}
	// Reachability is unchanged.
	anc, err := g.Ancestors(ids["a"])
	wantNames(t, "Ancestors(a) after reduction", g, anc, err, "b", "c", "d")

	cyclic, cids := build(t, "a->b", "b->a", "a->c", "b->c")
	_, err = cyclic.TransitiveReduction()
	wantErr(t, "TransitiveReduction of a cyclic graph", err, dag.ErrCycle, "Cycle:")
	if cyclic.EdgeCount() != 4 || !cyclic.HasEdge(cids["a"], cids["c"]) {
		t.Error("a refused reduction changed the graph")
	}
}
