package dag

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

func namedEdges(t *testing.T, g *Graph) []string {
	t.Helper()
	edges, err := g.Edges()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range edges {
		from, _ := g.Name(e.From)
		to, _ := g.Name(e.To)
		out = append(out, from+" -> "+to)
	}
	sort.Strings(out)
	return out
}

func TestBuilderStandardSteps(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	vpc, _ := g.AddVertex("aws_vpc.main")
	subnet, _ := g.AddVertex("aws_subnet.public")
	out, _ := g.AddVertex("output.subnet")
	b, err := NewBuilder(g)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const aws = `provider["aws"]`
	for _, err := range []error{
		b.Provide(vpc, "aws_vpc.main"),
		b.Provide(subnet, "aws_subnet.public"),
		b.Reference(subnet, "aws_vpc.main.id"),
		b.Reference(out, "aws_subnet.public[0].id"),
		b.Need(vpc, aws),
		b.Need(subnet, aws),
		b.SetAction(subnet, ActionReplace),
		b.AddReferences(false),
		b.AddDestroyOrder(),
		b.AddShared(true),
		b.AddRoot(""),
		b.AddTransitiveReduction(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	warnings, err := b.Build(DefaultBuildOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %v", warnings)
	}
	want := []string{
		"aws_subnet.public (destroy) -> " + aws,
		"aws_subnet.public -> aws_subnet.public (destroy)",
		"aws_subnet.public -> aws_vpc.main",
		"aws_vpc.main -> " + aws,
		"output.subnet -> aws_subnet.public",
		"root -> output.subnet",
		"root -> " + aws + " (close)",
		aws + " (close) -> aws_subnet.public",
	}
	sort.Strings(want)
	if got := namedEdges(t, g); !reflect.DeepEqual(got, want) {
		t.Errorf("edges\n%v\nwant\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBuilderUnresolvedReferences(t *testing.T) {
	g, _ := New()
	defer g.Close()
	web, _ := g.AddVertex("web")
	strict, _ := NewBuilder(g)
	defer strict.Close()
	if err := strict.Reference(web, "var.region", "var.ami"); err != nil {
		t.Fatal(err)
	}
	strict.AddReferences(false)
	_, err := strict.Build(DefaultBuildOptions)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "step 'references': 2 unresolved references") {
		t.Fatalf("got %v", err)
	}
	lenient, _ := NewBuilder(g)
	defer lenient.Close()
	lenient.Reference(web, "var.region")
	lenient.AddReferences(true)
	warnings, err := lenient.Build(DefaultBuildOptions)
	if err != nil || !reflect.DeepEqual(warnings, []string{`web: nothing provides "var.region"`}) {
		t.Fatalf("warnings %q, error %v", warnings, err)
	}
	// A build that then fails keeps its warnings (they were dropped).
	cycle1, _ := g.AddVertex("x")
	cycle2, _ := g.AddVertex("y")
	g.Connect(cycle1, cycle2)
	g.Connect(cycle2, cycle1)
	failing, _ := NewBuilder(g)
	defer failing.Close()
	failing.Reference(web, "var.region")
	failing.AddReferences(true)
	warnings, err = failing.Build(DefaultBuildOptions)
	if !errors.Is(err, ErrCycle) || !reflect.DeepEqual(warnings, []string{`web: nothing provides "var.region"`}) {
		t.Fatalf("warnings %q, error %v", warnings, err)
	}
}

func TestBuilderErrors(t *testing.T) {
	g, _ := New()
	defer g.Close()
	g.AddVertex("a")
	g.AddVertex("b")
	b, _ := NewBuilder(g)
	if _, err := b.Build(DefaultBuildOptions); !errors.Is(err, ErrMultipleRoots) {
		t.Errorf("got %v, want multiple roots", err)
	}
	if _, err := b.Build(BuildOptions{Validate: true}); err != nil {
		t.Errorf("without the single-root rule: %v", err)
	}
	if err := b.Provide(99, "x"); !errors.Is(err, ErrUnknownVertex) {
		t.Errorf("got %v", err)
	}
	// In Go's terms, by the method's whole name.
	if err := b.SetAction(1, Action(9)); !errors.Is(err, ErrInvalidArgument) ||
		err.Error() != "dag: Builder.SetAction: action 9 is not an Action" {
		t.Errorf("got %v", err)
	}
	// C's dag_action is 32 bits: a larger Action is refused, not cut.
	for _, bad := range []int64{-1, 1<<32 | 3} {
		if err := b.SetAction(1, Action(bad)); !errors.Is(err, ErrInvalidArgument) ||
			err.Error() != fmt.Sprintf("dag: Builder.SetAction: action %d is not an Action", bad) {
			t.Errorf("Action(%d): got %v", bad, err)
		}
	}
	if err := b.Provide(1, "a\x00b"); !errors.Is(err, ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "dag: Builder.Provide: ") {
		t.Errorf("got %v", err)
	}
	if err := b.Need(1, "a\x00b"); !errors.Is(err, ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "dag: Builder.Need: the key ") {
		t.Errorf("got %v", err)
	}
	if err := b.AddRoot("r\x00"); !errors.Is(err, ErrInvalidArgument) ||
		err.Error() != "dag: Builder.AddRoot: the name holds a NUL byte" {
		t.Errorf("AddRoot with a NUL byte: got %v", err)
	}
	// Every method of a builder whose graph is closed says so at once.
	g2, _ := New()
	g2.AddVertex("a")
	b2, _ := NewBuilder(g2)
	defer b2.Close()
	g2.Close()
	for what, err := range map[string]error{
		"AddRoot":                b2.AddRoot("r"),
		"AddShared":              b2.AddShared(true),
		"AddDestroyOrder":        b2.AddDestroyOrder(),
		"AddTransitiveReduction": b2.AddTransitiveReduction(),
		"Provide":                b2.Provide(1, "x"),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after the graph closed: got %v, want ErrClosed", what, err)
		}
	}
	b.Close()
	b.Close()
	// A closed builder says it is the builder that is closed.
	if err := b.AddRoot("r"); !errors.Is(err, ErrClosed) || err.Error() != "dag: the builder is closed" {
		t.Errorf("got %v", err)
	}
	if err := b2.AddRoot("r"); err.Error() != "dag: graph is closed" {
		t.Errorf("a builder of a closed graph: got %v", err)
	}
}

// A builder's methods take its graph's lock before the builder's own, as
// Build does. Build took the builder's lock first and held it while it
// waited for the graph: a declaration from a search's callback, which holds
// the graph, then waited for Build, which waited for the search; and Close
// waited for Build.
func TestBuilderUsedFromASearchCallbackWhileBuildWaits(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a, _ := g.AddVertex("a")
	bv, _ := g.AddVertex("b")
	if err := g.Connect(a, bv); err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(g)
	if err != nil {
		t.Fatal(err)
	}
	built := make(chan error, 2)
	searched := make(chan error, 1)
	var provided, closed error
	go func() {
		searched <- g.Traverse([]uint64{a}, 0, func(id uint64, depth int) Visit {
			go func() {
				_, err := b.Build(BuildOptions{})
				built <- err
			}()
			for WritersWaiting(g) == 0 {
				time.Sleep(time.Millisecond)
			}
			provided = b.Provide(id, "x.y")
			return VisitStop
		})
	}()
	select {
	case err := <-searched:
		if err != nil || provided != nil {
			t.Fatalf("Traverse: %v; Provide from its visitor: %v", err, provided)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: Provide in a visitor waits for Build, which waits for the Traverse")
	}
	if err := <-built; err != nil {
		t.Fatalf("Build: %v", err)
	}

	// Close while Build waits for the graph.
	searched = make(chan error, 1)
	go func() {
		searched <- g.Traverse([]uint64{a}, 0, func(uint64, int) Visit {
			go func() {
				_, err := b.Build(BuildOptions{})
				built <- err
			}()
			for WritersWaiting(g) == 0 {
				time.Sleep(time.Millisecond)
			}
			closed = b.Close()
			return VisitStop
		})
	}()
	select {
	case err := <-searched:
		if err != nil || closed != nil {
			t.Fatalf("Traverse: %v; Close from its visitor: %v", err, closed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: Close in a visitor waits for Build, which waits for the Traverse")
	}
	if err := <-built; !errors.Is(err, ErrClosed) || err.Error() != "dag: the builder is closed" {
		t.Errorf("Build of a builder closed while it waited: %v", err)
	}
}
