package dag_test

import (
	"errors"
	"reflect"
	"testing"

	dag "libdag/bindings/go"
)

func TestValidateValidGraph(t *testing.T) {
	g, _ := build(t, "a->b", "b->c")
	v, err := g.Validate(true)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK || v.Status != dag.StatusOK || v.Text != "" || len(v.Messages) != 0 || len(v.Cycles) != 0 || len(v.SelfReferences) != 0 {
		t.Errorf("Validate of a valid graph = %+v", v)
	}
	if v.Err() != nil {
		t.Errorf("Err() = %v, want nil", v.Err())
	}
}

func TestValidateCycleText(t *testing.T) {
	// The header's example: a->b, b->c, c->a reads "Cycle:\n  a\n  b\n  c",
	// each line depending on the next.
	g, ids := build(t, "r->a", "a->b", "b->c", "c->a")
	v, err := g.Validate(true)
	if err != nil {
		t.Fatal(err)
	}
	if v.OK || v.Status != dag.StatusCycle {
		t.Fatalf("OK, Status = %v, %v; want false, cycle", v.OK, v.Status)
	}
	if want := "Cycle:\n  a\n  b\n  c"; v.Text != want {
		t.Errorf("Text = %q, want %q", v.Text, want)
	}
	if want := [][]uint64{{ids["a"], ids["b"], ids["c"]}}; !reflect.DeepEqual(v.Cycles, want) {
		t.Errorf("Cycles = %v, want %v", v.Cycles, want)
	}
	err = v.Err()
	wantErr(t, "Validation.Err", err, dag.ErrCycle, "dag: Validate: Cycle:\n  a\n  b\n  c")
}

func TestValidateRotatesToShortestName(t *testing.T) {
	g, _ := build(t, "long->mid", "mid->x", "x->long")
	v, err := g.Validate(false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Cycle:\n  x\n  long\n  mid"; v.Text != want {
		t.Errorf("Text = %q, want %q", v.Text, want)
	}
}

func TestValidateEverythingAtOnce(t *testing.T) {
	g, ids := build(t, "a->b", "b->a", "s->s", "r1", "r2")
	v, err := g.Validate(true)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != dag.StatusCycle {
		t.Errorf("Status = %v, want cycle (whatever else is wrong)", v.Status)
	}
	want := []string{"multiple roots: r1, r2", "Cycle:\n  a\n  b", "Self reference: s"}
	if !reflect.DeepEqual(v.Messages, want) {
		t.Errorf("Messages = %q, want %q", v.Messages, want)
	}
	if !reflect.DeepEqual(v.SelfReferences, []uint64{ids["s"]}) {
		t.Errorf("SelfReferences = %v, want [%d]", v.SelfReferences, ids["s"])
	}
	if !errors.Is(v.Err(), dag.ErrCycle) {
		t.Errorf("Err() = %v, want ErrCycle", v.Err())
	}

	// Without the single-root rule only the cycle problems remain.
	v, err = g.Validate(false)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != dag.StatusCycle || len(v.Messages) != 2 {
		t.Errorf("Validate(false) = %v %q; want the cycle and the self reference only", v.Status, v.Messages)
	}
}

func TestValidateRoots(t *testing.T) {
	empty, _ := build(t)
	v, err := empty.Validate(true)
	if err != nil || v.Status != dag.StatusNoRoot || v.Text != "no roots found" {
		t.Errorf("Validate(empty) = %+v, %v", v, err)
	}
	v, err = empty.Validate(false)
	if err != nil || !v.OK {
		t.Errorf("Validate(empty, no single root) = %+v, %v", v, err)
	}
}
