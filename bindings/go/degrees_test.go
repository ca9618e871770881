package dag_test

import (
	"testing"

	dag "libdag/bindings/go"
)

func TestRootsLeavesAndDegrees(t *testing.T) {
	// a -> b, a -> c: a depends on b and c; self has an edge to itself.
	g, ids := build(t, "a->b", "a->c", "lone", "self->self")
	a, b := ids["a"], ids["b"]
	roots, err := g.Roots()
	wantNames(t, "Roots", g, roots, err, "a", "lone")
	leaves, err := g.Leaves()
	wantNames(t, "Leaves", g, leaves, err, "b", "c", "lone")
	for _, tc := range []struct {
		id             uint64
		deps, dependts int
	}{{a, 2, 0}, {b, 0, 1}, {ids["self"], 1, 1}, {ids["lone"], 0, 0}} {
		deps, err1 := g.DependencyCount(tc.id)
		dents, err2 := g.DependentCount(tc.id)
		if err1 != nil || err2 != nil || deps != tc.deps || dents != tc.dependts {
			t.Errorf("degrees of %d = %d, %d (%v, %v); want %d, %d", tc.id, deps, dents, err1, err2, tc.deps, tc.dependts)
		}
	}
	if err := g.RemoveVertex(a); err != nil {
		t.Fatal(err)
	}
	roots, err = g.Roots()
	wantNames(t, "Roots after removing a", g, roots, err, "b", "c", "lone")
	_, err = g.DependencyCount(a)
	wantErr(t, "DependencyCount of a removed vertex", err, dag.ErrUnknownVertex, "")
	_, err = g.DependentCount(0)
	wantErr(t, "DependentCount(0)", err, dag.ErrUnknownVertex, "")

	empty, err := dag.New()
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if r, err := empty.Roots(); err != nil || len(r) != 0 {
		t.Errorf("Roots of an empty graph = %v, %v", r, err)
	}
	if l, err := empty.Leaves(); err != nil || len(l) != 0 {
		t.Errorf("Leaves of an empty graph = %v, %v", l, err)
	}
	empty.Close()
	if _, err := empty.Roots(); err == nil {
		t.Error("Roots of a closed graph succeeded")
	}
}
