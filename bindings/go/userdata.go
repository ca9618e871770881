package dag

// #include "shim.h"
import "C"

// SetUserData attaches a number of the caller's to a vertex: an index into
// a slice, a key into a map. libdag keeps it as the vertex's user data
// pointer, copied by Clone, Select and Subsume; Go pointers cannot be kept
// in C memory, so the package stores numbers only. New vertices have 0.
//
// The one change allowed during a walk: libdag lets a walk's vertices'
// numbers change while it runs (the graph's other changing methods fail
// with ErrBusy then); a callback reading the same vertex's number at the
// same time gets the old or the new one.
//
// Errors: ErrUnknownVertex, ErrBusy (called from a callback of a search of
// g), ErrClosed. libdag allows the change from a search's callback, but the
// search holds g only for reading: other goroutines may be reading the same
// vertex's number, a race libdag leaves to its caller. Change it once the
// search has returned.
func (g *Graph) SetUserData(id uint64, data uintptr) error {
	ptr, err := g.handle().beginWrite("SetUserData")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	var cerr *C.dag_error
	return check(C.dagbind_set_user_data(ptr, C.uint64_t(id), C.uintptr_t(data), &cerr), cerr)
}

// UserData returns the number SetUserData attached to a vertex (0 if none).
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) UserData(id uint64) (uintptr, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return 0, err
	}
	defer g.h.endRead()
	var data C.uintptr_t
	var cerr *C.dag_error
	if err := check(C.dagbind_user_data(ptr, C.uint64_t(id), &data, &cerr), cerr); err != nil {
		return 0, err
	}
	return uintptr(data), nil
}
