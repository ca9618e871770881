package dag_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dag "libdag/bindings/go"
)

// finishWithin fails the test if wg does not finish in time: a deadlock
// should fail this test, not hang the whole run until go test's timeout.
func finishWithin(t *testing.T, wg *sync.WaitGroup, limit time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("goroutines still running after %v: deadlock?", limit)
	}
}

func TestGoroutinesWalkingSeparateGraphs(t *testing.T) {
	const workers, walks, n = 8, 5, 120
	var wg sync.WaitGroup
	errs := make(chan error, workers*walks)
	for w := 0; w < workers; w++ {
		g, edges := layered(t, n)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < walks; k++ {
				var clock int64
				var starts, ends [n + 1]int64
				report, err := g.Walk(dag.WalkOptions{Parallelism: 4, Threads: 4, Reverse: k%2 == 1}, func(id uint64) error {
					atomic.StoreInt64(&starts[id], atomic.AddInt64(&clock, 1))
					atomic.StoreInt64(&ends[id], atomic.AddInt64(&clock, 1))
					if id == uint64(w+1) && k == walks-1 {
						return fmt.Errorf("worker %d fails vertex %d", w, id)
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
				if k < walks-1 && !report.OK() {
					errs <- fmt.Errorf("worker %d walk %d: %v", w, k, report.Err())
				}
				if k == walks-1 && report.FirstError != uint64(w+1) {
					errs <- fmt.Errorf("worker %d: first error %d %q, want its own vertex %d", w, report.FirstError, report.FirstErrorMessage, w+1)
				}
				for _, e := range edges {
					first, then := e.To, e.From
					if k%2 == 1 {
						first, then = then, first
					}
					if starts[then] != 0 && atomic.LoadInt64(&ends[first]) >= atomic.LoadInt64(&starts[then]) {
						errs <- fmt.Errorf("worker %d walk %d: %d started before %d ended", w, k, then, first)
						return
					}
				}
			}
		}(w)
	}
	finishWithin(t, &wg, time.Minute)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestConcurrentReadersAndWriters(t *testing.T) {
	g, err := dag.New()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	root, err := g.AddVertex("root")
	if err != nil {
		t.Fatal(err)
	}
	const writers, perWriter, readers = 4, 200, 4
	var wg sync.WaitGroup
	var stop int32
	errs := make(chan error, writers+readers)
	// A change that meets a running predicate search fails with ErrBusy by
	// design; writers here just try again.
	retry := func(op func() error) error {
		for {
			err := op()
			if !errors.Is(err, dag.ErrBusy) {
				return err
			}
			runtime.Gosched()
		}
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				var id uint64
				err := retry(func() (err error) {
					id, err = g.AddVertex(fmt.Sprintf("w%d-%d", w, i))
					return err
				})
				if err == nil {
					err = retry(func() error { return g.Connect(root, id) })
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	var readerWG sync.WaitGroup
	for r := 0; r < readers; r++ {
		readerWG.Add(1)
		go func() {
			defer readerWG.Done()
			for atomic.LoadInt32(&stop) == 0 {
				deps, err := g.Dependencies(root)
				if err == nil {
					_, err = g.Ancestors(root)
				}
				if err == nil && len(deps) > g.VertexCount() {
					err = fmt.Errorf("root has %d dependencies but the graph %d vertices", len(deps), g.VertexCount())
				}
				if err == nil {
					_, err = g.MatchAncestor([]uint64{root}, func(id uint64) bool {
						_, err := g.Name(id) // a read inside a search, while writers wait
						return err != nil
					})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	finishWithin(t, &wg, time.Minute)
	atomic.StoreInt32(&stop, 1)
	finishWithin(t, &readerWG, time.Minute)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if g.EdgeCount() != writers*perWriter || g.VertexCount() != 1+writers*perWriter {
		t.Errorf("%d vertices, %d edges after concurrent writes", g.VertexCount(), g.EdgeCount())
	}
}

func TestSubsumeBothWaysAtOnce(t *testing.T) {
	g, _ := build(t, "a->b")
	h, _ := build(t, "b->c")
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				var err error
				if i == 0 {
					err = g.Subsume(h)
				} else {
					err = h.Subsume(g)
				}
				if err != nil {
					t.Errorf("Subsume: %v", err)
					return
				}
			}
		}(i)
	}
	finishWithin(t, &wg, time.Minute)
	// Named vertices merge, so repeated subsumes converge on a, b, c.
	if g.VertexCount() != 3 || h.VertexCount() != 3 {
		t.Errorf("vertex counts %d and %d, want 3 and 3", g.VertexCount(), h.VertexCount())
	}
}

func TestCloseWhileInUse(t *testing.T) {
	for round := 0; round < 20; round++ {
		g, _ := layered(t, 50)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for r := 0; r < 8; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					_, err := g.TopologicalOrder()
					if err == nil {
						_, err = g.Export(dag.FormatJSON)
					}
					if errors.Is(err, dag.ErrClosed) {
						return
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		time.Sleep(time.Millisecond)
		g.Close()
		finishWithin(t, &wg, time.Minute)
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}

// A Close landing while Walk starts (a long AlwaysRun list makes the start
// long enough to hit): the walk runs on the whole graph or fails with
// ErrClosed, and never starts on a graph already freed.
func TestCloseWhileAWalkStarts(t *testing.T) {
	always := make([]uint64, 4_000_000)
	for round := 0; round < 60; round++ {
		g, err := dag.New()
		if err != nil {
			t.Fatal(err)
		}
		id, err := g.AddVertex("a")
		if err != nil {
			t.Fatal(err)
		}
		for i := range always {
			always[i] = id
		}
		closed := make(chan struct{})
		go func(after time.Duration) {
			time.Sleep(after)
			g.Close()
			close(closed)
		}(time.Duration(round%30) * 250 * time.Microsecond)
		report, err := g.Walk(dag.WalkOptions{AlwaysRun: always}, func(uint64) error { return nil })
		switch {
		case err == nil && (report == nil || !report.OK() || len(report.Vertices) != 1):
			t.Fatalf("round %d: report %+v, want one vertex ok", round, report)
		case err != nil && !errors.Is(err, dag.ErrClosed):
			t.Fatalf("round %d: %v", round, err)
		}
		<-closed
	}
}

// Names for AddVertices and FindVertices were written into a malloc'd block
// as Go pointers: while the GC marked, a store's write barrier read the
// block's leftovers (freed graphs' memory) as a Go pointer and aborted the
// program ("found bad pointer in Go heap") in most runs of this test.
func TestNamesInBatchesWhileTheGarbageCollectorRuns(t *testing.T) {
	stop := make(chan struct{})
	var collector sync.WaitGroup
	collector.Add(1)
	go func() {
		defer collector.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); collector.Wait() }()
	named := make([]string, 200)
	for i := range named {
		named[i] = fmt.Sprintf("module.m.aws_instance.r%d", i)
	}
	for round := 0; round < 20000; round++ {
		g, err := dag.New()
		if err != nil {
			t.Fatal(err)
		}
		// Unnamed (all NULL) and named in turn.
		names := named
		if round%2 == 0 {
			names = make([]string, len(named))
		}
		ids, err := g.AddVertices(names)
		if err != nil {
			t.Fatal(err)
		}
		edges := make([]dag.Edge, 0, len(ids))
		for j := 1; j < len(ids); j++ {
			edges = append(edges, dag.Edge{From: ids[j], To: ids[j-1]})
		}
		if err := g.ConnectMany(edges); err != nil {
			t.Fatal(err)
		}
		if _, err := g.ReverseTopologicalOrder(); err != nil {
			t.Fatal(err)
		}
		if round%2 == 1 {
			found, err := g.FindVertices(names)
			if err != nil {
				t.Fatal(err)
			}
			if found[len(found)-1] != ids[len(ids)-1] {
				t.Fatalf("round %d: FindVertices found %v for %v", round, found[len(found)-1], ids[len(ids)-1])
			}
		}
		g.Close()
	}
}
