package dag_test

import (
	"testing"

	dag "libdag/bindings/go"
)

func TestSelect(t *testing.T) {
	// a depends on b, b on c; d stands alone.
	g, ids := build(t, "a->b", "b->c", "d")
	for _, tc := range []struct {
		what              string
		targets, excludes []string
		flags             dag.SelectFlags
		want              []string
	}{
		{"targets b", []string{"b"}, nil, 0, []string{"b", "c"}},
		{"targets b, dependents", []string{"b"}, nil, dag.SelectDependents, []string{"a", "b"}},
		{"all less b", nil, []string{"b"}, dag.SelectAll, []string{"c", "d"}},
		{"all less b, dependents", nil, []string{"b"}, dag.SelectAll | dag.SelectDependents, []string{"a", "d"}},
	} {
		var targets, excludes []uint64
		for _, n := range tc.targets {
			targets = append(targets, ids[n])
		}
		for _, n := range tc.excludes {
			excludes = append(excludes, ids[n])
		}
		sel, err := g.Select(targets, excludes, tc.flags)
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		vs, err := sel.Vertices()
		wantNames(t, tc.what, sel, vs, err, tc.want...)
		for _, v := range vs {
			if name, _ := g.Name(v); name != names(t, sel, []uint64{v})[0] {
				t.Errorf("%s: id %d is %q in the selection, %q in the graph", tc.what, v, names(t, sel, []uint64{v})[0], name)
			}
		}
		sel.Close()
	}
	_, err := g.Select([]uint64{99}, nil, 0)
	wantErr(t, "Select(unknown)", err, dag.ErrUnknownVertex, "")
	_, err = g.Select(nil, nil, 64)
	wantErr(t, "Select(bad flags)", err, dag.ErrInvalidArgument, "")
}

func TestUserData(t *testing.T) {
	g, ids := build(t, "a->b")
	if data, err := g.UserData(ids["a"]); err != nil || data != 0 {
		t.Errorf("UserData of a new vertex = %d, %v", data, err)
	}
	if err := g.SetUserData(ids["a"], 42); err != nil {
		t.Fatal(err)
	}
	clone, err := g.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer clone.Close()
	for what, graph := range map[string]*dag.Graph{"graph": g, "clone": clone} {
		if data, err := graph.UserData(ids["a"]); err != nil || data != 42 {
			t.Errorf("%s: UserData(a) = %d, %v", what, data, err)
		}
	}
	err = g.SetUserData(99, 1)
	wantErr(t, "SetUserData(unknown)", err, dag.ErrUnknownVertex, "")
	_, err = g.UserData(99)
	wantErr(t, "UserData(unknown)", err, dag.ErrUnknownVertex, "")
}

func TestVersionNumber(t *testing.T) {
	n := dag.VersionNumber()
	if n < 10200 || dag.Version() == "" {
		t.Errorf("VersionNumber() = %d, Version() = %q; want 1.2 or later", n, dag.Version())
	}
}

// SetUserData from a search's callback fails with ErrBusy, as documented,
// though libdag allows it there: the search holds the graph only for
// reading, and another goroutine's read of the same number would race with
// the store.
func TestSetUserDataFromASearchCallbackIsBusy(t *testing.T) {
	g, ids := build(t, "a->b")
	var inSearch error
	if err := g.Traverse([]uint64{ids["a"]}, 0, func(id uint64, _ int) dag.Visit {
		inSearch = g.SetUserData(id, 7)
		return dag.VisitStop
	}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "SetUserData from a visitor", inSearch, dag.ErrBusy, "SetUserData")
	if err := g.SetUserData(ids["a"], 7); err != nil {
		t.Fatalf("SetUserData once the search has returned: %v", err)
	}
	if data, err := g.UserData(ids["a"]); err != nil || data != 7 {
		t.Errorf("UserData = %d, %v; want 7", data, err)
	}
}
