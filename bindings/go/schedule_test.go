package dag_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	dag "libdag/bindings/go"
)

func TestPoolBoundsItsVerticesAndOthersRunMeanwhile(t *testing.T) {
	specs := []string{"free"}
	needs := make(map[string]bool)
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("aws%d", i)
		specs = append(specs, name)
		needs[name] = true
	}
	g, ids := build(t, specs...)
	opts := dag.WalkOptions{Parallelism: 8, Pools: map[string]int{"aws": 2}, PoolNeeds: map[uint64][]string{}}
	for name := range needs {
		opts.PoolNeeds[ids[name]] = []string{"aws"}
	}
	var mu sync.Mutex
	running, peak := 0, 0
	freeRan := make(chan struct{})
	report, err := g.Walk(opts, func(id uint64) error {
		if id == ids["free"] {
			close(freeRan)
			return nil
		}
		mu.Lock()
		running++
		if running > peak {
			peak = running
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			running--
			mu.Unlock()
		}()
		// The aws vertices holding the pool wait for "free", which needs
		// no pool: it must not queue behind the full pool.
		select {
		case <-freeRan:
			return nil
		case <-time.After(time.Minute):
			return errors.New("free never ran while the pool was full")
		}
	})
	if err != nil || !report.OK() {
		t.Fatalf("Walk: %v, %v", err, report.Err())
	}
	if peak > 2 {
		t.Errorf("%d aws vertices ran at once, the pool allows 2", peak)
	}
}

func TestPoolsThatCannotBeMetAreRefused(t *testing.T) {
	g, ids := build(t, "a")
	walk := func(opts dag.WalkOptions) error {
		_, err := g.Walk(opts, func(uint64) error { return nil })
		return err
	}
	wantErr(t, "undeclared pool", walk(dag.WalkOptions{Pools: map[string]int{"aws": 1},
		PoolNeeds: map[uint64][]string{ids["a"]: {"gcp"}}}), dag.ErrInvalidArgument, "gcp")
	wantErr(t, "capacity 0", walk(dag.WalkOptions{Pools: map[string]int{"aws": 0},
		PoolNeeds: map[uint64][]string{ids["a"]: {"aws"}}}), dag.ErrInvalidArgument, "aws")
	wantErr(t, "negative capacity", walk(dag.WalkOptions{Pools: map[string]int{"aws": -1}}),
		dag.ErrInvalidArgument, "negative")
	wantErr(t, "NUL in a name", walk(dag.WalkOptions{Pools: map[string]int{"a\x00b": 1}}),
		dag.ErrInvalidArgument, "NUL")
	wantErr(t, "unknown vertex", walk(dag.WalkOptions{Pools: map[string]int{"aws": 1},
		PoolNeeds: map[uint64][]string{999: {"aws"}}}), dag.ErrUnknownVertex, "")
	wantErr(t, "negative retries", walk(dag.WalkOptions{Retries: -1}), dag.ErrInvalidArgument, "Retries")
}

func TestPullWalkKeepsThePoolBound(t *testing.T) {
	g, ids := build(t, "a", "b", "c", "d")
	opts := dag.WalkOptions{Parallelism: 4, Pools: map[string]int{"one": 1}, PoolNeeds: map[uint64][]string{}}
	for _, id := range ids {
		opts.PoolNeeds[id] = []string{"one"}
	}
	var mu sync.Mutex
	running, peak := 0, 0
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		mu.Lock()
		running++
		if running > peak {
			peak = running
		}
		mu.Unlock()
		mu.Lock()
		running--
		mu.Unlock()
		return nil
	}, opts)
	if err != nil || !report.OK() {
		t.Fatalf("Walk: %v, %v", err, report.Err())
	}
	if peak != 1 {
		t.Errorf("peak %d vertices of a pool of 1 at once", peak)
	}
}

func TestTheLongestWeightedChainStartsFirst(t *testing.T) {
	g, ids := build(t, "z3->z2", "z2->z1", "a")
	order := func(opts dag.WalkOptions) []string {
		var mu sync.Mutex
		var started []string
		opts.Parallelism = 1
		if _, err := g.Walk(opts, func(id uint64) error {
			name, _ := g.Name(id)
			// libdag orders the calls; the race detector sees only Go's locks.
			mu.Lock()
			started = append(started, name)
			mu.Unlock()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return started
	}
	for _, c := range []struct {
		opts dag.WalkOptions
		want []string
	}{
		{dag.WalkOptions{Priority: dag.PriorityCriticalPath}, []string{"z1", "z2", "a", "z3"}},
		{dag.WalkOptions{Priority: dag.PriorityName}, []string{"a", "z1", "z2", "z3"}},
		{dag.WalkOptions{Priority: dag.PriorityCriticalPath, Weights: map[uint64]uint64{ids["a"]: 10}},
			[]string{"a", "z1", "z2", "z3"}},
	} {
		if got := order(c.opts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("priority %d: %v, want %v", c.opts.Priority, got, c.want)
		}
	}
	_, err := g.Walk(dag.WalkOptions{Priority: 7}, func(uint64) error { return nil })
	wantErr(t, "bad priority", err, dag.ErrInvalidArgument, "Priority")
}

func TestRetriesRecordEachAttempt(t *testing.T) {
	g, ids := build(t, "app->db", "cache", "web->cache")
	var mu sync.Mutex
	tries := 0
	opts := dag.WalkOptions{Parallelism: 1, Retries: 2, RetryDelay: time.Millisecond, RetryDoubling: true,
		VertexRetries: map[uint64]int{ids["cache"]: 1}}
	report, err := g.Walk(opts, func(id uint64) error {
		switch id {
		case ids["db"]:
			mu.Lock()
			tries++
			n := tries
			mu.Unlock()
			if n < 3 {
				return fmt.Errorf("db try %d", n)
			}
		case ids["cache"]:
			return errors.New("down")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db, _ := report.Result(ids["db"])
	if db.Status != dag.VertexOK || db.Attempts != 3 ||
		!reflect.DeepEqual(db.AttemptMessages, []string{"db try 1", "db try 2", ""}) {
		t.Errorf("db: %+v", db)
	}
	cache, _ := report.Result(ids["cache"])
	if cache.Status != dag.VertexFailed || cache.Attempts != 2 ||
		!reflect.DeepEqual(cache.AttemptMessages, []string{"down", "down"}) {
		t.Errorf("cache (one retry of its own): %+v", cache)
	}
	web, _ := report.Result(ids["web"])
	if web.Status != dag.VertexUpstreamFailed || web.Attempts != 0 {
		t.Errorf("web: %+v", web)
	}
	app, _ := report.Result(ids["app"])
	if app.Status != dag.VertexOK || app.Attempts != 1 || app.AttemptMessages != nil {
		t.Errorf("app: %+v", app)
	}
}
