package dag_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dag "libdag/bindings/go"
)

// layered builds a graph of n vertices where vertex i depends on up to
// three earlier ones, picked by a fixed pseudo-random sequence so every run
// checks the same shape.
func layered(t *testing.T, n int) (*dag.Graph, []dag.Edge) {
	t.Helper()
	g, err := dag.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ids := make([]uint64, n)
	for i := range ids {
		if ids[i], err = g.AddVertex(fmt.Sprintf("v%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var edges []dag.Edge
	seed := uint32(12345)
	for i := 1; i < n; i++ {
		for k := 0; k < 3; k++ {
			seed = seed*1664525 + 1013904223
			edges = append(edges, dag.Edge{From: ids[i], To: ids[int(seed>>8)%i]})
		}
	}
	if err := g.ConnectMany(edges); err != nil {
		t.Fatal(err)
	}
	return g, edges
}

func TestWalkRespectsDependenciesUnderParallelism(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			const n = 300
			g, edges := layered(t, n)
			var clock int64
			var starts, ends, calls [n + 1]int64
			report, err := g.Walk(dag.WalkOptions{Parallelism: 8, Threads: 8, Reverse: reverse}, func(id uint64) error {
				atomic.StoreInt64(&starts[id], atomic.AddInt64(&clock, 1))
				atomic.AddInt64(&calls[id], 1)
				if id%7 == 0 {
					runtime.Gosched() // let other vertices overlap this one
				}
				atomic.StoreInt64(&ends[id], atomic.AddInt64(&clock, 1))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !report.OK() || report.Count(dag.VertexOK) != n || len(report.Vertices) != n || report.Err() != nil {
				t.Fatalf("report not OK: %d ok of %d, err %v", report.Count(dag.VertexOK), len(report.Vertices), report.Err())
			}
			for id := 1; id <= n; id++ {
				if calls[id] != 1 {
					t.Errorf("vertex %d ran %d times", id, calls[id])
				}
			}
			for _, e := range edges {
				first, then := e.To, e.From // e.From depends on e.To
				if reverse {
					first, then = then, first
				}
				if ends[first] >= starts[then] {
					t.Errorf("%d started before %d ended", then, first)
				}
				// libdag's own timestamps promise the same.
				rf, _ := report.Result(first)
				rt, _ := report.Result(then)
				if rt.Start < rf.End || rf.End < rf.Start || !rf.Ran {
					t.Errorf("report times: %d [%v, %v] then %d [%v, %v]", first, rf.Start, rf.End, then, rt.Start, rt.End)
				}
			}
		})
	}
}

func TestWalkParallelismBound(t *testing.T) {
	names := make([]string, 24)
	for i := range names {
		names[i] = fmt.Sprintf("job%d", i)
	}
	g, _ := build(t, names...)
	var running, most int32
	_, err := g.Walk(dag.WalkOptions{Parallelism: 3, Threads: 8}, func(uint64) error {
		now := atomic.AddInt32(&running, 1)
		for {
			seen := atomic.LoadInt32(&most)
			if now <= seen || atomic.CompareAndSwapInt32(&most, seen, now) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		atomic.AddInt32(&running, -1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if most > 3 {
		t.Errorf("%d callbacks ran at once, Parallelism is 3", most)
	}
	if most < 2 {
		t.Errorf("at most %d callback ran at once: the walk did not run independent vertices in parallel", most)
	}
}

func TestWalkFailurePropagation(t *testing.T) {
	g, ids := build(t, "a->b", "b->c", "d->c", "x->e")
	boom := errors.New("boom")
	var ranMu sync.Mutex
	ran := map[uint64]bool{}
	report, err := g.Walk(dag.WalkOptions{}, func(id uint64) error {
		ranMu.Lock()
		ran[id] = true
		ranMu.Unlock()
		if id == ids["c"] {
			return fmt.Errorf("creating c: %w", boom)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("a walk with failed vertices returned error %v, want nil and the report", err)
	}
	if report.OK() {
		t.Fatal("report.OK() with a failed vertex")
	}
	c, _ := report.Result(ids["c"])
	if c.Status != dag.VertexFailed || c.Message != "creating c: boom" || !errors.Is(c.Err, boom) || !c.Ran {
		t.Errorf("c = %+v", c)
	}
	for _, name := range []string{"a", "b", "d"} {
		r, ok := report.Result(ids[name])
		if !ok || r.Status != dag.VertexUpstreamFailed || r.Ran || r.Err != nil || ran[ids[name]] {
			t.Errorf("%s = %+v (ran: %v), want upstream-failed and not run", name, r, ran[ids[name]])
		}
	}
	for _, name := range []string{"e", "x"} {
		if r, _ := report.Result(ids[name]); r.Status != dag.VertexOK {
			t.Errorf("independent %s = %v, want ok", name, r.Status)
		}
	}
	if report.Count(dag.VertexUpstreamFailed) != 3 || report.Count(dag.VertexFailed) != 1 || report.Count(dag.VertexOK) != 2 {
		t.Errorf("counts: %d upstream-failed, %d failed, %d ok", report.Count(dag.VertexUpstreamFailed), report.Count(dag.VertexFailed), report.Count(dag.VertexOK))
	}
	if report.FirstError != ids["c"] || report.FirstErrorMessage != "vertex c failed: creating c: boom" {
		t.Errorf("FirstError = %d %q", report.FirstError, report.FirstErrorMessage)
	}
	wantErr(t, "report.Err", report.Err(), dag.ErrWalkFailed, "vertex c failed: creating c: boom")
	if dag.VertexUpstreamFailed.String() != "upstream-failed" {
		t.Errorf("VertexUpstreamFailed.String() = %q", dag.VertexUpstreamFailed)
	}
	if _, ok := report.Result(9999); ok {
		t.Error("Result of an id outside the walk reported ok")
	}
}

func TestWalkMessages(t *testing.T) {
	g, ids := build(t, "empty", "odd", "long")
	long := strings.Repeat("0123456789", 10000)
	report, err := g.Walk(dag.WalkOptions{}, func(id uint64) error {
		switch id {
		case ids["empty"]:
			return errors.New("")
		case ids["odd"]:
			return errors.New("nul\x00byte and bad \xff utf-8")
		default:
			return errors.New(long)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := report.Result(ids["empty"]); r.Message != "" || r.Err == nil {
		t.Errorf("empty message: %+v", r)
	}
	if r, _ := report.Result(ids["odd"]); r.Message != "nul\uFFFDbyte and bad \uFFFD utf-8" {
		t.Errorf("odd message = %q", r.Message)
	}
	if r, _ := report.Result(ids["long"]); r.Message != long {
		t.Errorf("long message has %d bytes, want %d", len(r.Message), len(long))
	}
}

func TestWalkFailureMessagesFromEightThreads(t *testing.T) {
	// Every message is handed to libdag (dag_walk_fail) in a C string freed
	// at once; each vertex must still report its own. The first eight
	// callbacks wait for each other, so eight threads fail at the same time.
	g, err := dag.New()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for i := 0; i < 64; i++ {
		if _, err := g.AddUnnamedVertex(); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	entered := 0
	allIn := make(chan struct{})
	report, err := g.Walk(dag.WalkOptions{Parallelism: 8}, func(id uint64) error {
		mu.Lock()
		entered++
		first, last := entered <= 8, entered == 8
		mu.Unlock()
		if last {
			close(allIn)
		}
		if first {
			select {
			case <-allIn:
			case <-time.After(time.Minute):
				return errors.New("eight callbacks never ran at once")
			}
		}
		if id%2 == 0 {
			return fmt.Errorf("vertex %d %s", id, strings.Repeat("x", int(id)))
		}
		return nil
	})
	if err != nil || report.OK() {
		t.Fatalf("Walk = %v; want a report of the failures", err)
	}
	for id := uint64(1); id <= 64; id++ {
		r, _ := report.Result(id)
		want := ""
		if id%2 == 0 {
			want = fmt.Sprintf("vertex %d %s", id, strings.Repeat("x", int(id)))
		}
		if r.Message != want || (r.Status == dag.VertexFailed) != (id%2 == 0) {
			t.Errorf("vertex %d: %v %q, want message %q", id, r.Status, r.Message, want)
		}
	}
}

type nilPointerError struct{ what string }

func (e *nilPointerError) Error() string { return e.what }

func TestWalkPanicsAreRecovered(t *testing.T) {
	g, ids := build(t, "a->b", "a->c", "d", "e")
	report, err := g.Walk(dag.WalkOptions{}, func(id uint64) error {
		switch id {
		case ids["b"]:
			panic("kaboom")
		case ids["c"]:
			var m map[string]int
			m["x"] = 1 // a runtime error
		case ids["d"]:
			var e *nilPointerError
			return e // its Error method panics
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	b, _ := report.Result(ids["b"])
	var p *dag.PanicError
	if b.Status != dag.VertexFailed || b.Message != "panic: kaboom" || !errors.As(b.Err, &p) {
		t.Fatalf("b = %+v", b)
	}
	if p.Vertex != ids["b"] || p.Value != "kaboom" || !strings.Contains(string(p.Stack), "walk_test.go") {
		t.Errorf("PanicError = %v %v, stack:\n%s", p.Vertex, p.Value, p.Stack)
	}
	c, _ := report.Result(ids["c"])
	var rerr runtime.Error
	if c.Status != dag.VertexFailed || !errors.As(c.Err, &rerr) || !strings.HasPrefix(c.Message, "panic: assignment to entry in nil map") {
		t.Errorf("c = %+v", c)
	}
	if d, _ := report.Result(ids["d"]); d.Status != dag.VertexFailed || !strings.HasPrefix(d.Message, "panic: ") {
		t.Errorf("d = %+v", d)
	}
	if a, _ := report.Result(ids["a"]); a.Status != dag.VertexUpstreamFailed {
		t.Errorf("a = %v, want upstream-failed", a.Status)
	}
	if e, _ := report.Result(ids["e"]); e.Status != dag.VertexOK {
		t.Errorf("e = %v, want ok", e.Status)
	}
}

func TestWalkFailFast(t *testing.T) {
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	g, _ := build(t, names...)
	var calls int32
	report, err := g.Walk(dag.WalkOptions{Parallelism: 1, Threads: 1, FailFast: true}, func(uint64) error {
		atomic.AddInt32(&calls, 1)
		return errors.New("no")
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || report.Count(dag.VertexFailed) != 1 || report.Count(dag.VertexNotRun) != 9 {
		t.Errorf("fail fast: %d calls, %d failed, %d not run; want 1, 1, 9", calls, report.Count(dag.VertexFailed), report.Count(dag.VertexNotRun))
	}
}

func TestWalkAlwaysRun(t *testing.T) {
	g, ids := build(t, "cleanup->work", "report->cleanup")
	report, err := g.Walk(dag.WalkOptions{AlwaysRun: []uint64{ids["cleanup"]}}, func(id uint64) error {
		if id == ids["work"] {
			return errors.New("work failed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := report.Result(ids["cleanup"]); r.Status != dag.VertexOK || !r.Ran {
		t.Errorf("always-run cleanup = %+v", r)
	}
	// cleanup's own success decides its dependents.
	if r, _ := report.Result(ids["report"]); r.Status != dag.VertexOK {
		t.Errorf("report = %v, want ok", r.Status)
	}

	var calls int32
	_, err = g.Walk(dag.WalkOptions{AlwaysRun: []uint64{4242}}, func(uint64) error {
		atomic.AddInt32(&calls, 1)
		return nil
	})
	wantErr(t, "Walk with an unknown always-run id", err, dag.ErrUnknownVertex, "")
	if calls != 0 {
		t.Errorf("%d callbacks ran for a refused walk", calls)
	}
}

func TestWalkRefusals(t *testing.T) {
	g, _ := build(t, "a->b", "b->a")
	called := false
	_, err := g.Walk(dag.WalkOptions{}, func(uint64) error { called = true; return nil })
	wantErr(t, "Walk of a cyclic graph", err, dag.ErrCycle, "Cycle:\n  a\n  b")
	if called {
		t.Error("a callback ran on a cyclic graph")
	}
	ok, _ := build(t, "a")
	_, err = ok.Walk(dag.WalkOptions{Parallelism: -1}, func(uint64) error { return nil })
	wantErr(t, "Walk(Parallelism -1)", err, dag.ErrInvalidArgument, "")
	_, err = ok.Walk(dag.WalkOptions{Threads: 5000}, func(uint64) error { return nil })
	wantErr(t, "Walk(Threads 5000)", err, dag.ErrInvalidArgument, "")
	_, err = ok.Walk(dag.WalkOptions{}, nil)
	wantErr(t, "Walk(nil)", err, dag.ErrInvalidArgument, "")

	empty, _ := build(t)
	report, err := empty.Walk(dag.WalkOptions{}, func(uint64) error { return nil })
	if err != nil || !report.OK() || len(report.Vertices) != 0 {
		t.Errorf("Walk of an empty graph = %+v, %v", report, err)
	}
}

func TestWalkGraphIsReadableButBusy(t *testing.T) {
	g, ids := build(t, "a->b")
	var mu sync.Mutex
	var problems []string
	note := func(format string, args ...interface{}) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	report, err := g.Walk(dag.WalkOptions{}, func(id uint64) error {
		if _, err := g.Name(id); err != nil {
			note("Name from a callback: %v", err)
		}
		if _, err := g.Ancestors(id); err != nil {
			note("Ancestors from a callback: %v", err)
		}
		if _, err := g.AddVertex(fmt.Sprint("new", id)); !errors.Is(err, dag.ErrBusy) {
			note("AddVertex from a callback: %v, want ErrBusy", err)
		}
		// From another goroutine too: libdag, not the binding's lock, says no.
		done := make(chan error)
		go func() { done <- g.Connect(ids["b"], ids["a"]) }()
		if err := <-done; !errors.Is(err, dag.ErrBusy) {
			note("Connect from another goroutine during the walk: %v, want ErrBusy", err)
		}
		go func() {
			_, err := g.Walk(dag.WalkOptions{}, func(uint64) error { return nil })
			done <- err
		}()
		if err := <-done; !errors.Is(err, dag.ErrBusy) {
			note("second Walk during the walk: %v, want ErrBusy", err)
		}
		return nil
	})
	if err != nil || !report.OK() {
		t.Fatalf("Walk = %v, %v", report, err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if _, err := g.AddVertex("after"); err != nil {
		t.Errorf("AddVertex after the walk: %v", err)
	}
}

func TestCloseDuringWalk(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	var afterClose error
	report, err := g.Walk(dag.WalkOptions{}, func(id uint64) error {
		if id == ids["b"] {
			g.Close()
		}
		if id == ids["a"] {
			_, afterClose = g.Name(id)
		}
		return nil
	})
	if err != nil || !report.OK() {
		t.Fatalf("a walk of a graph closed mid-way: %v %v", report, err)
	}
	if !errors.Is(afterClose, dag.ErrClosed) {
		t.Errorf("Name after Close in a callback: %v, want ErrClosed", afterClose)
	}
	if _, err := g.Walk(dag.WalkOptions{}, func(uint64) error { return nil }); !errors.Is(err, dag.ErrClosed) {
		t.Errorf("Walk after Close: %v", err)
	}
}

func TestWalkCancelledByContext(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	landed := make(chan struct{})
	var once sync.Once
	defer dag.OnContextCancel(func() { once.Do(func() { close(landed) }) })()
	report, err := g.Walk(dag.WalkOptions{Context: ctx}, func(id uint64) error {
		if id == ids["c"] {
			cancel()
			// Cancellation reaches libdag from the binding's own goroutine:
			// c runs on until it has (a sleep lost that race when busy).
			select {
			case <-landed:
			case <-time.After(30 * time.Second):
				t.Error("the context's cancel did not reach the walk")
			}
		}
		return nil
	})
	wantErr(t, "cancelled Walk", err, dag.ErrCancelled, "")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not match context.Canceled", err)
	}
	if report == nil || !report.Cancelled || report.OK() {
		t.Fatalf("report = %+v", report)
	}
	if r, _ := report.Result(ids["c"]); r.Status != dag.VertexOK || !r.Ran {
		t.Errorf("c, running when cancelled, = %+v; want ok", r)
	}
	for _, name := range []string{"a", "b"} {
		if r, _ := report.Result(ids[name]); r.Status != dag.VertexCancelled || r.Ran {
			t.Errorf("%s = %+v, want cancelled and not run", name, r)
		}
	}
	wantErr(t, "report.Err", report.Err(), dag.ErrCancelled, "")

	// A context that is already done runs nothing.
	called := false
	report, err = g.Walk(dag.WalkOptions{Context: ctx}, func(uint64) error { called = true; return nil })
	wantErr(t, "Walk with a done context", err, dag.ErrCancelled, "context canceled")
	if report != nil || called || !errors.Is(err, context.Canceled) {
		t.Errorf("report %v, called %v", report, called)
	}

	// A deadline that passes after the walk ended changes nothing.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	report, err = g.Walk(dag.WalkOptions{Context: ctx2}, func(uint64) error { return nil })
	if err != nil || !report.OK() || report.Cancelled {
		t.Errorf("Walk with a live context = %+v, %v", report, err)
	}
}

// Graph.Walk calls no fn once its context is done: quick vertices outran the
// goroutine that cancels the walk, hundreds started after the cancel, and a
// walk that ended first reported a clean success (17 runs of 20).
func TestGraphWalkStartsNothingOnceItsContextIsDone(t *testing.T) {
	g, _ := unnamed(t, 1000, func(int) int { return 0 })
	for run := 0; run < 20; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		var calls, afterCancel int64
		report, err := g.Walk(dag.WalkOptions{Context: ctx, Parallelism: 1}, func(uint64) error {
			if ctx.Err() != nil {
				atomic.AddInt64(&afterCancel, 1)
			}
			if atomic.AddInt64(&calls, 1) == 11 {
				cancel()
			}
			return nil
		})
		cancel()
		if !errors.Is(err, dag.ErrCancelled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: Walk error %v, want ErrCancelled and context.Canceled", run, err)
		}
		if afterCancel != 0 {
			t.Errorf("run %d: %d vertices started after the context was done", run, afterCancel)
		}
		if ok := report.Count(dag.VertexOK); ok != 11 {
			t.Errorf("run %d: %d vertices ok, want the 11 up to the cancel", run, ok)
		}
		if cancelled := report.Count(dag.VertexCancelled); cancelled != 989 {
			t.Errorf("run %d: %d vertices cancelled, want 989", run, cancelled)
		}
		for _, v := range report.Vertices {
			if v.Status == dag.VertexCancelled && (v.Ran || v.Attempts != 0) {
				t.Errorf("run %d: cancelled vertex %d = %+v, want not run", run, v.ID, v)
				break
			}
		}
	}
}

func TestNestedWalkOfAnotherGraph(t *testing.T) {
	outer, _ := build(t, "a->b")
	inner, _ := build(t, "x->y", "y->z")
	var innerRuns int32
	report, err := outer.Walk(dag.WalkOptions{}, func(uint64) error {
		r, err := inner.Walk(dag.WalkOptions{Parallelism: 2}, func(uint64) error {
			atomic.AddInt32(&innerRuns, 1)
			return nil
		})
		if err != nil {
			return err
		}
		return r.Err()
	})
	if err != nil || !report.OK() {
		t.Fatalf("outer walk: %v %v", report.Err(), err)
	}
	if innerRuns != 6 {
		t.Errorf("inner callbacks ran %d times, want 6", innerRuns)
	}
}

func TestCallbackWalkObserverAndTimestamps(t *testing.T) {
	g, _ := layered(t, 40)
	var events int64
	report, err := g.Walk(dag.WalkOptions{Parallelism: 4, NoTimestamps: true, Observer: func(e dag.WalkEvent) {
		if e.Kind == dag.EventFinished && e.Status == dag.VertexOK && !e.Sub {
			atomic.AddInt64(&events, 1)
		}
	}}, func(uint64) error { return nil })
	if err != nil || !report.OK() {
		t.Fatal(err, report)
	}
	if events != 40 {
		t.Errorf("%d finished events, want 40", events)
	}
	for _, v := range report.Vertices {
		if v.Start != 0 || v.End != 0 {
			t.Errorf("NoTimestamps: vertex %d has %v..%v", v.ID, v.Start, v.End)
		}
	}
}

// A WalkOptions.Context done while Graph.Walk waits for the graph (here
// behind a search on another goroutine) ends the wait at once: Walk returns
// ErrCancelled, as for a context done on entry, and runs nothing. Walk
// checked the context on entry only: it stayed blocked until the search let
// go, then ran the walk.
func TestGraphWalkContextDoneWhileWaitingForTheGraph(t *testing.T) {
	g, _ := layered(t, 50)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := holdInSearch(g)
	var calls int64
	type result struct {
		report *dag.WalkReport
		err    error
	}
	walked := make(chan result, 1)
	go func() {
		report, err := g.Walk(dag.WalkOptions{Context: ctx, Parallelism: 1}, func(uint64) error {
			atomic.AddInt64(&calls, 1)
			return nil
		})
		walked <- result{report, err}
	}()
	waitUntil(t, "Walk to wait for the graph", func() bool { return dag.WritersWaiting(g) == 1 })
	cancel()
	var r result
	stillWaiting := false
	select {
	case r = <-walked:
	case <-time.After(10 * time.Second):
		stillWaiting = true
	}
	searchErr := release()
	if stillWaiting {
		t.Error("Graph.Walk still waited for the graph 10s after its context was cancelled")
		r = <-walked
	}
	if searchErr != nil {
		t.Fatal(searchErr)
	}
	if r.report != nil || !errors.Is(r.err, dag.ErrCancelled) || !errors.Is(r.err, context.Canceled) {
		t.Errorf("Walk: a report: %t, error %v; want none, and ErrCancelled wrapping context.Canceled", r.report != nil, r.err)
	}
	if n := atomic.LoadInt64(&calls); n != 0 {
		t.Errorf("%d callbacks ran, though the context was done before the walk could start", n)
	}
}
