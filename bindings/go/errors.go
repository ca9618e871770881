package dag

// #include <dag/dag.h>
import "C"

import (
	"context"
	"errors"
	"strings"
)

// Status is a libdag status code, as returned by every fallible C function.
// The numeric values are libdag's ABI and never change.
type Status int32

// The status codes of libdag. StatusOK is only ever seen in a Validation of a
// valid graph; errors always carry one of the others.
const (
	StatusOK              Status = C.DAG_OK
	StatusNullArgument    Status = C.DAG_E_NULL_ARGUMENT
	StatusInvalidArgument Status = C.DAG_E_INVALID_ARGUMENT
	StatusNoMemory        Status = C.DAG_E_NOMEM
	StatusUnknownVertex   Status = C.DAG_E_UNKNOWN_VERTEX
	StatusNotFound        Status = C.DAG_E_NOT_FOUND
	StatusDuplicateName   Status = C.DAG_E_DUPLICATE_NAME
	StatusBadUTF8         Status = C.DAG_E_BAD_UTF8
	StatusCycle           Status = C.DAG_E_CYCLE
	StatusBusy            Status = C.DAG_E_BUSY
	StatusNoRoot          Status = C.DAG_E_NO_ROOT
	StatusMultipleRoots   Status = C.DAG_E_MULTIPLE_ROOTS
	StatusInvalidGraph    Status = C.DAG_E_INVALID_GRAPH
	StatusState           Status = C.DAG_E_STATE
	StatusCancelled       Status = C.DAG_E_CANCELLED
	StatusParse           Status = C.DAG_E_PARSE
	StatusIO              Status = C.DAG_E_IO
	StatusInternal        Status = C.DAG_E_INTERNAL
	StatusWalkFailed      Status = C.DAG_E_WALK_FAILED
	// StatusCallback: a C++ exception escaped a function libdag called back
	// (libdag 1.2). This package's own callbacks never let one escape.
	StatusCallback Status = C.DAG_E_CALLBACK
	StatusTimeout  Status = C.DAG_E_TIMEOUT
)

// String returns libdag's short English description of the status ("unknown
// vertex"), or "unrecognised status" for a value libdag does not know.
func (s Status) String() string {
	return C.GoString(C.dag_status_string(C.dag_status(s)))
}

// Error is the error every failing call of this package returns, except a
// call on a closed (or nil) Graph or Builder: that returns ErrClosed, or,
// for a closed Builder, an error that matches ErrClosed with errors.Is and
// names the builder. Status says what kind of failure it is; Message is
// libdag's detailed text in Go's terms: the method, then the argument,
// vertex or input position at fault ("dag: Root: no roots found").
//
// Compare kinds with errors.Is against the Err* sentinels, which match any
// *Error of the same Status whatever its Message:
//
//	if errors.Is(err, dag.ErrCycle) { ... }
type Error struct {
	// Status is the kind of failure: the dag_status libdag returned.
	Status Status
	// Message is libdag's text with the Go method in place of the C
	// function, or this package's for failures it detects before calling
	// libdag ("dag: AddVertex: the name holds a NUL byte").
	Message string

	// cause is what made this package report the error, when that was not
	// libdag itself (a cancelled context.Context); reached through Unwrap.
	cause error
}

// Error returns Message, or "dag: " and the status's description when
// Message is empty (as for the sentinels).
func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return "dag: " + e.Status.String()
}

// Is reports whether target is an *Error with the same Status, so that
// errors.Is(err, ErrCycle) holds for every cycle error, whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t.Status == e.Status
}

// Unwrap returns the error that caused this one outside libdag (the
// context's error for a walk cancelled through WalkOptions.Context), or nil.
func (e *Error) Unwrap() error {
	return e.cause
}

// Sentinels for errors.Is, one per failure status a method can return
// (StatusTimeout, which only libdag's timed waits give, has none). Each is
// an *Error with an empty Message; Error.Is matches on Status alone.
var (
	ErrNullArgument    = &Error{Status: StatusNullArgument}
	ErrInvalidArgument = &Error{Status: StatusInvalidArgument}
	ErrNoMemory        = &Error{Status: StatusNoMemory}
	ErrUnknownVertex   = &Error{Status: StatusUnknownVertex}
	ErrNotFound        = &Error{Status: StatusNotFound}
	ErrDuplicateName   = &Error{Status: StatusDuplicateName}
	ErrBadUTF8         = &Error{Status: StatusBadUTF8}
	ErrCycle           = &Error{Status: StatusCycle}
	ErrBusy            = &Error{Status: StatusBusy}
	ErrNoRoot          = &Error{Status: StatusNoRoot}
	ErrMultipleRoots   = &Error{Status: StatusMultipleRoots}
	ErrInvalidGraph    = &Error{Status: StatusInvalidGraph}
	ErrState           = &Error{Status: StatusState}
	ErrCancelled       = &Error{Status: StatusCancelled}
	ErrParse           = &Error{Status: StatusParse}
	ErrIO              = &Error{Status: StatusIO}
	ErrInternal        = &Error{Status: StatusInternal}
	ErrWalkFailed      = &Error{Status: StatusWalkFailed}
	ErrCallback        = &Error{Status: StatusCallback}
)

// ErrClosed is returned by every method of a Graph that has been closed
// (and of a nil *Graph), and matched (errors.Is) by the error of a closed
// Builder. Neither is an *Error: libdag never sees the call.
var ErrClosed = errors.New("dag: graph is closed")

// check turns a C call's result into a Go error and frees the C error
// object. The status comes from the return value, not from the error
// object: when libdag cannot allocate the object it hands out a static
// "out of memory" one whatever the failure was, and the return value still
// tells the real status.
func check(status C.dag_status, cerr *C.dag_error) error {
	if status == C.DAG_OK {
		// On success libdag sets *err to NULL; an error object there all
		// the same is freed, and none costs no call into C.
		if cerr != nil {
			C.dag_error_free(cerr)
		}
		return nil
	}
	e := &Error{Status: Status(status), Message: goMessage(C.GoString(C.dag_error_message(cerr)))}
	C.dag_error_free(cerr)
	return e
}

// newError builds an error that this package detects itself, before
// libdag is called (a NUL byte in a name, a negative count), worded like
// libdag's own: the operation first.
func newError(status Status, op, text string) *Error {
	return &Error{Status: status, Message: "dag: " + op + ": " + text}
}

// inMethod heads err, an *Error headed by op, with method instead; any
// other error comes back as it is.
func inMethod(err error, op, method string) error {
	if e, ok := err.(*Error); ok && strings.HasPrefix(e.Message, "dag: "+op+": ") {
		e.Message = "dag: " + method + ": " + strings.TrimPrefix(e.Message, "dag: "+op+": ")
	}
	return err
}

// cancelledBy is the error of a call that ctx, done, stopped before libdag
// was asked for anything: ErrCancelled, wrapping ctx.Err().
func cancelledBy(op string, ctx context.Context) *Error {
	return &Error{Status: StatusCancelled, Message: "dag: " + op + ": " + ctx.Err().Error(), cause: ctx.Err()}
}
