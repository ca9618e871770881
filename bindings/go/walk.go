package dag

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"context"
	"fmt"
	"regexp"
	"runtime/cgo"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// contextCancelLanded runs once a done context has cancelled a walk in
// libdag; tests replace it to wait for that instead of sleeping.
var contextCancelLanded = func() {}

// vertexHandedOut runs in dag.Walk as a goroutine is about to call fn for
// v: a test's hook, to cancel the context in that window.
var vertexHandedOut = func(v Vertex) {}

// WalkOptions tune Walk. The zero value gives libdag's defaults: 10
// callbacks at once on 10 threads, dependencies first, Terraform's failure
// policy, no cancellation.
type WalkOptions struct {
	// Parallelism is the most callbacks running at once; 0 for libdag's
	// default (10, like Terraform's -parallelism).
	Parallelism int
	// Threads is the size of the walk's thread pool, at most 1024; 0 for
	// libdag's default: one thread per slot of Parallelism. The pool never
	// has more threads than Parallelism, since no more could be busy.
	Threads int
	// Reverse runs dependents before their dependencies (destroy order).
	Reverse bool
	// FailFast starts nothing new once a vertex has failed; what never
	// started is reported VertexNotRun. Without it (Terraform's behaviour)
	// only the failed vertex's dependents are skipped, as
	// VertexUpstreamFailed, and independent branches go on.
	FailFast bool
	// AlwaysRun lists vertices that run even when a dependency failed;
	// their own result then decides their dependents.
	AlwaysRun []uint64
	// NoTimestamps leaves VertexResult.Start and End at 0, saving up to two
	// clock reads per vertex for walks of very cheap work.
	NoTimestamps bool
	// Observer, when not nil, is called for every vertex that starts,
	// finishes or is skipped, with the walk's counts: a progress display
	// or a trace. It is called from several goroutines at once (for
	// Graph.Walk, from libdag's threads), so it must be safe for
	// concurrent use, and should return quickly. If it panics it is not
	// called again, and the walk function panics with the same value once
	// the walk has ended. It must not call runtime.Goexit (t.FailNow): it
	// runs under a call from libdag, which Goexit cannot unwind through
	// (the process crashes); use t.Error and return. In Walk, a vertex
	// whose callback returns an error once the walk is cancelled is
	// VertexCancelled, in its event and in the report.
	Observer func(WalkEvent)
	// Context, for Graph.Walk only (Walk takes its context as an
	// argument), when not nil, cancels the walk once it is done: nothing new
	// starts, running callbacks finish, and every vertex that had not
	// started is reported VertexCancelled. Walk then returns the report
	// and an error matching both ErrCancelled and the context's error.
	// No fn is called once the context is done: a vertex libdag hands a
	// callback after that ends VertexCancelled, not run (Ran false, Err
	// nil, Message "not started: " and the context's error) (a retry ends failed with the attempt before
	// it, as a cancel during its back-off ends it). A context already
	// done when Walk is called runs nothing: Walk returns a nil report and
	// that error, as it does at once when the context is done while Walk
	// waits for the graph (a search or a change on another goroutine
	// holding it).
	Context context.Context
	// Pools declares named limits (libdag 1.3): at most Pools[name] of
	// the vertices that need pool name run at once, a pending vertex
	// counting as running. A vertex starts only with a slot in every pool
	// it needs and in Parallelism, all taken at once, so pools needed
	// together cannot deadlock; vertices waiting for a full pool do not
	// hold up ready vertices that need other pools, or none.
	Pools map[string]int
	// PoolNeeds maps a vertex to the pools it needs, a slot in each. A
	// pool Pools does not declare, or one of capacity 0, is refused with
	// ErrInvalidArgument before anything runs; an id not in the graph
	// with ErrUnknownVertex.
	PoolNeeds map[uint64][]string
	// Retries is how many more times a failed vertex is tried (libdag
	// 1.3) before it counts as failed and its dependents are skipped.
	// Cancellation and FailFast stop retries. VertexResult.Attempts and
	// AttemptMessages tell each attempt.
	Retries int
	// VertexRetries gives vertices a retry count of their own instead of
	// Retries.
	VertexRetries map[uint64]int
	// RetryDelay is the wait before a vertex's first retry, in whole
	// milliseconds (a positive one under 1 ms counts as 1 ms); it holds no
	// slot and no thread.
	RetryDelay time.Duration
	// RetryMaxDelay caps the wait, in milliseconds as RetryDelay; 0 for no cap.
	RetryMaxDelay time.Duration
	// RetryDoubling makes each retry wait twice as long as the one
	// before; without it every retry waits RetryDelay.
	RetryDoubling bool
	// Priority says which ready vertex starts first (libdag 1.3).
	Priority Priority
	// Weights gives vertices a weight for PriorityCriticalPath, such as
	// their expected duration; others weigh 1. With that priority an id
	// not in the graph is ErrUnknownVertex; with another, Weights is not
	// read.
	Weights map[uint64]uint64
}

// Walk runs fn once for every vertex, each as soon as every dependency of
// the vertex has finished (every dependent, with Reverse), independent
// vertices in parallel. With a -> b, b runs before a.
//
// This is the callback walk: fn runs on threads of libdag's pool, each call
// a call from a foreign thread into Go. The package-level Walk runs each
// vertex on a goroutine instead, hands fn a context, and reports vertices
// a cancellation interrupts as cancelled; prefer it.
//
// fn runs on threads of libdag's pool, up to opts.Parallelism at once, so
// it must be safe for concurrent use. It may read the graph (Name,
// Dependencies, Ancestors...); changing the graph returns ErrBusy until the
// walk ends. A non-nil error marks the vertex failed, with err.Error() as
// its message and err in its VertexResult.Err; its dependents are then
// skipped as VertexUpstreamFailed. A panic in fn is recovered and fails the
// vertex the same way, with a *PanicError. fn must not call runtime.Goexit
// (so not t.FailNow either).
//
// Results: every vertex finished ok: the report and nil. Some vertex
// failed: the report (report.OK() is false, report.Err() says which vertex
// failed first) and nil, since the walk itself did its job. Cancelled
// through opts.Context: the report (nil if the context was done before the
// walk started) and an error matching ErrCancelled and the context's
// error. Otherwise no callback ran, and the error is one of: ErrCycle (the
// graph has a cycle or a self reference; Validate's wording),
// ErrUnknownVertex (an AlwaysRun id), ErrInvalidArgument (negative
// Parallelism, negative Threads or more than 1024 of them, nil fn), ErrBusy (the graph is already
// being walked, or Walk was called from a search's callback), ErrNoMemory,
// ErrClosed. A panic in opts.Observer is raised again once the walk has
// ended.
func (g *Graph) Walk(opts WalkOptions, fn func(id uint64) error) (*WalkReport, error) {
	report, err := g.walk(opts, fn)
	// Told apart from the package's Walk, which shares libdag's functions
	// and so their names in messages.
	return report, inMethod(err, "Walk", "Graph.Walk")
}

func (g *Graph) walk(opts WalkOptions, fn func(id uint64) error) (*WalkReport, error) {
	if fn == nil {
		return nil, newError(StatusInvalidArgument, "Walk", "fn is nil")
	}
	if opts.Parallelism < 0 || opts.Threads < 0 {
		return nil, newError(StatusInvalidArgument, "Walk", "Parallelism and Threads must not be negative")
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		// Starting would let vertices run before the cancellation lands.
		return nil, cancelledBy("Walk", ctx)
	}
	sched, err := opts.schedule("Walk")
	if err != nil {
		return nil, err
	}
	defer C.dagbind_schedule_free(sched)
	state := &walkState{fn: fn, ctx: ctx}
	state.outcomes.retries = opts.hasRetries()
	h := cgo.NewHandle(state)
	// Deleted once the walk is freed and its callbacks have all returned.
	defer h.Delete()

	ptr, err := g.handle().beginWriteContext(ctx, "Walk")
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		// Done as the lock came free: nothing has run, as for a context
		// done on entry.
		g.h.endWrite()
		return nil, cancelledBy("Walk", ctx)
	}
	obs, releaseObserver := newObserver(opts.Observer, ptr)
	defer releaseObserver()
	cfg := opts.config(obs, sched)
	always, alwaysCount := idsArg(opts.AlwaysRun)
	// Started under the write lock, also when nothing can cancel the walk:
	// a Close landing between the unlock and the start would free the
	// graph the start reads, and a change could run beside it.
	var walker *C.dag_walker
	var cerr *C.dag_error
	status := C.dagbind_walk_start(ptr, cfg, always, alwaysCount, C.uintptr_t(h), &walker, &cerr)
	// Once started, the walk holds the graph itself: libdag refuses
	// changes with DAG_E_BUSY and lets reads through, and the lock must not
	// be held, or callbacks reading the graph would wait on a writer that
	// waits on them.
	g.h.endWrite()
	if err := check(status, cerr); err != nil {
		return nil, err
	}
	defer C.dag_walk_free(walker)

	stop := make(chan struct{})
	var watcher sync.WaitGroup
	if ctx.Done() != nil {
		watcher.Add(1)
		go func() {
			defer watcher.Done()
			select {
			case <-ctx.Done():
				state.cancel(walker, ctx.Err())
				contextCancelLanded()
			case <-stop:
			}
		}()
	}
	var creport *C.dag_walk_report
	status = C.dag_walk_wait(walker, &creport, &cerr)
	close(stop)
	watcher.Wait()
	return walkResult(status, creport, cerr, &state.outcomes, state.cancelCause())
}

// config turns the options into the shim's; obs is the observer's handle,
// sched what opts.schedule made.
func (opts *WalkOptions) config(obs C.uintptr_t, sched *C.dagbind_schedule) C.dagbind_walk_config {
	return C.dagbind_walk_config{
		parallelism:        C.size_t(opts.Parallelism),
		threads:            C.size_t(opts.Threads),
		reverse:            cbool(opts.Reverse),
		fail_fast:          cbool(opts.FailFast),
		timestamps:         cbool(!opts.NoTimestamps),
		observer:           obs,
		schedule:           C.uintptr_t(uintptr(unsafe.Pointer(sched))),
		retries:            C.size_t(opts.Retries),
		retry_delay_ms:     millis(opts.RetryDelay),
		retry_max_delay_ms: millis(opts.RetryMaxDelay),
		retry_doubling:     cbool(opts.RetryDoubling),
		priority:           C.int(opts.Priority),
	}
}

// walkResult turns what a finished walk returned into Go: the report, and
// an error for a cancelled walk (wrapping cause) or one that could not run.
func walkResult(status C.dag_status, creport *C.dag_walk_report, cerr *C.dag_error, o *outcomes, cause error) (*WalkReport, error) {
	if creport == nil {
		if err := check(status, cerr); err != nil {
			return nil, err
		}
		return nil, newError(StatusInternal, "Walk", "the walk ended without a report")
	}
	report, err := takeReport(creport, o)
	if err != nil {
		C.dag_error_free(cerr)
		return nil, err
	}
	report.cause = cause
	switch status {
	case C.DAG_OK, C.DAG_E_WALK_FAILED:
		// A failed vertex is in the report, not an error of the walk:
		// report.Err() gives the message libdag put in the error object.
		C.dag_error_free(cerr)
		return report, nil
	default:
		err := check(status, cerr)
		if e, ok := err.(*Error); ok {
			e.cause = cause
			if e.Status == StatusCancelled {
				e.Message = recountCancelled(e.Message, report.handedOutNotRun)
			}
		}
		return report, err
	}
}

// walkState is one walk's Go side, reached from the pool threads through a
// cgo.Handle.
type walkState struct {
	fn  func(id uint64) error
	ctx context.Context
	outcomes
	// cancelled and cause: the walk was cancelled for the context, by the
	// watcher or by a callback that found it done first.
	cancelMu  sync.Mutex
	cancelled bool
	cause     error
}

// cancel cancels the walk (walk, or any of its sub-walks) for cause, once.
func (w *walkState) cancel(walk *C.dag_walker, cause error) {
	w.cancelMu.Lock()
	defer w.cancelMu.Unlock()
	if w.cancelled {
		return
	}
	// DAG_E_STATE means the walk had already finished: the context then
	// changed nothing. The message would add nothing to the report.
	var cerr *C.dag_error
	if C.dag_walk_cancel(walk, &cerr) != C.DAG_E_STATE {
		w.cancelled, w.cause = true, cause
	}
	C.dag_error_free(cerr)
}

func (w *walkState) cancelCause() error {
	w.cancelMu.Lock()
	defer w.cancelMu.Unlock()
	return w.cause
}

// run is the body of a walk callback: it calls fn and turns its result
// into a dag_walk_result, failing the vertex with dag_walk_fail. Once the
// context is done fn is not called: the watcher's cancel may not have
// reached libdag yet (a fan of quick vertices outran it, and a walk that
// ended first lost the cancellation), so the walk is cancelled here and
// the vertex ends cancelled, not run, as in Walk.
func (w *walkState) run(walk *C.dag_walker, vertex uint64) C.int {
	if cause := w.ctx.Err(); cause != nil {
		w.cancel(walk, cause)
		return w.notRun(walk, vertex, cause)
	}
	err, text := w.call(vertex)
	if err == nil {
		return C.DAG_WALK_OK
	}
	w.failed(vertex, err, false)
	var ctext *C.char
	if text != "" {
		// libdag documents messages as UTF-8 strings ending at the first
		// NUL; make the Go text one rather than have it cut short.
		text = strings.ToValidUTF8(text, "\uFFFD")
		ctext = C.CString(strings.ReplaceAll(text, "\x00", "\uFFFD"))
		defer C.free(unsafe.Pointer(ctext))
	}
	// Refused only where another goroutine completed the vertex while fn
	// ran: returning failed still fails it then, without the message.
	C.dag_walk_fail(walk, C.uint64_t(vertex), ctext, nil)
	return C.DAG_WALK_FAILED
}

// notRun ends a vertex whose fn was not called because the context was
// done: cancelled (completed so from its own callback, which then returns
// pending), or, for a retry, failed with the attempt before it, as a
// cancel during its back-off ends it.
func (w *walkState) notRun(walk *C.dag_walker, vertex uint64, cause error) C.int {
	if w.outcomes.retries {
		w.outcomes.mu.Lock()
		last := w.outcomes.errs[vertex]
		w.outcomes.mu.Unlock()
		if stopped, ok := last.(retryStopped); ok {
			last = stopped.last
		}
		if last != nil {
			w.failed(vertex, retryStopped{last}, false)
			text := strings.ReplaceAll(strings.ToValidUTF8(last.Error(), "\uFFFD"), "\x00", "\uFFFD")
			ctext := C.CString(text)
			defer C.free(unsafe.Pointer(ctext))
			C.dag_walk_fail(walk, C.uint64_t(vertex), ctext, nil)
			return C.DAG_WALK_FAILED
		}
	}
	err := notStarted{cause}
	ctext := C.CString(err.Error())
	defer C.free(unsafe.Pointer(ctext))
	if C.dag_walk_complete(walk, C.uint64_t(vertex), C.DAG_WALK_CANCELLED, ctext, nil) != C.DAG_OK {
		// Refused only for want of memory: failed, with the same message.
		w.failed(vertex, err, false)
		C.dag_walk_fail(walk, C.uint64_t(vertex), ctext, nil)
		return C.DAG_WALK_FAILED
	}
	w.failed(vertex, err, true)
	return C.DAG_WALK_PENDING
}

// call runs fn for one vertex, turning a panic (in fn or in its error's
// Error method) into a *PanicError: a panic must not unwind into libdag's
// C++ frames, and on a pool thread nothing could recover it anyway.
func (w *walkState) call(vertex uint64) (err error, text string) {
	returned := false
	defer func() {
		if !returned {
			p := &PanicError{Vertex: vertex, Value: recover(), Stack: debug.Stack()}
			err, text = p, p.Error()
		}
	}()
	err = w.fn(vertex)
	if err != nil {
		text = err.Error()
	}
	returned = true
	return err, text
}

// PanicError is the error of a vertex whose Walk callback panicked.
type PanicError struct {
	// Vertex is the vertex whose callback panicked.
	Vertex uint64
	// Value is what the callback passed to panic.
	Value interface{}
	// Stack is the goroutine's stack when the panic was recovered, as
	// runtime/debug.Stack gives it.
	Stack []byte
}

// Error returns "panic: " and the panic value: the message the report
// records for the vertex.
func (p *PanicError) Error() string {
	return fmt.Sprintf("panic: %v", p.Value)
}

// Unwrap returns the panic value when it is an error (as for runtime
// errors), so errors.Is and errors.As see through the panic.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// cancelledMessage is libdag's message for a cancelled walk, after the
// method's name.
var cancelledMessage = regexp.MustCompile(`the walk was cancelled; (\d+) vert(?:ex|ices) never ran` +
	`(?: and (\d+) (?:was cancelled after its callback|were cancelled after their callbacks) ran)?$`)

// recountCancelled moves `moved` vertices that libdag counted as cancelled
// after their callback ran (it handed them out) to those that never ran, as
// the report says of them.
func recountCancelled(message string, moved int) string {
	found := cancelledMessage.FindStringSubmatchIndex(message)
	if found == nil || moved == 0 {
		return message
	}
	neverRan, _ := strconv.Atoi(message[found[2]:found[3]])
	ran := 0
	if found[4] >= 0 {
		ran, _ = strconv.Atoi(message[found[4]:found[5]])
	}
	neverRan, ran = neverRan+moved, ran-moved
	text := fmt.Sprintf("the walk was cancelled; %d %s never ran", neverRan, plural(neverRan, "vertex", "vertices"))
	if ran > 0 {
		text += fmt.Sprintf(" and %d %s", ran, plural(ran, "was cancelled after its callback ran",
			"were cancelled after their callbacks ran"))
	}
	return message[:found[0]] + text
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
