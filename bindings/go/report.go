package dag

// #include <dag/dag.h>
import "C"

import (
	"sort"
	"sync"
	"time"
	"unsafe"
)

// VertexStatus is how a vertex ended in a walk. The values are libdag's ABI.
type VertexStatus int32

const (
	// VertexNotRun: never started, because FailFast stopped the walk or
	// an update removed it.
	VertexNotRun VertexStatus = C.DAG_VERTEX_NOT_RUN
	// VertexOK: its callback returned nil.
	VertexOK VertexStatus = C.DAG_VERTEX_OK
	// VertexFailed: its callback returned an error or panicked.
	VertexFailed VertexStatus = C.DAG_VERTEX_FAILED
	// VertexUpstreamFailed: skipped because a dependency did not finish ok;
	// not an error of its own.
	VertexUpstreamFailed VertexStatus = C.DAG_VERTEX_UPSTREAM_FAILED
	// VertexCancelled: the walk was cancelled before the vertex started
	// (Ran is false), or, in Walk, while its callback ran and the callback
	// then returned an error (Ran is true, Err holds the error).
	VertexCancelled VertexStatus = C.DAG_VERTEX_CANCELLED
)

// String returns libdag's name of the status ("upstream-failed"), or
// "unknown".
func (s VertexStatus) String() string {
	return C.GoString(C.dag_vertex_status_string(C.dag_vertex_status(s)))
}

// VertexResult is one vertex's outcome in a walk.
type VertexResult struct {
	// ID is the vertex.
	ID uint64
	// Status is how it ended.
	Status VertexStatus
	// Message is the failure message ("" if none): err.Error() for a
	// callback that returned err, or a note for a vertex that did not
	// finish by itself ("cancelled while running: context canceled").
	Message string
	// Err is the error the callback returned (a *PanicError if it
	// panicked); nil unless Status is VertexFailed, or VertexCancelled
	// with Ran true.
	Err error
	// Ran reports whether the callback was called.
	Ran bool
	// Start and End are when the callback started and returned, measured
	// from the start of the walk; both 0 if it never ran or the walk had
	// NoTimestamps. Start is never before the End of any dependency.
	Start, End time.Duration
	// Attempts is how many times the callback was called: 0 if it never
	// ran, more than 1 when failed attempts were tried again
	// (WalkOptions.Retries).
	Attempts int
	// AttemptMessages holds each attempt's message, oldest first ("" for
	// none), when the vertex ran more than once; nil otherwise.
	AttemptMessages []string
}

// WalkReport is the outcome of a walk, vertex by vertex. It is a plain Go
// value: nothing to free, safe to share once the walk has returned it.
type WalkReport struct {
	// Vertices holds every vertex of the walk, by ascending id.
	Vertices []VertexResult
	// FirstError is the first vertex that failed, NoVertex if none did.
	FirstError uint64
	// FirstErrorMessage is "vertex NAME failed: MESSAGE" ("vertex NAME
	// failed" without a message) for FirstError, "" if nothing failed.
	FirstErrorMessage string
	// Cancelled reports whether the walk was cancelled.
	Cancelled bool

	counts [VertexCancelled + 1]int
	// cause is what cancelled the walk (the context's error), if known.
	cause error
	// handedOutNotRun counts the vertices libdag handed out, and so counts
	// as run, whose fn was never called (the context was done first).
	handedOutNotRun int
	// firstErr is the error FirstError's callback returned.
	firstErr error
}

// OK reports whether the walk went well: not cancelled, and no vertex
// failed or was skipped for a failure (a vertex that Vertex.Apply removed
// before it started, VertexNotRun, does not count against it); false for
// a nil report (a walk that did not run).
func (r *WalkReport) OK() bool {
	return r != nil && !r.Cancelled && r.FirstError == NoVertex &&
		r.counts[VertexFailed]+r.counts[VertexUpstreamFailed]+r.counts[VertexCancelled] == 0
}

// Count returns how many vertices finished with status s.
func (r *WalkReport) Count(s VertexStatus) int {
	if r == nil || s < 0 || int(s) >= len(r.counts) {
		return 0
	}
	return r.counts[s]
}

// Result returns the outcome of vertex id, and false if id was not part of
// the walk.
func (r *WalkReport) Result(id uint64) (VertexResult, bool) {
	if v, ok := r.find(id); ok {
		return *v, true
	}
	return VertexResult{}, false
}

// Err returns nil when every vertex finished ok, else an *Error. For a
// walk in which a vertex failed: ErrWalkFailed with FirstErrorMessage,
// wrapping the error FirstError's callback returned, so that errors.Is and
// errors.As reach it. Otherwise, for a cancelled walk: ErrCancelled,
// wrapping the context's error where a context cancelled it. A nil report
// (what Walk returns with an error when nothing ran) gives ErrState.
func (r *WalkReport) Err() error {
	switch {
	case r == nil:
		return &Error{Status: StatusState, Message: "dag: no walk report: the walk did not run"}
	case r.OK():
		return nil
	case r.FirstError != NoVertex:
		return &Error{Status: StatusWalkFailed, Message: r.FirstErrorMessage, cause: r.firstErr}
	case r.Cancelled:
		message := "dag: walk cancelled"
		if r.cause != nil {
			message += ": " + r.cause.Error()
		}
		return &Error{Status: StatusCancelled, Message: message, cause: r.cause}
	default:
		return &Error{Status: StatusWalkFailed, Message: "dag: walk failed"}
	}
}

// outcomes is what a walk's Go side knows about its vertices beyond
// libdag's report: the errors callbacks returned.
type outcomes struct {
	mu sync.Mutex
	// errs holds the error each failed callback returned.
	errs map[uint64]error
	// interrupted holds the vertices whose callback returned an error once
	// the walk was cancelled: completed as cancelled (DAG_WALK_CANCELLED),
	// so that they and their dependents are reported cancelled.
	interrupted map[uint64]bool
	// retries is set when a vertex may run more than once: the report
	// then asks libdag for each vertex's attempts.
	retries bool
}

// failed records err as vertex's error.
// forget drops what failed recorded for vertex, whose completion libdag
// refused: an expanded vertex ends with its sub-walk, whatever fn returned.
func (o *outcomes) forget(vertex uint64) {
	o.mu.Lock()
	delete(o.errs, vertex)
	delete(o.interrupted, vertex)
	o.mu.Unlock()
}

func (o *outcomes) failed(vertex uint64, err error, interrupted bool) {
	o.mu.Lock()
	if o.errs == nil {
		o.errs = make(map[uint64]error)
		o.interrupted = make(map[uint64]bool)
	}
	o.errs[vertex] = err
	if interrupted {
		o.interrupted[vertex] = true
	}
	o.mu.Unlock()
}

// reportChunk is how many outcomes takeReport reads per call.
const reportChunk = 1024

// takeReport copies a C report into Go, attaching the callbacks' own
// errors, and frees it.
func takeReport(report *C.dag_walk_report, o *outcomes) (*WalkReport, error) {
	defer C.dag_walk_report_free(report)
	n := int(C.dag_walk_report_size(report))
	r := &WalkReport{
		Vertices:  make([]VertexResult, n),
		Cancelled: C.dag_walk_report_cancelled(report) != 0,
	}
	chunk := make([]C.dag_vertex_outcome, reportChunk)
	for first := 0; first < n; {
		var written C.size_t
		var cerr *C.dag_error
		if err := check(C.dag_walk_report_read(report, C.size_t(first), &chunk[0], C.size_t(len(chunk)),
			C.size_t(unsafe.Sizeof(chunk[0])), &written, &cerr), cerr); err != nil {
			return nil, err
		}
		if written == 0 {
			return nil, newError(StatusInternal, "Walk", "the report has fewer vertices than it says")
		}
		for i, c := range chunk[:written] {
			v := &r.Vertices[first+i]
			v.ID = uint64(c.vertex)
			v.Status = VertexStatus(c.status)
			v.Ran = c.ran != 0
			v.Start = time.Duration(c.start_ns)
			v.End = time.Duration(c.end_ns)
			if *c.message != 0 {
				v.Message = C.GoString(c.message)
			}
			if v.Ran {
				v.Attempts = 1
			}
		}
		first += int(written)
	}
	if o.retries {
		if err := readAttempts(report, r.Vertices); err != nil {
			return nil, err
		}
	}
	for s := range r.counts {
		r.counts[s] = int(C.dag_walk_report_count(report, C.dag_vertex_status(s)))
	}
	var first *C.char
	r.FirstError = uint64(C.dag_walk_report_first_error(report, &first))
	r.FirstErrorMessage = C.GoString(first)
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, err := range o.errs {
		v, ok := r.find(id)
		if !ok {
			continue
		}
		if _, before := err.(notStarted); before {
			// Handed out, but fn was never called (see pullRun.work).
			if v.Ran {
				r.handedOutNotRun++
			}
			v.Ran, v.Attempts, v.Start, v.End = false, 0, 0, 0
			continue
		}
		if stopped, ok := err.(retryStopped); ok {
			// Its last hand-out was a retry that the cancellation kept
			// from running: libdag counted it, fn never ran it.
			err = stopped.last
			if v.Attempts > 1 {
				v.Attempts--
				v.AttemptMessages = v.AttemptMessages[:v.Attempts]
			}
			if v.Attempts < 2 {
				v.AttemptMessages = nil
			}
		}
		if v.Status == VertexFailed || (o.interrupted[id] && v.Status == VertexCancelled) {
			v.Err = err
		}
	}
	r.firstErr = o.errs[r.FirstError]
	if stopped, ok := r.firstErr.(retryStopped); ok {
		r.firstErr = stopped.last
	}
	return r, nil
}

// readAttempts fills in the attempts of the vertices that ran.
func readAttempts(report *C.dag_walk_report, vertices []VertexResult) error {
	for i := range vertices {
		v := &vertices[i]
		if !v.Ran {
			continue
		}
		var n C.size_t
		var cerr *C.dag_error
		if err := check(C.dag_walk_report_attempts(report, C.uint64_t(v.ID), &n, &cerr), cerr); err != nil {
			return err
		}
		v.Attempts = int(n)
		if n < 2 {
			continue
		}
		v.AttemptMessages = make([]string, n)
		for a := range v.AttemptMessages {
			var text *C.char
			if err := check(C.dag_walk_report_attempt_message(report, C.uint64_t(v.ID), C.size_t(a), &text, &cerr), cerr); err != nil {
				return err
			}
			v.AttemptMessages[a] = C.GoString(text)
		}
	}
	return nil
}

// find returns a pointer to vertex id's result.
func (r *WalkReport) find(id uint64) (*VertexResult, bool) {
	if r == nil {
		return nil, false
	}
	i := sort.Search(len(r.Vertices), func(i int) bool { return r.Vertices[i].ID >= id })
	if i < len(r.Vertices) && r.Vertices[i].ID == id {
		return &r.Vertices[i], true
	}
	return nil, false
}
