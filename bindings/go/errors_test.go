package dag_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	dag "libdag/bindings/go"
)

func TestStatusStrings(t *testing.T) {
	cases := map[dag.Status]string{
		dag.StatusOK:            "ok",
		dag.StatusUnknownVertex: "unknown vertex",
		dag.Status(-1000):       "unrecognised status",
	}
	for status, want := range cases {
		if got := status.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int32(status), got, want)
		}
	}
	// The numbers are libdag's ABI; a wrong constant would mismatch codes.
	if dag.StatusCycle != -8 || dag.StatusWalkFailed != -18 || dag.StatusCallback != -19 {
		t.Errorf("status values differ from dag.h: cycle %d, walk failed %d, callback %d", dag.StatusCycle,
			dag.StatusWalkFailed, dag.StatusCallback)
	}
	if got := dag.StatusCallback.String(); got != "a callback threw an exception" {
		t.Errorf("StatusCallback.String() = %q", got)
	}
}

func TestErrorMatchesSentinelByStatus(t *testing.T) {
	g, ids := build(t, "a")
	_, err := g.AddVertex("a")
	wantErr(t, "AddVertex duplicate", err, dag.ErrDuplicateName, `dag: AddVertex: vertex name "a" is already used`)

	var e *dag.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not a *dag.Error", err)
	}
	if e.Status != dag.StatusDuplicateName {
		t.Errorf("Status = %v, want %v", e.Status, dag.StatusDuplicateName)
	}
	if errors.Is(err, dag.ErrCycle) || errors.Is(err, dag.ErrClosed) {
		t.Errorf("error %q matches a sentinel of another status", err)
	}
	if errors.Unwrap(err) != nil {
		t.Errorf("libdag's own error unwraps to %v, want nil", errors.Unwrap(err))
	}
	if got := dag.ErrCycle.Error(); got != "dag: "+dag.StatusCycle.String() {
		t.Errorf("sentinel text %q", got)
	}
	if ids["a"] == dag.NoVertex {
		t.Fatal("vertex id 0 issued")
	}
}

func TestUnknownVertices(t *testing.T) {
	g, ids := build(t, "a->b")
	const missing = 9999
	checks := map[string]error{
		"RemoveVertex":  g.RemoveVertex(missing),
		"Connect":       g.Connect(ids["a"], missing),
		"Disconnect":    g.Disconnect(missing, ids["b"]),
		"ReplaceVertex": g.ReplaceVertex(ids["a"], missing),
		"SetName":       g.SetName(missing, "x"),
	}
	_, checks["Name"] = g.Name(missing)
	_, checks["Dependencies"] = g.Dependencies(missing)
	_, checks["Dependents"] = g.Dependents(missing)
	_, checks["Ancestors"] = g.Ancestors(ids["a"], missing)
	_, checks["Descendants"] = g.Descendants(missing)
	for what, err := range checks {
		wantErr(t, what, err, dag.ErrUnknownVertex, "9999")
	}
	_, err := g.Dependents(dag.NoVertex)
	wantErr(t, "Dependents(NoVertex)", err, dag.ErrUnknownVertex, "0")
	if g.HasVertex(missing) || g.HasEdge(ids["a"], missing) {
		t.Error("HasVertex/HasEdge true for an unknown id")
	}
	// Failed calls leave the graph as it was.
	if g.VertexCount() != 2 || g.EdgeCount() != 1 {
		t.Errorf("graph changed by failed calls: %d vertices, %d edges", g.VertexCount(), g.EdgeCount())
	}
}

func TestNameErrors(t *testing.T) {
	g, ids := build(t, "a", "b")
	_, err := g.AddVertex("")
	wantErr(t, "AddVertex empty", err, dag.ErrInvalidArgument, "empty")
	_, err = g.AddVertex("x\x00y")
	wantErr(t, "AddVertex NUL", err, dag.ErrInvalidArgument, "NUL")
	_, err = g.AddVertex("bad\xff")
	wantErr(t, "AddVertex bad UTF-8", err, dag.ErrBadUTF8, "")
	err = g.SetName(ids["a"], "b")
	wantErr(t, "SetName duplicate", err, dag.ErrDuplicateName, "")
	_, err = g.Find("nobody")
	wantErr(t, "Find", err, dag.ErrNotFound, `"nobody"`)
	_, err = g.Find("")
	wantErr(t, "Find empty", err, dag.ErrInvalidArgument, "")
	if g.VertexCount() != 2 {
		t.Errorf("VertexCount = %d after failed adds, want 2", g.VertexCount())
	}
}

func TestClosedGraph(t *testing.T) {
	g, ids := build(t, "a->b")
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	errs := map[string]error{
		"Connect":      g.Connect(ids["a"], ids["b"]),
		"RemoveVertex": g.RemoveVertex(ids["a"]),
		"SetName":      g.SetName(ids["a"], "z"),
		"ConnectMany":  g.ConnectMany([]dag.Edge{{From: ids["a"], To: ids["b"]}}),
		"Subsume":      g.Subsume(g),
		"Traverse":     g.Traverse(nil, 0, func(uint64, int) dag.Visit { return dag.VisitContinue }),
	}
	_, errs["TransitiveReduction"] = g.TransitiveReduction()
	_, errs["AddVertex"] = g.AddVertex("c")
	_, errs["AddUnnamedVertex"] = g.AddUnnamedVertex()
	_, errs["Find"] = g.Find("a")
	_, errs["Name"] = g.Name(ids["a"])
	_, errs["Vertices"] = g.Vertices()
	_, errs["Edges"] = g.Edges()
	_, errs["Clone"] = g.Clone()
	_, errs["Root"] = g.Root()
	_, errs["Validate"] = g.Validate(true)
	_, errs["TopologicalOrder"] = g.TopologicalOrder()
	_, errs["Export"] = g.Export(dag.FormatJSON)
	_, errs["FirstAncestorsWith"] = g.FirstAncestorsWith(nil, func(uint64) bool { return true })
	_, errs["MatchDescendant"] = g.MatchDescendant(nil, func(uint64) bool { return true })
	_, errs["Walk"] = g.Walk(dag.WalkOptions{}, func(uint64) error { return nil })
	for what, err := range errs {
		if !errors.Is(err, dag.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", what, err)
		}
	}
	if g.HasVertex(ids["a"]) || g.HasEdge(ids["a"], ids["b"]) || g.VertexCount() != 0 || g.EdgeCount() != 0 {
		t.Error("a closed graph still reports vertices or edges")
	}
	if s := g.String(); s != "<"+dag.ErrClosed.Error()+">" {
		t.Errorf("String() = %q", s)
	}

	var nilGraph *dag.Graph
	if _, err := nilGraph.AddVertex("a"); !errors.Is(err, dag.ErrClosed) {
		t.Errorf("AddVertex on a nil *Graph: %v, want ErrClosed", err)
	}
	if err := nilGraph.Close(); err != nil {
		t.Errorf("Close on a nil *Graph: %v", err)
	}
}

func TestSubsumeClosedOther(t *testing.T) {
	g, _ := build(t, "a")
	other, _ := build(t, "b")
	other.Close()
	if err := g.Subsume(other); !errors.Is(err, dag.ErrClosed) {
		t.Errorf("Subsume(closed): %v, want ErrClosed", err)
	}
	if err := g.Subsume(nil); !errors.Is(err, dag.ErrClosed) {
		t.Errorf("Subsume(nil): %v, want ErrClosed", err)
	}
}

func TestMessagesSpeakGo(t *testing.T) {
	g, ids := build(t, "a->b")
	_, errThreads := g.Walk(dag.WalkOptions{Threads: 5000}, func(uint64) error { return nil })
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, errDone := g.Walk(dag.WalkOptions{Context: done}, func(uint64) error { return nil })
	_, errNil := dag.Walk(context.Background(), g, nil, dag.WalkOptions{})
	empty, _ := dag.New()
	defer empty.Close()
	_, errRoot := empty.Root()
	_, errImport := dag.Import(dag.FormatJSON, []byte("{"))
	_, errSelect := g.Select([]uint64{ids["a"] + 100}, nil, 0)
	_, errExport := g.Export(dag.FormatAuto)
	for what, c := range map[string]struct {
		err  error
		want string
	}{
		"Walk(Threads 5000)": {errThreads, "dag: Graph.Walk: WalkOptions.Threads is 5000, more than 1024"},
		"Walk(Context done)": {errDone, "dag: Graph.Walk: context canceled"},
		"dag.Walk(nil fn)":   {errNil, "dag: Walk: fn is nil"},
		"Root":               {errRoot, "dag: Root: "},
		"Import":             {errImport, "dag: Import: "},
		"Select":             {errSelect, "dag: Select: "},
		"Export(FormatAuto)": {errExport, "dag: Export: FormatAuto is for reading"},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.want) || strings.Contains(c.err.Error(), "dag_") ||
			strings.Contains(c.err.Error(), "(1024)") {
			t.Errorf("%s: %v, want a message starting %q and no C names", what, c.err, c.want)
		}
	}
}

// libdag's refusal of a change during a walk points to its walk handle,
// which Go does not have: the Go way is Vertex.Apply.
func TestChangeDuringAWalkNamesVertexApply(t *testing.T) {
	g, ids, b := buildWithBuilder(t)
	errs := map[string]error{}
	report, err := dag.Walk(context.Background(), g, func(_ context.Context, v dag.Vertex) error {
		if v.ID != ids["a"] {
			return nil
		}
		_, errs["AddVertex"] = g.AddVertex("c")
		errs["Connect"] = g.Connect(ids["b"], ids["a"])
		_, errs["Builder.Build"] = b.Build(dag.BuildOptions{})
		return nil
	}, dag.WalkOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("Walk = %v, %v", report, err)
	}
	for what, err := range errs {
		want := "dag: " + what + ": the graph is being walked; change it through Vertex.Apply or wait for the walk to end"
		if !errors.Is(err, dag.ErrBusy) || err.Error() != want {
			t.Errorf("%s during a walk: %v, want %q", what, err, want)
		}
	}
}

// Vertex names in messages are the user's: only the messages of functions
// that name C terms have them rewritten ("DAG_WALK_MAX_THREADS" became
// "1024" in Root's list of roots, and a looked-up name was rewritten).
func TestMessagesKeepVertexNamesAsTheyAre(t *testing.T) {
	g, _ := build(t, "DAG_WALK_MAX_THREADS", "threads must")
	_, err := g.Root()
	if err == nil || !strings.Contains(err.Error(), "DAG_WALK_MAX_THREADS") || !strings.Contains(err.Error(), "threads must") {
		t.Errorf("Root: %v", err)
	}
	_, err = g.Find("opts->parallelism")
	if err == nil || !strings.Contains(err.Error(), "opts->parallelism") {
		t.Errorf("Find: %v", err)
	}
	// The walk's own messages still speak Go.
	_, err = g.Walk(dag.WalkOptions{Threads: 5000}, func(uint64) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "1024") {
		t.Errorf("Walk with 5000 threads: %v", err)
	}
}

// A closed Graph and a closed Builder fail alike: with an error that
// errors.Is matches with ErrClosed and that is not an *Error, as Error's
// documentation says. A closed builder of a closed graph says that the
// builder is closed.
func TestClosedGraphAndBuilderErrorsAreNotErrorValues(t *testing.T) {
	g, ids := build(t, "a")
	b, err := dag.NewBuilder(g)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	g.Close()
	builderErr := b.Provide(ids["a"], "x")
	if _, err := b.Build(dag.BuildOptions{}); err == nil || err.Error() != "dag: the builder is closed" {
		t.Errorf("Build of a closed builder: %v", err)
	}
	_, graphErr := g.AddVertex("b")
	if builderErr == nil || builderErr.Error() != "dag: the builder is closed" {
		t.Errorf("Provide of a closed builder: %v", builderErr)
	}
	for what, err := range map[string]error{"closed Builder": builderErr, "closed Graph": graphErr} {
		var e *dag.Error
		if !errors.Is(err, dag.ErrClosed) || errors.As(err, &e) {
			t.Errorf("%s: %v (an *Error: %v), want an error matching ErrClosed that is not an *Error", what, err, e != nil)
		}
	}
}

// A change from a search's callback is refused naming the method, as a
// change during a walk is (Builder.Build named itself "Build" there).
func TestChangeFromASearchCallbackNamesTheMethod(t *testing.T) {
	g, ids, b := buildWithBuilder(t)
	errs := map[string]error{}
	err := g.Traverse([]uint64{ids["a"]}, 0, func(uint64, int) dag.Visit {
		_, errs["AddVertex"] = g.AddVertex("c")
		_, errs["Builder.Build"] = b.Build(dag.BuildOptions{})
		return dag.VisitStop
	})
	if err != nil {
		t.Fatal(err)
	}
	for what, err := range errs {
		want := "dag: " + what + ": called from a callback of a search of this graph"
		if !errors.Is(err, dag.ErrBusy) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s from a search callback: %v, want a message starting %q", what, err, want)
		}
	}
}

// The graph a->b and a builder of it, both closed when the test ends.
func buildWithBuilder(t *testing.T) (*dag.Graph, map[string]uint64, *dag.Builder) {
	t.Helper()
	g, ids := build(t, "a->b")
	b, err := dag.NewBuilder(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return g, ids, b
}
