package dag

// #include <dag/dag.h>
import "C"

import (
	"sort"
	"time"
)

// VertexStatus is how a vertex ended in a walk. The values are libdag's ABI.
type VertexStatus int32

const (
	// VertexNotRun: never started, because FailFast stopped the walk.
	VertexNotRun VertexStatus = C.DAG_VERTEX_NOT_RUN
	// VertexOK: its callback returned nil.
	VertexOK VertexStatus = C.DAG_VERTEX_OK
	// VertexFailed: its callback returned an error or panicked.
	VertexFailed VertexStatus = C.DAG_VERTEX_FAILED
	// VertexUpstreamFailed: skipped because a dependency did not finish ok;
	// not an error of its own.
	VertexUpstreamFailed VertexStatus = C.DAG_VERTEX_UPSTREAM_FAILED
	// VertexCancelled: never started because the walk was cancelled.
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
	// callback that returned err, or libdag's note for a vertex that did
	// not finish by itself ("cancelled while pending").
	Message string
	// Err is the error the callback returned (a *PanicError if it
	// panicked); nil unless Status is VertexFailed.
	Err error
	// Ran reports whether the callback was called.
	Ran bool
	// Start and End are when the callback started and returned, measured
	// from the start of the walk; both 0 if it never ran. Start is never
	// before the End of any dependency.
	Start, End time.Duration
}

// WalkReport is the outcome of a walk, vertex by vertex. It is a plain Go
// value: nothing to free, safe to share once Walk has returned it.
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

	counts map[VertexStatus]int
}

// OK reports whether every vertex finished ok.
func (r *WalkReport) OK() bool {
	return r.counts[VertexOK] == len(r.Vertices)
}

// Count returns how many vertices finished with status s.
func (r *WalkReport) Count(s VertexStatus) int {
	return r.counts[s]
}

// Result returns the outcome of vertex id, and false if id was not part of
// the walk.
func (r *WalkReport) Result(id uint64) (VertexResult, bool) {
	i := sort.Search(len(r.Vertices), func(i int) bool { return r.Vertices[i].ID >= id })
	if i < len(r.Vertices) && r.Vertices[i].ID == id {
		return r.Vertices[i], true
	}
	return VertexResult{}, false
}

// Err returns nil when every vertex finished ok, else an *Error: ErrCancelled
// for a cancelled walk, otherwise ErrWalkFailed with FirstErrorMessage.
func (r *WalkReport) Err() error {
	switch {
	case r.OK():
		return nil
	case r.Cancelled:
		return &Error{Status: StatusCancelled, Message: "dag: walk cancelled"}
	case r.FirstErrorMessage != "":
		return &Error{Status: StatusWalkFailed, Message: r.FirstErrorMessage}
	default:
		return &Error{Status: StatusWalkFailed}
	}
}

// takeReport copies a C report into Go, attaching the callbacks' own
// errors, and frees it.
func takeReport(report *C.dag_walk_report, w *walkState) (*WalkReport, error) {
	defer C.dag_walk_report_free(report)
	var ids *C.dag_ids
	var cerr *C.dag_error
	if err := check(C.dag_walk_report_vertices(report, &ids, &cerr), cerr); err != nil {
		return nil, err
	}
	vertices := takeIDs(ids)
	r := &WalkReport{
		Vertices:  make([]VertexResult, len(vertices)),
		Cancelled: C.dag_walk_report_cancelled(report) != 0,
		counts:    make(map[VertexStatus]int),
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, id := range vertices {
		var status C.dag_vertex_status
		var message *C.char
		var start, end C.int64_t
		if err := check(C.dag_walk_report_vertex(report, C.uint64_t(id), &status, &message, &start, &end, &cerr), cerr); err != nil {
			return nil, err
		}
		v := VertexResult{
			ID:      id,
			Status:  VertexStatus(status),
			Message: C.GoString(message),
			Ran:     C.dag_walk_report_ran(report, C.uint64_t(id)) != 0,
			Start:   time.Duration(start),
			End:     time.Duration(end),
		}
		if v.Status == VertexFailed {
			v.Err = w.errs[id]
		}
		r.Vertices[i] = v
		r.counts[v.Status]++
	}
	var first *C.char
	r.FirstError = uint64(C.dag_walk_report_first_error(report, &first))
	r.FirstErrorMessage = C.GoString(first)
	return r, nil
}
