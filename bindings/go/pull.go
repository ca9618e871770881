package dag

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Walk runs fn once for every vertex of g, each on a goroutine of its own as
// soon as every dependency of the vertex has finished (every dependent, with
// opts.Reverse), up to opts.Parallelism at once. With a -> b, b runs before
// a. It returns once every vertex has finished.
//
// Walk uses libdag's pull mode: it takes ready vertices from libdag and
// completes them from its own goroutines, so libdag never calls Go from a
// thread of its own (opts.Threads does not apply). A goroutine that
// finishes a vertex goes on with the next ready one, so a chain of vertices
// runs on one goroutine without waking another. Vertices made ready
// otherwise (an expanded vertex's sub-walk, a retry after its back-off, an
// update) start within 5 ms while other vertices run.
//
// fn gets a context that is cancelled when ctx is, and a Vertex: its id, and
// methods to read its name, expand it into a sub-graph, change the running
// walk, and poll progress. A vertex waiting for outside work simply waits
// in fn (on a channel, or ctx.Done()): its goroutine holds no thread and
// its parallelism slot stays taken, like a libdag callback returning
// pending. fn must be safe for concurrent use. It may read g; changing g
// returns ErrBusy until the walk ends (change a running walk with
// Vertex.Apply). A non-nil error fails the vertex: err.Error() is its
// message, err its VertexResult.Err, report.Err() wraps it (errors.Is and
// errors.As reach it), and its dependents are skipped as
// VertexUpstreamFailed. A panic in fn is recovered and fails the vertex
// with a *PanicError; runtime.Goexit in fn (t.FailNow) fails the vertex
// too, and the walk goes on.
//
// Cancelling ctx cancels the walk: nothing new starts, vertices that had
// not started are reported VertexCancelled, and running callbacks see their
// context done. A callback that then returns an error is reported
// VertexCancelled too (Ran true, its error in Err), not failed; one that
// returns nil finished its work and is reported VertexOK. Walk waits for
// every running callback. A ctx already done runs nothing: every vertex is
// reported cancelled. A ctx done while Walk waits for g (a search or a
// change on another goroutine holding it) ends the wait: Walk returns a
// nil report and an error matching ErrCancelled and ctx.Err().
//
// Results: the report, and nil when the walk ran to its end, even if
// vertices failed (report.OK() is false and report.Err() says which failed
// first). Cancelled: the report and an error matching ErrCancelled and
// ctx.Err(). Otherwise nothing ran: a nil report and ErrCycle (the graph
// has a cycle or a self reference), ErrUnknownVertex (an AlwaysRun id, or
// one in PoolNeeds, VertexRetries, or Weights with PriorityCriticalPath), ErrInvalidArgument (negative
// Parallelism, opts.Context set, nil fn or ctx, an undeclared pool, or one
// of capacity 0 that a vertex needs), ErrBadUTF8 (a pool's name), ErrBusy
// (g is already being walked, or Walk is called from a callback of a search
// of g), ErrNoMemory, ErrClosed. A panic in opts.Observer is raised again once the walk has
// ended.
func Walk(ctx context.Context, g *Graph, fn func(ctx context.Context, v Vertex) error, opts WalkOptions) (*WalkReport, error) {
	switch {
	case ctx == nil:
		return nil, newError(StatusInvalidArgument, "Walk", "the context is nil")
	case fn == nil:
		return nil, newError(StatusInvalidArgument, "Walk", "fn is nil")
	case opts.Context != nil:
		return nil, newError(StatusInvalidArgument, "Walk", "WalkOptions.Context is for Graph.Walk; Walk takes its context as its first argument")
	case opts.Parallelism < 0:
		return nil, newError(StatusInvalidArgument, "Walk", "Parallelism must not be negative")
	}
	sched, err := opts.schedule("Walk")
	if err != nil {
		return nil, err
	}
	defer C.dagbind_schedule_free(sched)
	ptr, err := g.handle().beginWriteContext(ctx, "Walk")
	if err != nil {
		return nil, err
	}
	obs, releaseObserver := newObserver(opts.Observer, ptr)
	defer releaseObserver()
	always, alwaysCount := idsArg(opts.AlwaysRun)
	var root *C.dag_walker
	var cerr *C.dag_error
	cfg := opts.config(obs, sched)
	cfg.threads = 0 // a pull walk has no threads of libdag's: opts.Threads does not apply
	status := C.dagbind_walk_begin(ptr, cfg, always, alwaysCount, &root, &cerr)
	// The walk holds the graph from here: libdag refuses changes and lets
	// reads through, and callbacks reading g must not wait on a writer.
	g.h.endWrite()
	if err := check(status, cerr); err != nil {
		return nil, err
	}
	walkCtx, stopCallbacks := context.WithCancel(ctx)
	defer stopCallbacks()
	r := &pullRun{root: root, h: g.h, fn: fn, ctx: walkCtx, idle: make(chan struct{}, 1)}
	r.outcomes.retries = opts.hasRetries()
	defer r.free()

	stopWatching := make(chan struct{})
	watched := make(chan struct{})
	if ctx.Done() == nil {
		close(watched)
	} else {
		go func() {
			defer close(watched)
			select {
			case <-ctx.Done():
				r.cancel(ctx.Err())
			case <-stopWatching:
			}
		}()
	}
	if ctx.Err() != nil {
		// Settled before anything is handed out, not whenever the watcher
		// runs: an already cancelled walk runs nothing.
		r.cancel(ctx.Err())
	}
	drainErr := r.drive()
	close(stopWatching)
	<-watched
	if drainErr != nil {
		return nil, drainErr
	}
	var creport *C.dag_walk_report
	// Every vertex has finished (libdag said so), so this only collects.
	status = C.dag_walk_wait_for(root, 0, &creport, &cerr)
	return walkResult(status, creport, cerr, &r.outcomes, r.cause)
}

// Vertex is a vertex that Walk hands to its callback. Its methods work while
// the walk runs; after Walk has returned they return ErrState.
type Vertex struct {
	// ID is the vertex's id in the walked graph, or, for a vertex of an
	// expanded sub-graph (Sub), its id in that sub-graph.
	ID uint64

	walk *C.dag_walker
	run  *pullRun
	// call is this hand-out of the vertex, in a walk with retries; nil
	// otherwise (a vertex is handed out once).
	call *vertexCall
}

// vertexCall is one hand-out of a vertex in a walk with retries. libdag
// knows a vertex by its id only: a Vertex kept past its fn would expand the
// retry. Expand holds mu through its libdag call, so fn cannot return, and
// the retry begin, between the check and the call.
type vertexCall struct {
	mu       sync.Mutex
	returned bool
}

// end marks the hand-out's fn as returned: the Vertex expands nothing more.
func (c *vertexCall) end() {
	if c != nil {
		c.mu.Lock()
		c.returned = true
		c.mu.Unlock()
	}
}

// Sub reports whether the vertex belongs to a sub-graph that Expand handed
// over, rather than to the walked graph.
func (v Vertex) Sub() bool {
	return v.run != nil && v.walk != v.run.root
}

// Name returns the vertex's name ("" for an unnamed vertex), from the
// walked graph or the vertex's sub-graph. It reads the walked graph as
// Graph.Name does, waiting for a change that another goroutine makes once
// the walk has finished.
func (v Vertex) Name() (string, error) {
	var name string
	err := v.run.alive("Vertex.Name", func() error {
		if !v.Sub() {
			// libdag keeps the walked graph from changing only until the
			// walk has finished, which can be before Walk returns (an fn
			// still running after its Expand, a Vertex kept by another
			// goroutine): a rename then would free the name being copied.
			// A closed graph cannot change, and the walk keeps it alive.
			if _, err := v.run.h.beginRead(); err == nil {
				defer v.run.h.endRead()
			}
		}
		var cname *C.char
		var cerr *C.dag_error
		if err := check(C.dag_vertex_name(C.dag_walk_graph(v.walk), C.uint64_t(v.ID), &cname, &cerr), cerr); err != nil {
			return err
		}
		name = C.GoString(cname)
		return nil
	})
	return name, err
}

// Expand hands over a sub-graph that is walked as part of this vertex
// (Terraform's dynamic expansion): Walk's callback then runs for each of
// its vertices (Sub true, ids of sub), in dependency order, and this
// vertex finishes when they all have: ok if every one did, failed with the
// sub-walk's first error if one failed, cancelled if the walk was cancelled
// first. sub is copied; the caller keeps it. Call it from the vertex's own
// callback; what the callback returns afterwards is ignored, and the
// vertex's parallelism slot is given back at once.
//
// Errors: ErrCycle (sub has a cycle; nothing changed), ErrState (expanded
// already, its fn has returned, or the walk has ended), ErrClosed (sub is
// closed).
func (v Vertex) Expand(sub *Graph) error {
	ptr, err := sub.handle().beginRead()
	if err != nil {
		return err
	}
	defer sub.h.endRead()
	if c := v.call; c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.returned {
			return newError(StatusState, "Vertex.Expand", fmt.Sprintf(
				"vertex %d: its fn has returned (a Vertex kept from an earlier attempt expands no retry)", v.ID))
		}
	}
	return v.run.alive("Vertex.Expand", func() error {
		var cerr *C.dag_error
		return check(C.dag_walk_expand(v.walk, C.uint64_t(v.ID), ptr, nil, nil, &cerr), cerr)
	})
}

// Progress returns how many vertices of the vertex's walk (or sub-walk)
// have finished, and how many it has (more once updates add some).
func (v Vertex) Progress() (done, total int, err error) {
	err = v.run.alive("Vertex.Progress", func() error {
		var d, t C.size_t
		var cerr *C.dag_error
		if err := check(C.dag_walk_progress(v.walk, &d, &t, &cerr), cerr); err != nil {
			return err
		}
		done, total = int(d), int(t)
		return nil
	})
	return done, total, err
}

// pullRun is one Walk: the driver hands vertices to goroutines, each of
// which runs fn, completes its vertex and takes the next ready one.
type pullRun struct {
	root *C.dag_walker
	// h is the walked graph's lock, for reads of the graph that can come
	// after the walk has finished in libdag.
	h   *handle
	fn  func(context.Context, Vertex) error
	ctx context.Context

	// running counts the goroutines that hold vertices; active is the
	// same count for drive to read, and idle is signalled when it drops to
	// zero.
	running sync.WaitGroup
	active  atomic.Int64
	idle    chan struct{}

	// handout lets one goroutine at a time into libdag to complete and
	// take vertices.
	handout sync.Mutex

	// order is held for reading while a failure is completed, and for
	// writing while the walk is cancelled: a failure completed before the
	// cancellation is a real one, one completed after it (cancelled set)
	// was interrupted by it, and is completed as cancelled.
	order     sync.RWMutex
	cancelled bool
	cause     error

	// life is held for reading by Vertex methods and for writing to free
	// the walk, which ended is then set.
	life  sync.RWMutex
	ended bool

	// subErrs holds the last error of each failed vertex of a sub-walk, in
	// a walk with retries, under outcomes.mu: a retry handed out as the
	// walk is cancelled ends failed with it, as the walked graph's
	// vertices do.
	subErrs map[subVertex]error

	// broken is the first error completing a vertex returned; the walk
	// could then not end by itself.
	brokenMu sync.Mutex
	broken   error

	outcomes
}

// readyBatch is the most vertices one call takes from libdag.
const readyBatch = C.DAGBIND_READY_BATCH

// handOutPoll is how often drive looks for ready vertices while goroutines
// hold vertices: most are taken by the goroutine whose completion made them
// ready, but some become ready otherwise (an expanded vertex's sub-walk, a
// retry whose back-off has passed, the dependents of a vertex whose fn
// called runtime.Goexit, an update) and must not wait for every running fn
// to return.
const handOutPoll = 5 * time.Millisecond

// drive hands out vertices until the walk has ended: it blocks in libdag
// while no goroutine holds a vertex, and otherwise looks every handOutPoll.
func (r *pullRun) drive() error {
	var ids [readyBatch]C.uint64_t
	var walks [readyBatch]*C.dag_walker
	for {
		timeout := C.int(0)
		if r.active.Load() == 0 {
			// A broken walk cannot end: wait for nothing more.
			if err := r.brokenErr(); err != nil {
				return err
			}
			timeout = -1
		}
		var n C.size_t
		var cerr *C.dag_error
		status := C.dag_walk_next_ready(r.root, &ids[0], &walks[0], readyBatch, timeout, &n, &cerr)
		if status == C.DAG_E_TIMEOUT {
			C.dag_error_free(cerr)
			select {
			case <-r.idle:
			case <-time.After(handOutPoll):
			}
			continue
		}
		if err := check(status, cerr); err != nil {
			r.running.Wait()
			return err
		}
		if n == 0 {
			r.running.Wait()
			return r.brokenErr()
		}
		r.hold(int(n))
		for i := 0; i < int(n); i++ {
			go r.work(Vertex{ID: uint64(ids[i]), walk: walks[i], run: r})
		}
	}
}

// hold counts n more goroutines holding vertices.
func (r *pullRun) hold(n int) {
	r.running.Add(n)
	r.active.Add(int64(n))
}

// release counts one goroutine holding vertices fewer.
func (r *pullRun) release() {
	if r.active.Add(-1) == 0 {
		select {
		case r.idle <- struct{}{}:
		default:
		}
	}
	r.running.Done()
}

// work runs v, then each vertex that its completion made ready, handing
// any further ones to new goroutines.
func (r *pullRun) work(v Vertex) {
	defer r.release()
	// Zeroed: its pointer fields never hold malloc's leftovers (see cStrings).
	p := (*C.dagbind_puller)(C.calloc(1, C.sizeof_dagbind_puller))
	defer C.free(unsafe.Pointer(p))
	finished := false
	defer func() {
		if !finished {
			// fn called runtime.Goexit, which goes on past this.
			v.call.end()
			r.complete(p, v, goexitError{}, "the callback called runtime.Goexit", false)
		}
	}()
	for {
		if r.outcomes.retries {
			v.call = new(vertexCall)
		}
		vertexHandedOut(v)
		var err error
		var text string
		if cause := r.ctx.Err(); cause != nil {
			if last := r.lastFailure(v); last != nil {
				// A retry handed out just before libdag heard of the
				// cancellation: it ends as a cancel during its back-off
				// ends it, failed with the last attempt's error.
				err, text = retryStopped{last}, last.Error()
			} else {
				// Handed out just before libdag heard of the cancellation:
				// nothing new starts, this one included.
				err = notStarted{cause}
				text = err.Error()
			}
		} else {
			err, text = r.call(v)
		}
		v.call.end()
		n := r.complete(p, v, err, text, true)
		finished = true
		if n == 0 {
			return
		}
		r.hold(n - 1)
		for i := 1; i < n; i++ {
			go r.work(Vertex{ID: uint64(p.ids[i]), walk: p.walks[i], run: r})
		}
		v = Vertex{ID: uint64(p.ids[0]), walk: p.walks[0], run: r}
		finished = false
	}
}

// notStarted is the Err of a vertex whose fn was not called: the context
// was done when its goroutine came to call it.
type notStarted struct{ cause error }

func (e notStarted) Error() string { return "not started: " + e.cause.Error() }
func (e notStarted) Unwrap() error { return e.cause }

// retryStopped is what completes a retry whose fn was not called because
// the context was done: the last attempt's error, which the vertex keeps.
// libdag counts the hand-out as an attempt; the report does not.
type retryStopped struct{ last error }

func (e retryStopped) Error() string { return e.last.Error() }
func (e retryStopped) Unwrap() error { return e.last }

// lastFailure is the error an earlier attempt of v failed with, nil for a
// first attempt.
func (r *pullRun) lastFailure(v Vertex) error {
	if !r.outcomes.retries {
		return nil
	}
	r.outcomes.mu.Lock()
	defer r.outcomes.mu.Unlock()
	var err error
	if v.Sub() {
		err = r.subErrs[subVertex{v.walk, v.ID}]
	} else {
		err = r.outcomes.errs[v.ID]
	}
	if stopped, ok := err.(retryStopped); ok {
		return stopped.last
	}
	return err
}

// subVertex names a vertex of a sub-walk: each sub-walk has the ids of its
// own graph, so ids repeat from one to the next.
type subVertex struct {
	walk *C.dag_walker
	id   uint64
}

// subFailed records err as the error of v, a vertex of a sub-walk, for its
// retry: the report has no entry of its own for it.
func (r *pullRun) subFailed(v Vertex, err error) {
	r.outcomes.mu.Lock()
	if r.subErrs == nil {
		r.subErrs = make(map[subVertex]error)
	}
	r.subErrs[subVertex{v.walk, v.ID}] = err
	r.outcomes.mu.Unlock()
}

// call runs fn for one vertex, turning a panic into a *PanicError.
func (r *pullRun) call(v Vertex) (err error, text string) {
	returned := false
	defer func() {
		if !returned {
			// Under runtime.Goexit this finds nothing to recover, and work
			// completes the vertex as the goroutine ends.
			p := &PanicError{Vertex: v.ID, Value: recover(), Stack: debug.Stack()}
			err, text = p, p.Error()
		}
	}()
	err = r.fn(r.ctx, v)
	if err != nil {
		text = err.Error()
	}
	returned = true
	return err, text
}

// complete finishes v with err and, when next is set, takes up to
// readyBatch ready vertices into p, returning how many.
func (r *pullRun) complete(p *C.dagbind_puller, v Vertex, err error, text string, next bool) int {
	var ctext *C.char
	result := C.int(C.DAG_WALK_OK)
	if cause := r.ctx.Err(); cause != nil {
		// The context may be done before the watcher has cancelled the
		// walk: cancel it here, so that an error counts as the
		// interruption it is and, whatever fn returned, nothing more is
		// handed out (a chain of quick vertices outran the watcher, and a
		// walk that ended first lost the cancellation).
		r.cancel(cause)
	}
	if err != nil {
		result = C.DAG_WALK_FAILED
		// Ordered against the cancellation: see pullRun.order.
		r.order.RLock()
		defer r.order.RUnlock()
		_, stopped := err.(retryStopped)
		if r.cancelled && !stopped {
			// Interrupted, not failed: libdag reports it cancelled, with
			// its dependents, rather than failed and upstream failed.
			result = C.DAG_WALK_CANCELLED
			if _, before := err.(notStarted); !before {
				text = "cancelled while running: " + text
			}
		}
		switch {
		case !v.Sub():
			r.failed(v.ID, err, r.cancelled && !stopped)
		case r.outcomes.retries:
			r.subFailed(v, err)
		}
		// libdag takes messages as UTF-8 up to the first NUL.
		text = strings.ToValidUTF8(text, "\uFFFD")
		ctext = C.CString(strings.ReplaceAll(text, "\x00", "\uFFFD"))
		defer C.free(unsafe.Pointer(ctext))
	}
	r.handout.Lock()
	status := C.dagbind_complete_next(C.uintptr_t(uintptr(unsafe.Pointer(r.root))), C.uintptr_t(uintptr(unsafe.Pointer(v.walk))),
		C.uint64_t(v.ID), result, C.uintptr_t(uintptr(unsafe.Pointer(ctext))), cbool(next), C.uintptr_t(uintptr(unsafe.Pointer(p))))
	r.handout.Unlock()
	switch {
	case p.completed == C.DAG_E_STATE || p.completed == C.DAG_E_CANCELLED:
		// Expanded: the vertex follows its sub-walk, whatever fn said.
		// (Or finished already, which nothing in Walk does.) What an
		// earlier attempt of a retry that expanded failed with is not its
		// error either: forgotten whatever this fn returned.
		C.dag_error_free(p.err)
		if !v.Sub() {
			r.forget(v.ID)
		}
		return 0
	case p.completed != C.DAG_OK:
		r.setBroken(check(p.completed, p.err))
		return 0
	}
	if err := check(status, p.err); err != nil {
		r.setBroken(err)
		return 0
	}
	return int(p.count)
}

// cancel cancels the walk for cause, unless it has ended already.
func (r *pullRun) cancel(cause error) {
	r.order.Lock()
	defer r.order.Unlock()
	if r.cancelled {
		return
	}
	var cerr *C.dag_error
	// DAG_E_STATE: the walk had already ended, and nothing was cancelled.
	if C.dag_walk_cancel(r.root, &cerr) != C.DAG_E_STATE {
		r.cancelled, r.cause = true, cause
	}
	C.dag_error_free(cerr)
}

func (r *pullRun) setBroken(err error) {
	r.brokenMu.Lock()
	if r.broken == nil {
		r.broken = err
	}
	r.brokenMu.Unlock()
}

func (r *pullRun) brokenErr() error {
	r.brokenMu.Lock()
	defer r.brokenMu.Unlock()
	return r.broken
}

// alive runs f while the walk has not been freed.
func (r *pullRun) alive(op string, f func() error) error {
	if r == nil {
		return newError(StatusState, op, "the zero Vertex belongs to no walk")
	}
	r.life.RLock()
	defer r.life.RUnlock()
	if r.ended {
		return newError(StatusState, op, "the walk has ended")
	}
	return f()
}

// free frees the walk once nothing uses it. A walk that could not end by
// itself (see broken) is cancelled by libdag, which then finishes what is
// still handed out.
func (r *pullRun) free() {
	r.life.Lock()
	r.ended = true
	C.dag_walk_free(r.root)
	r.life.Unlock()
}

// goexitError fails a vertex whose callback called runtime.Goexit.
type goexitError struct{}

func (goexitError) Error() string { return "the callback called runtime.Goexit" }
