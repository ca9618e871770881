package dag_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dag "libdag/bindings/go"
)

func TestGoroutineWalkOrderAndParallelism(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			const n, parallelism = 300, 5
			g, edges := layered(t, n)
			var mu sync.Mutex
			finished := make(map[uint64]bool)
			var running, most, calls int64
			var order []string
			report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
				now := atomic.AddInt64(&running, 1)
				defer atomic.AddInt64(&running, -1)
				for {
					m := atomic.LoadInt64(&most)
					if now <= m || atomic.CompareAndSwapInt64(&most, m, now) {
						break
					}
				}
				atomic.AddInt64(&calls, 1)
				name, err := v.Name()
				if err != nil || v.Sub() {
					return fmt.Errorf("Name: %q %v, Sub %v", name, err, v.Sub())
				}
				if v.ID%5 == 0 {
					runtime.Gosched() // let other vertices overlap this one
				}
				mu.Lock()
				defer mu.Unlock()
				for _, e := range edges {
					before := e.To
					if reverse {
						before = e.From
					}
					if (e.From == v.ID && !reverse || e.To == v.ID && reverse) && !finished[before] {
						return fmt.Errorf("%s started before %d finished", name, before)
					}
				}
				finished[v.ID] = true
				order = append(order, name)
				return nil
			}, dag.WalkOptions{Parallelism: parallelism, Reverse: reverse})
			if err != nil || !report.OK() {
				t.Fatalf("Walk: %v, %v", err, report.Err())
			}
			if calls != n || len(report.Vertices) != n || report.Count(dag.VertexOK) != n {
				t.Errorf("calls %d, report %d vertices, %d ok; want %d", calls, len(report.Vertices), report.Count(dag.VertexOK), n)
			}
			if most > parallelism {
				t.Errorf("%d callbacks at once, want at most %d", most, parallelism)
			}
		})
	}
}

// codeError is a callback's own error type, for errors.As.
type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprintf("exit code %d", e.code) }

func TestGoroutineWalkDeploymentPlanWithFailure(t *testing.T) {
	// app depends on db and cache; db on network; monitoring stands alone.
	g, ids := build(t, "app->db", "app->cache", "db->network", "monitoring")
	errQuota := errors.New("quota exceeded")
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		if v.ID == ids["db"] {
			return fmt.Errorf("create db: %w", &codeError{code: 3})
		}
		if v.ID == ids["cache"] {
			return errQuota
		}
		return nil
	}, dag.WalkOptions{Parallelism: 1})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	want := map[string]dag.VertexStatus{"app": dag.VertexUpstreamFailed, "db": dag.VertexFailed,
		"cache": dag.VertexFailed, "network": dag.VertexOK, "monitoring": dag.VertexOK}
	for name, status := range want {
		if r, _ := report.Result(ids[name]); r.Status != status {
			t.Errorf("%s: %v, want %v", name, r.Status, status)
		}
	}
	werr := report.Err()
	if !errors.Is(werr, dag.ErrWalkFailed) {
		t.Fatalf("report.Err() = %v, want ErrWalkFailed", werr)
	}
	// Which of db and cache fails first is the scheduler's choice; the
	// error wraps that one's own error either way.
	var ce *codeError
	switch report.FirstError {
	case ids["db"]:
		if !errors.As(werr, &ce) || ce.code != 3 || werr.Error() != "vertex db failed: create db: exit code 3" {
			t.Errorf("report.Err() = %q, As codeError %v", werr, ce)
		}
	case ids["cache"]:
		if !errors.Is(werr, errQuota) {
			t.Errorf("report.Err() = %q does not wrap errQuota", werr)
		}
	default:
		t.Errorf("FirstError = %d", report.FirstError)
	}
	if r, _ := report.Result(ids["cache"]); r.Err != errQuota || r.Message != "quota exceeded" || !r.Ran {
		t.Errorf("cache result %+v", r)
	}
}

func TestGoroutineWalkCancelReportsCancelled(t *testing.T) {
	// slow and patient run when the context is cancelled; after depends
	// on slow and never starts.
	g, ids := build(t, "after->slow", "patient")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started sync.WaitGroup
	started.Add(2)
	go func() {
		started.Wait()
		cancel()
	}()
	report, err := dag.Walk(ctx, g, func(ctx context.Context, v dag.Vertex) error {
		switch v.ID {
		case ids["slow"]:
			started.Done()
			<-ctx.Done()
			return fmt.Errorf("interrupted: %w", ctx.Err())
		case ids["patient"]:
			started.Done()
			<-ctx.Done()
			return nil // finished its work regardless
		}
		return fmt.Errorf("%d should not run", v.ID)
	}, dag.WalkOptions{Parallelism: 2})
	if !errors.Is(err, dag.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk error %v, want ErrCancelled and context.Canceled", err)
	}
	if report == nil || !report.Cancelled {
		t.Fatalf("report %+v, want a cancelled one", report)
	}
	slow, _ := report.Result(ids["slow"])
	if slow.Status != dag.VertexCancelled || !slow.Ran || !errors.Is(slow.Err, context.Canceled) ||
		slow.Message != "cancelled while running: interrupted: context canceled" {
		t.Errorf("slow: %+v", slow)
	}
	if r, _ := report.Result(ids["after"]); r.Status != dag.VertexCancelled || r.Ran {
		t.Errorf("after: %+v", r)
	}
	if r, _ := report.Result(ids["patient"]); r.Status != dag.VertexOK {
		t.Errorf("patient: %+v", r)
	}
	if report.Count(dag.VertexFailed) != 0 || report.Count(dag.VertexCancelled) != 2 || report.FirstError != dag.NoVertex {
		t.Errorf("counts: failed %d cancelled %d, first error %d", report.Count(dag.VertexFailed),
			report.Count(dag.VertexCancelled), report.FirstError)
	}
	if rerr := report.Err(); !errors.Is(rerr, dag.ErrCancelled) || !errors.Is(rerr, context.Canceled) {
		t.Errorf("report.Err() = %v", rerr)
	}
}

func TestGoroutineWalkStartsNothingOnceItsContextIsDone(t *testing.T) {
	// Quick vertices returning nil, one after another on one goroutine:
	// they outran the watcher that cancels the walk, and a walk that ended
	// first reported a clean success.
	g, ids := unnamed(t, 1000, func(i int) int { return i - 1 })
	for run := 0; run < 20; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		var afterCancel int64
		report, err := dag.Walk(ctx, g, func(c context.Context, v dag.Vertex) error {
			if c.Err() != nil {
				atomic.AddInt64(&afterCancel, 1)
			}
			if v.ID == ids[9] {
				cancel()
			}
			return nil
		}, dag.WalkOptions{})
		cancel()
		if !errors.Is(err, dag.ErrCancelled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: Walk error %v, want ErrCancelled and context.Canceled", run, err)
		}
		if afterCancel != 0 {
			t.Errorf("run %d: %d vertices started after the context was done", run, afterCancel)
		}
		if ok := report.Count(dag.VertexOK); ok != 10 {
			t.Errorf("run %d: %d vertices ok, want the 10 up to the cancel", run, ok)
		}
	}
}

func TestGoroutineWalkAlreadyCancelledRunsNothing(t *testing.T) {
	g, _ := build(t, "a->b", "c")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls int64
	report, err := dag.Walk(ctx, g, func(context.Context, dag.Vertex) error {
		atomic.AddInt64(&calls, 1)
		return nil
	}, dag.WalkOptions{})
	if !errors.Is(err, context.Canceled) || calls != 0 || report == nil || report.Count(dag.VertexCancelled) != 3 {
		t.Fatalf("err %v, %d calls, report %+v", err, calls, report)
	}
}

// A vertex handed out just before libdag heard of the cancellation: fn is
// not called with a done context, and the vertex is cancelled.
func TestGoroutineWalkStartsNothingOnceTheContextIsDone(t *testing.T) {
	g, _ := build(t, "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer dag.OnVertexHandedOut(func(dag.Vertex) { cancel() })()
	var calls int64
	report, err := dag.Walk(ctx, g, func(context.Context, dag.Vertex) error {
		atomic.AddInt64(&calls, 1)
		return nil
	}, dag.WalkOptions{})
	if !errors.Is(err, context.Canceled) || calls != 0 || report == nil || report.Count(dag.VertexCancelled) != 2 {
		t.Fatalf("err %v, %d calls, report %+v", err, calls, report)
	}
	for _, r := range report.Vertices {
		if r.Ran || r.Err != nil || r.Attempts != 0 || r.Message != "not started: context canceled" {
			t.Errorf("vertex %d: %+v", r.ID, r)
		}
	}
}

func TestGoroutineWalkTimestamps(t *testing.T) {
	g, ids := build(t, "a->b", "b->c")
	noop := func(context.Context, dag.Vertex) error { return nil }
	report, err := dag.Walk(context.Background(), g, noop, dag.WalkOptions{})
	if err != nil || !report.OK() {
		t.Fatal(err, report)
	}
	a, _ := report.Result(ids["a"])
	b, _ := report.Result(ids["b"])
	if b.End <= 0 || b.Start > b.End || a.Start < b.End {
		t.Errorf("timestamps: b %v..%v, a %v..%v", b.Start, b.End, a.Start, a.End)
	}
	report, err = dag.Walk(context.Background(), g, noop, dag.WalkOptions{NoTimestamps: true})
	if err != nil || !report.OK() {
		t.Fatal(err, report)
	}
	for _, v := range report.Vertices {
		if v.Start != 0 || v.End != 0 || !v.Ran {
			t.Errorf("NoTimestamps: %+v", v)
		}
	}
}

func TestGoroutineWalkPanicAndGoexit(t *testing.T) {
	g, ids := build(t, "a->b", "c->d", "e")
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		switch v.ID {
		case ids["b"]:
			panic("boom")
		case ids["d"]:
			runtime.Goexit()
		}
		return nil
	}, dag.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var p *dag.PanicError
	if r, _ := report.Result(ids["b"]); r.Status != dag.VertexFailed || !errors.As(r.Err, &p) || p.Value != "boom" {
		t.Errorf("b: %+v", r)
	}
	if r, _ := report.Result(ids["d"]); r.Status != dag.VertexFailed || r.Message != "the callback called runtime.Goexit" {
		t.Errorf("d: %+v", r)
	}
	for name, want := range map[string]dag.VertexStatus{"a": dag.VertexUpstreamFailed, "c": dag.VertexUpstreamFailed, "e": dag.VertexOK} {
		if r, _ := report.Result(ids[name]); r.Status != want {
			t.Errorf("%s: %v, want %v", name, r.Status, want)
		}
	}
}

func TestGoroutineWalkExpand(t *testing.T) {
	g, ids := build(t, "app->modules", "broken")
	sub, _ := build(t, "m.web->m.net")
	bad, _ := build(t, "x")
	var mu sync.Mutex
	var seen []string
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		name, err := v.Name()
		if err != nil {
			return err
		}
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s sub=%v", name, v.Sub()))
		mu.Unlock()
		switch {
		case v.ID == ids["modules"] && !v.Sub():
			if err := v.Expand(sub); err != nil {
				return err
			}
			if err := v.Expand(sub); !errors.Is(err, dag.ErrState) {
				return fmt.Errorf("expanding twice: %v", err)
			}
			return errors.New("ignored: the vertex follows its sub-walk")
		case v.ID == ids["broken"] && !v.Sub():
			if err := v.Expand(bad); err != nil {
				return err
			}
			return errors.New("ignored too")
		case name == "x":
			return errors.New("x failed")
		case name == "m.web":
			if done, total, err := v.Progress(); err != nil || total != 2 || done != 1 {
				return fmt.Errorf("Progress = %d/%d, %v", done, total, err)
			}
		}
		return nil
	}, dag.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Its fn's error after Expand decided nothing, and is not its Err (it was).
	if r, _ := report.Result(ids["modules"]); r.Status != dag.VertexOK || r.Err != nil {
		t.Errorf("modules: %+v", r)
	}
	if r, _ := report.Result(ids["app"]); r.Status != dag.VertexOK {
		t.Errorf("app: %+v", r)
	}
	// Failed by its sub-walk's x, not by what its fn returned after Expand.
	if r, _ := report.Result(ids["broken"]); r.Status != dag.VertexFailed || r.Message == "" || r.Err != nil {
		t.Errorf("broken: %+v", r)
	}
	sort.Strings(seen)
	want := []string{"app sub=false", "broken sub=false", "m.net sub=true", "m.web sub=true", "modules sub=false", "x sub=true"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("ran %q, want %q", seen, want)
	}
}

func TestGoroutineWalkApplyUpdate(t *testing.T) {
	g, ids := build(t, "plan", "apply->plan")
	var mu sync.Mutex
	var ran []string
	var added []uint64
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		name, _ := v.Name()
		mu.Lock()
		ran = append(ran, name)
		mu.Unlock()
		if v.ID != ids["plan"] {
			return nil
		}
		// plan discovers a step that apply must wait for.
		u, err := dag.NewWalkUpdate()
		if err != nil {
			return err
		}
		defer u.Close()
		step, err := u.AddVertex("migrate", 7, false)
		if err != nil {
			return err
		}
		if err := u.Connect(ids["apply"], step); err != nil {
			return err
		}
		if err := u.Connect(step, ids["plan"]); err != nil {
			return err
		}
		added, err = v.Apply(u)
		return err
	}, dag.WalkOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("Walk: %v %v", err, report.Err())
	}
	if fmt.Sprint(ran) != "[plan migrate apply]" || len(added) != 1 || len(report.Vertices) != 3 {
		t.Errorf("ran %q, added %v, %d in report", ran, added, len(report.Vertices))
	}
	if data, err := g.UserData(added[0]); err != nil || data != 7 {
		t.Errorf("UserData(migrate) = %d, %v", data, err)
	}
	// A batch that would make a cycle is refused whole.
	u, _ := dag.NewWalkUpdate()
	defer u.Close()
	_ = u.Connect(ids["plan"], ids["apply"])
	_, err = dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		if v.ID == ids["plan"] {
			_, err := v.Apply(u)
			wantErr(t, "Apply(cycle)", err, dag.ErrCycle, "would create a cycle")
		}
		return nil
	}, dag.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAWalkUpdateClosesAsAnIOCloser(t *testing.T) {
	u, err := dag.NewWalkUpdate()
	if err != nil {
		t.Fatal(err)
	}
	var c io.Closer = u
	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
	_, err = u.AddVertex("late", 0, false)
	wantErr(t, "AddVertex after Close", err, dag.ErrState, "the update is closed")
}

func TestGoroutineWalkCompletedFromAnotherGoroutine(t *testing.T) {
	// Work handed to an outside engine: each callback waits for the
	// engine's answer, as a libdag callback returning pending would.
	g, ids := build(t, "b->a", "c->a")
	type job struct {
		id    uint64
		reply chan error
	}
	jobs := make(chan job)
	go func() {
		for j := range jobs {
			if j.id == ids["c"] {
				j.reply <- errors.New("engine refused c")
			} else {
				j.reply <- nil
			}
		}
	}()
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		reply := make(chan error, 1)
		jobs <- job{v.ID, reply}
		return <-reply
	}, dag.WalkOptions{Parallelism: 3})
	close(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := report.Result(ids["c"]); r.Status != dag.VertexFailed || r.Message != "engine refused c" {
		t.Errorf("c: %+v", r)
	}
	if report.Count(dag.VertexOK) != 2 {
		t.Errorf("%d ok, want 2", report.Count(dag.VertexOK))
	}
}

func TestGoroutineWalkObserver(t *testing.T) {
	g, _ := layered(t, 50)
	var mu sync.Mutex
	kinds := make(map[dag.EventKind]int)
	sequences := make(map[uint64]bool)
	var last dag.WalkEvent
	report, err := dag.Walk(context.Background(), g, func(context.Context, dag.Vertex) error { return nil },
		dag.WalkOptions{Parallelism: 4, Observer: func(e dag.WalkEvent) {
			mu.Lock()
			defer mu.Unlock()
			kinds[e.Kind]++
			sequences[e.Sequence] = true
			if e.Sequence > last.Sequence {
				last = e
			}
		}})
	if err != nil || !report.OK() {
		t.Fatal(err, report)
	}
	if kinds[dag.EventStarted] != 50 || kinds[dag.EventFinished] != 50 || len(sequences) != 100 {
		t.Errorf("events %v, %d sequence numbers", kinds, len(sequences))
	}
	if last.Done != 50 || last.Total != 50 || last.Sub || last.Kind.String() != "finished" {
		t.Errorf("last event %+v", last)
	}
	defer func() {
		if p := recover(); p != "observer broke" {
			t.Errorf("recovered %v, want the observer's panic", p)
		}
	}()
	_, _ = dag.Walk(context.Background(), g, func(context.Context, dag.Vertex) error { return nil },
		dag.WalkOptions{Observer: func(dag.WalkEvent) { panic("observer broke") }})
	t.Error("Walk returned after its observer panicked")
}

func TestGoroutineWalkRefusals(t *testing.T) {
	g, _ := build(t, "a->b")
	noop := func(context.Context, dag.Vertex) error { return nil }
	_, err := dag.Walk(context.Background(), g, nil, dag.WalkOptions{})
	wantErr(t, "Walk(nil fn)", err, dag.ErrInvalidArgument, "fn is nil")
	_, err = dag.Walk(context.Background(), g, noop, dag.WalkOptions{Context: context.Background()})
	wantErr(t, "Walk(opts.Context)", err, dag.ErrInvalidArgument, "first argument")
	_, err = dag.Walk(context.Background(), g, noop, dag.WalkOptions{Parallelism: -1})
	wantErr(t, "Walk(Parallelism -1)", err, dag.ErrInvalidArgument, "")
	_, err = dag.Walk(context.Background(), g, noop, dag.WalkOptions{AlwaysRun: []uint64{99}})
	wantErr(t, "Walk(AlwaysRun 99)", err, dag.ErrUnknownVertex, "")
	cyclic, ids := build(t, "x->y", "y->x")
	_, err = dag.Walk(context.Background(), cyclic, noop, dag.WalkOptions{})
	wantErr(t, "Walk(cycle)", err, dag.ErrCycle, "Cycle")
	var kept dag.Vertex
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		kept = v
		_, err := g.AddVertex("during")
		if !errors.Is(err, dag.ErrBusy) {
			return fmt.Errorf("AddVertex during the walk: %v", err)
		}
		return nil
	}, dag.WalkOptions{})
	if err != nil || !report.OK() {
		t.Fatal(err, report.Err())
	}
	_, err = kept.Name()
	wantErr(t, "Vertex.Name after the walk", err, dag.ErrState, "Vertex.Name: the walk has ended")
	// The zero Vertex, of no walk: a nil pointer dereference before.
	var zero dag.Vertex
	_, err = zero.Name()
	wantErr(t, "Vertex{}.Name", err, dag.ErrState, "Vertex.Name: the zero Vertex belongs to no walk")
	_, _, err = zero.Progress()
	wantErr(t, "Vertex{}.Progress", err, dag.ErrState, "")
	wantErr(t, "Vertex{}.Expand", zero.Expand(g), dag.ErrState, "")
	if zero.Sub() {
		t.Error("the zero Vertex is of a sub-graph")
	}
	// The nil report Walk returns with an error, and a nil builder: nil
	// pointer dereferences before.
	var none *dag.WalkReport
	if none.OK() || none.Count(dag.VertexOK) != 0 {
		t.Error("a nil report counts vertices")
	}
	if _, found := none.Result(0); found {
		t.Error("a nil report has a result")
	}
	wantErr(t, "(*WalkReport)(nil).Err", none.Err(), dag.ErrState, "dag: no walk report: the walk did not run")
	var noBuilder *dag.Builder
	wantErr(t, "(*Builder)(nil).Provide", noBuilder.Provide(0, "x"), dag.ErrClosed, "builder")
	_, err = noBuilder.Build(dag.BuildOptions{})
	wantErr(t, "(*Builder)(nil).Build", err, dag.ErrClosed, "builder")
	if err := noBuilder.Close(); err != nil {
		t.Errorf("(*Builder)(nil).Close: %v", err)
	}
	_ = ids
	var closed *dag.Graph
	_, err = dag.Walk(context.Background(), closed, noop, dag.WalkOptions{})
	if err != dag.ErrClosed {
		t.Errorf("Walk(nil graph) = %v", err)
	}
}

// A vertex made ready other than by a goroutine's own completion (an
// expanded vertex's sub-walk, a retry after its back-off, the dependent of
// a vertex whose fn called runtime.Goexit) runs while other vertices still
// run: here "waiter" runs until that vertex has run, which it could not if
// Walk handed such vertices out only once every fn had returned.
func TestGoroutineWalkHandsOutWhatBecameReadyWhileOthersRun(t *testing.T) {
	sub, _ := build(t, "s")
	cases := []struct {
		name  string
		specs []string
		opts  dag.WalkOptions
		fn    func(v dag.Vertex, name string, attempt int) error
		// whether v is the vertex the waiter waits for
		awaited func(v dag.Vertex, name string, attempt int) bool
	}{
		{"expand", []string{"a", "waiter"}, dag.WalkOptions{Parallelism: 4},
			func(v dag.Vertex, name string, attempt int) error {
				if name == "a" && !v.Sub() {
					return v.Expand(sub)
				}
				return nil
			},
			func(v dag.Vertex, name string, attempt int) bool { return v.Sub() }},
		{"retry", []string{"a", "waiter"}, dag.WalkOptions{Parallelism: 4, Retries: 1, RetryDelay: 20 * time.Millisecond},
			func(v dag.Vertex, name string, attempt int) error {
				if name == "a" && attempt == 1 {
					return errors.New("try again")
				}
				return nil
			},
			func(v dag.Vertex, name string, attempt int) bool { return name == "a" && attempt == 2 }},
		{"goexit", []string{"c->a", "waiter"}, dag.WalkOptions{Parallelism: 4},
			func(v dag.Vertex, name string, attempt int) error {
				if name == "a" {
					runtime.Goexit()
				}
				return nil
			},
			func(v dag.Vertex, name string, attempt int) bool { return name == "c" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, ids := build(t, c.specs...)
			if c.name == "goexit" {
				c.opts.AlwaysRun = []uint64{ids["c"]}
			}
			ran := make(chan struct{})
			var once sync.Once
			var mu sync.Mutex
			attempts := map[string]int{}
			report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
				name, err := v.Name()
				if err != nil {
					return err
				}
				mu.Lock()
				attempts[name]++
				attempt := attempts[name]
				mu.Unlock()
				if name == "waiter" && !v.Sub() {
					select {
					case <-ran:
						return nil
					case <-time.After(10 * time.Second):
						return errors.New("the awaited vertex did not run while this one ran")
					}
				}
				if c.awaited(v, name, attempt) {
					once.Do(func() { close(ran) })
				}
				return c.fn(v, name, attempt)
			}, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			// On its first attempt: a timed-out wait is not hidden by a retry.
			if r, _ := report.Result(ids["waiter"]); r.Status != dag.VertexOK || r.Attempts != 1 {
				t.Errorf("waiter: %+v", r)
			}
		})
	}
}

// A vertex that an update removed before it started is not run, and no
// failure: the walk is ok (it was ErrWalkFailed with FirstError 0).
func TestWalkWithAVertexRemovedByAnUpdateIsOK(t *testing.T) {
	g, ids := build(t, "b->a", "c->b")
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		if v.ID != ids["a"] {
			return nil
		}
		u, err := dag.NewWalkUpdate()
		if err != nil {
			return err
		}
		defer u.Close()
		if err := u.RemoveVertex(ids["c"]); err != nil {
			return err
		}
		_, err = v.Apply(u)
		return err
	}, dag.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := report.Result(ids["c"]); r.Status != dag.VertexNotRun {
		t.Fatalf("c = %+v, want not run", r)
	}
	if !report.OK() || report.Err() != nil {
		t.Errorf("OK() = %v, Err() = %v; want ok", report.OK(), report.Err())
	}
}

// The context cancelled while the only vertex ran, which then finished ok:
// Walk says cancelled, and so does the report (its Err was nil).
func TestWalkCancelledWhileEveryVertexFinishedOKIsCancelled(t *testing.T) {
	g, _ := build(t, "a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	report, err := dag.Walk(ctx, g, func(context.Context, dag.Vertex) error { cancel(); return nil }, dag.WalkOptions{})
	if !errors.Is(err, dag.ErrCancelled) {
		t.Fatalf("Walk: %v, want ErrCancelled", err)
	}
	if report.OK() || !errors.Is(report.Err(), dag.ErrCancelled) {
		t.Errorf("OK() = %v, Err() = %v; want ErrCancelled as Walk said", report.OK(), report.Err())
	}
}

// Threads does not apply to Walk (no thread of libdag's runs a vertex): a
// value Graph.Walk refuses is ignored (it was refused).
func TestWalkIgnoresThreads(t *testing.T) {
	g, _ := build(t, "a")
	for _, threads := range []int{2000, -1} {
		report, err := dag.Walk(context.Background(), g, func(context.Context, dag.Vertex) error { return nil },
			dag.WalkOptions{Threads: threads})
		if err != nil || !report.OK() {
			t.Errorf("Threads %d: %v", threads, err)
		}
	}
}

// A cap under a millisecond is a cap of one (it was no cap: 0 to libdag).
func TestRetryMaxDelayUnderAMillisecondCaps(t *testing.T) {
	g, ids := build(t, "a")
	start := time.Now()
	report, err := dag.Walk(context.Background(), g, func(context.Context, dag.Vertex) error { return errors.New("x") },
		dag.WalkOptions{Retries: 2, RetryDelay: 5 * time.Second, RetryMaxDelay: 900 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("two retries capped at 900 µs took %v", took)
	}
	if r, _ := report.Result(ids["a"]); r.Attempts != 3 {
		t.Errorf("attempts %d, want 3", r.Attempts)
	}
}

// An interrupted vertex (its callback errs once the walk is cancelled) is
// cancelled in its observer event too, as the Observer doc says.
func TestObserverSeesAnInterruptedVertexCancelled(t *testing.T) {
	g, ids := build(t, "a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var finished []dag.WalkEvent
	report, _ := dag.Walk(ctx, g, func(ctx context.Context, v dag.Vertex) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}, dag.WalkOptions{Observer: func(e dag.WalkEvent) {
		if e.Kind == dag.EventFinished {
			mu.Lock()
			finished = append(finished, e)
			mu.Unlock()
		}
	}})
	if len(finished) != 1 || finished[0].Vertex != ids["a"] || finished[0].Status != dag.VertexCancelled {
		t.Errorf("finished events %+v, want a cancelled", finished)
	}
	if r, _ := report.Result(ids["a"]); r.Status != dag.VertexCancelled {
		t.Errorf("report: a = %+v", r)
	}
}

// A retry handed out just as the context is cancelled ends as a cancel
// during its back-off ends it (dag.h: failed, with its last message): its
// fn never ran it. It was reported cancelled, never run, with no attempt
// and no Err, though fn had run and failed.
func TestARetryHandedOutAsTheContextIsCancelledEndsFailedWithItsLastError(t *testing.T) {
	g, ids := build(t, "a", "after->a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flaky := errors.New("flaky")
	var calls, starts int64
	report, err := dag.Walk(ctx, g, func(context.Context, dag.Vertex) error {
		atomic.AddInt64(&calls, 1)
		return flaky
	}, dag.WalkOptions{Retries: 1, Observer: func(e dag.WalkEvent) {
		if e.Kind == dag.EventStarted && e.Vertex == ids["a"] && atomic.AddInt64(&starts, 1) == 2 {
			cancel() // as the retry is handed out, before its goroutine calls fn
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk: %v, want the cancellation", err)
	}
	if n := atomic.LoadInt64(&calls); n != 1 {
		t.Fatalf("fn ran %d times, want once (the retry is not to run)", n)
	}
	a, _ := report.Result(ids["a"])
	if a.Status != dag.VertexFailed || !a.Ran || a.Attempts != 1 || a.AttemptMessages != nil ||
		!errors.Is(a.Err, flaky) || a.Message != "flaky" {
		t.Errorf("a: %+v", a)
	}
	if after, _ := report.Result(ids["after"]); after.Ran || after.Status == dag.VertexOK {
		t.Errorf("after: %+v", after)
	}
}

// A Vertex kept from an attempt that has ended expands nothing: libdag
// knows the vertex by its id only, and took the expansion for the retry's,
// whose own error was then ignored and the vertex reported ok.
func TestAVertexKeptFromAnEarlierAttemptDoesNotExpandTheRetry(t *testing.T) {
	g, ids := build(t, "a")
	sub, _ := build(t, "s")
	var attempts int64
	var kept dag.Vertex
	var staleErr error
	report, err := dag.Walk(context.Background(), g, func(_ context.Context, v dag.Vertex) error {
		if v.Sub() {
			return nil
		}
		if atomic.AddInt64(&attempts, 1) == 1 {
			kept = v
			return errors.New("attempt 1 failed")
		}
		done := make(chan error)
		go func() { done <- kept.Expand(sub) }() // another goroutine, as a worker would
		staleErr = <-done
		return errors.New("attempt 2 failed")
	}, dag.WalkOptions{Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Expand of a Vertex from attempt 1", staleErr, dag.ErrState, "its fn has returned")
	a, _ := report.Result(ids["a"])
	if a.Status != dag.VertexFailed || a.Attempts != 2 || a.Message != "attempt 2 failed" {
		t.Errorf("a: %+v", a)
	}
}

// A vertex handed out as the context is cancelled is never given to fn:
// the report said so (Ran false), but the error counted it among those
// "cancelled after its callback ran", as libdag, which handed it out, saw it.
func TestAVertexHandedOutAsTheContextIsCancelledIsCountedAsNeverRun(t *testing.T) {
	g, ids := build(t, "a->b")
	a, b := ids["a"], ids["b"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var called []uint64
	report, err := dag.Walk(ctx, g, func(_ context.Context, v dag.Vertex) error {
		called = append(called, v.ID)
		return nil
	}, dag.WalkOptions{Observer: func(e dag.WalkEvent) {
		if e.Kind == dag.EventStarted && e.Vertex == a {
			cancel()
		}
	}})
	if len(called) != 1 || called[0] != b {
		t.Fatalf("fn ran for %v, want only b (%d)", called, b)
	}
	if !errors.Is(err, dag.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk: %v, want ErrCancelled and context.Canceled", err)
	}
	if want := "dag: Walk: the walk was cancelled; 1 vertex never ran"; err.Error() != want {
		t.Errorf("Walk's error %q, want %q", err.Error(), want)
	}
	if got, ok := report.Result(a); !ok || got.Ran || got.Status != dag.VertexCancelled {
		t.Errorf("a: %+v, want cancelled and not run", got)
	}
}

// Vertex.Name reads the walked graph under its lock. libdag keeps the graph
// from changing only until the walk has finished, which comes before Walk
// returns when an fn runs on after its Expand, or for a Vertex another
// goroutine kept: Name read the graph unlocked, and copied names that a
// rename on another goroutine was freeing.
func TestVertexNameReadsTheGraphUnderItsLock(t *testing.T) {
	g, ids := build(t, "root")
	root := ids["root"]
	sub, _ := build(t, "x")
	kept, finish := make(chan dag.Vertex), make(chan struct{})
	walked := make(chan error, 1)
	go func() {
		_, err := dag.Walk(context.Background(), g, func(_ context.Context, v dag.Vertex) error {
			if v.Sub() {
				return nil
			}
			if err := v.Expand(sub); err != nil {
				return err
			}
			kept <- v
			<-finish // the walk finishes with the sub-walk, while this fn runs on
			return nil
		}, dag.WalkOptions{})
		walked <- err
	}()
	v := <-kept
	defer func() {
		close(finish)
		if err := <-walked; err != nil {
			t.Error(err)
		}
	}()
	waitUntil(t, "the walk to finish in libdag", func() bool {
		err := g.SetName(root, "renamed")
		if err != nil && !errors.Is(err, dag.ErrBusy) {
			t.Fatal(err)
		}
		return err == nil
	})

	// A search holds g for reading; a rename waits for it, and Name, which
	// comes after the rename, for both.
	release, searching := make(chan struct{}), make(chan struct{})
	searched := make(chan error, 1)
	go func() {
		searched <- g.Traverse([]uint64{root}, 0, func(uint64, int) dag.Visit {
			close(searching)
			<-release
			return dag.VisitStop
		})
	}()
	<-searching
	renamed := make(chan error, 1)
	go func() { renamed <- g.SetName(root, "after") }()
	waitUntil(t, "the rename to wait for the search", func() bool { return dag.WritersWaiting(g) == 1 })
	named := make(chan string, 1)
	go func() {
		name, err := v.Name()
		if err != nil {
			name = "error: " + err.Error()
		}
		named <- name
	}()
	// Name waits behind the rename, or (reading unlocked, as it did) comes
	// back at once.
	early := ""
	waitUntil(t, "Vertex.Name to wait for the graph or return", func() bool {
		select {
		case early = <-named:
			return true
		default:
			return dag.ReadersWaiting(g) == 1
		}
	})
	close(release)
	if err := <-searched; err != nil {
		t.Fatal(err)
	}
	if err := <-renamed; err != nil {
		t.Fatal(err)
	}
	if early != "" {
		t.Fatalf("Vertex.Name returned %q while a rename waited for the graph: it read the graph unlocked", early)
	}
	if name := <-named; name != "after" {
		t.Errorf("Vertex.Name = %q, want the name the rename before it gave, %q", name, "after")
	}
}

// A ctx done while Walk waits for g (here behind a search on another
// goroutine) ends the wait at once: Walk returns ErrCancelled and runs
// nothing. It stayed blocked until the search let go.
func TestGoroutineWalkContextDoneWhileWaitingForTheGraph(t *testing.T) {
	g, _ := build(t, "a->b", "c")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := holdInSearch(g)
	defer func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	}()
	var calls int64
	type result struct {
		report *dag.WalkReport
		err    error
	}
	walked := make(chan result, 1)
	go func() {
		report, err := dag.Walk(ctx, g, func(context.Context, dag.Vertex) error {
			atomic.AddInt64(&calls, 1)
			return nil
		}, dag.WalkOptions{})
		walked <- result{report, err}
	}()
	waitUntil(t, "Walk to wait for the graph", func() bool { return dag.WritersWaiting(g) == 1 })
	cancel()
	var r result
	select {
	case r = <-walked:
	case <-time.After(10 * time.Second):
		t.Fatal("Walk still waits for the graph 10s after its context was cancelled")
	}
	if r.report != nil || !errors.Is(r.err, dag.ErrCancelled) || !errors.Is(r.err, context.Canceled) {
		t.Errorf("Walk: a report: %t, error %v; want none, and ErrCancelled wrapping context.Canceled", r.report != nil, r.err)
	}
	if n := atomic.LoadInt64(&calls); n != 0 {
		t.Errorf("fn ran %d times", n)
	}
	// Readers held back for the waiting walk go on while the search runs.
	if n := dag.WritersWaiting(g); n != 0 {
		t.Errorf("%d writers still counted as waiting", n)
	}
	if n := g.VertexCount(); n != 3 {
		t.Errorf("VertexCount = %d, want 3", n)
	}
}

// A retry of a sub-walk's vertex handed out just as the context is
// cancelled ends failed with its last error, as one of the walked graph's
// vertices does (libdag retries both). Go kept the last errors of the
// walked graph's vertices only: the sub-vertex was completed cancelled, and
// the expanded vertex ended cancelled instead of failed.
func TestASubWalkRetryHandedOutAsTheContextIsCancelledEndsFailedWithItsLastError(t *testing.T) {
	g, ids := build(t, "a")
	sub, _ := build(t, "s")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var subHandOuts, subCalls int64
	defer dag.OnVertexHandedOut(func(v dag.Vertex) {
		if v.Sub() && atomic.AddInt64(&subHandOuts, 1) == 2 {
			cancel() // as the retry is handed out, before its goroutine calls fn
		}
	})()
	report, err := dag.Walk(ctx, g, func(_ context.Context, v dag.Vertex) error {
		if !v.Sub() {
			return v.Expand(sub)
		}
		atomic.AddInt64(&subCalls, 1)
		return errors.New("flaky")
	}, dag.WalkOptions{Retries: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk: %v, want the cancellation", err)
	}
	if n := atomic.LoadInt64(&subCalls); n != 1 {
		t.Fatalf("fn ran %d times for s, want once (the retry is not to run)", n)
	}
	if a, _ := report.Result(ids["a"]); a.Status != dag.VertexFailed || a.Message != "sub-walk failed: vertex s failed: flaky" {
		t.Errorf("a: %+v, want failed with its sub-walk's error", a)
	}
}

// A retry that expands its vertex ends with its sub-walk: failed by a
// sub-vertex, it has no Err of its own. It kept the error the attempt
// before it had returned (a.Err, and report.Err() wrapped it), next to the
// sub-walk's message.
func TestARetryThatExpandedKeepsNoErrorOfTheAttemptBeforeIt(t *testing.T) {
	g, ids := build(t, "a")
	sub, _ := build(t, "x")
	first := errors.New("attempt 1 failed")
	var attempts int64
	report, err := dag.Walk(context.Background(), g, func(_ context.Context, v dag.Vertex) error {
		if v.Sub() {
			return errors.New("x failed")
		}
		if atomic.AddInt64(&attempts, 1) == 1 {
			return first
		}
		return v.Expand(sub)
	}, dag.WalkOptions{Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := report.Result(ids["a"])
	if a.Status != dag.VertexFailed || a.Err != nil || a.Attempts != 2 ||
		a.Message != "sub-walk failed: vertex x failed: x failed" {
		t.Errorf("a: %+v, want failed by its sub-walk, with no Err", a)
	}
	if errors.Is(report.Err(), first) {
		t.Errorf("report.Err() = %v wraps the first attempt's error", report.Err())
	}
}
