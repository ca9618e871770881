package dag

// #include "shim.h"
import "C"

import "runtime"

// WalkUpdate is a batch of changes to a running walk: vertices to add and
// remove, edges to add and remove, applied all or nothing by Vertex.Apply.
// Unlike a Graph it is not safe for concurrent use: build it on one
// goroutine at a time. Close it when done (a finalizer frees a forgotten
// one). Each method keeps the batch alive until its C call has returned
// (runtime.KeepAlive): once u.ptr is read, nothing else keeps u, and the
// finalizer could free the batch during the call.
type WalkUpdate struct {
	ptr *C.dag_walk_update
}

// NewWalkUpdate returns an empty batch.
func NewWalkUpdate() (*WalkUpdate, error) {
	var ptr *C.dag_walk_update
	var cerr *C.dag_error
	if err := check(C.dag_walk_update_new(&ptr, &cerr), cerr); err != nil {
		return nil, err
	}
	u := &WalkUpdate{ptr: ptr}
	runtime.SetFinalizer(u, (*WalkUpdate).Close)
	return u, nil
}

// Close frees the batch. It is idempotent and always returns nil (it
// implements io.Closer, as Graph and Builder do); every later method
// returns ErrState.
func (u *WalkUpdate) Close() error {
	if u == nil || u.ptr == nil {
		return nil
	}
	runtime.SetFinalizer(u, nil)
	C.dag_walk_update_free(u.ptr)
	u.ptr = nil
	return nil
}

func (u *WalkUpdate) live(op string) error {
	if u == nil || u.ptr == nil {
		return newError(StatusState, op, "the update is closed")
	}
	return nil
}

// AddVertex adds a new vertex to the batch, named name ("" for none; the
// name must be free when the batch is applied), with the user data of
// SetUserData, running even after a dependency failed when alwaysRun is
// set. It returns a provisional id that names the vertex in Connect and
// Disconnect of the same batch; Apply returns the real ids.
//
// Errors: ErrBadUTF8, ErrInvalidArgument (NUL byte), ErrState (closed).
func (u *WalkUpdate) AddVertex(name string, data uintptr, alwaysRun bool) (uint64, error) {
	if err := u.live("WalkUpdate.AddVertex"); err != nil {
		return NoVertex, err
	}
	var cname *C.char
	if name != "" {
		var err error
		if cname, err = cString("WalkUpdate.AddVertex", "the name", name); err != nil {
			return NoVertex, err
		}
		defer freeString(cname)
	}
	var id C.uint64_t
	var cerr *C.dag_error
	err := check(C.dagbind_update_add_vertex(u.ptr, cname, C.uintptr_t(data), cbool(alwaysRun), &id, &cerr), cerr)
	runtime.KeepAlive(u)
	if err != nil {
		return NoVertex, err
	}
	return uint64(id), nil
}

// Connect adds the edge from -> to (from depends on to); either may be a
// provisional id. Applying refuses an edge whose dependent has already
// started, even on a dependency that has finished (the walk could not
// honour it).
func (u *WalkUpdate) Connect(from, to uint64) error {
	if err := u.live("WalkUpdate.Connect"); err != nil {
		return err
	}
	var cerr *C.dag_error
	err := check(C.dag_walk_update_connect(u.ptr, C.uint64_t(from), C.uint64_t(to), &cerr), cerr)
	runtime.KeepAlive(u)
	return err
}

// Disconnect removes the edge from -> to.
func (u *WalkUpdate) Disconnect(from, to uint64) error {
	if err := u.live("WalkUpdate.Disconnect"); err != nil {
		return err
	}
	var cerr *C.dag_error
	err := check(C.dag_walk_update_disconnect(u.ptr, C.uint64_t(from), C.uint64_t(to), &cerr), cerr)
	runtime.KeepAlive(u)
	return err
}

// RemoveVertex removes a vertex that has not started (nor been skipped or
// cancelled), and its edges; it is then reported VertexNotRun.
func (u *WalkUpdate) RemoveVertex(id uint64) error {
	if err := u.live("WalkUpdate.RemoveVertex"); err != nil {
		return err
	}
	var cerr *C.dag_error
	err := check(C.dag_walk_update_remove_vertex(u.ptr, C.uint64_t(id), &cerr), cerr)
	runtime.KeepAlive(u)
	return err
}

// Apply applies the batch to the running walk that v belongs to (its
// sub-walk, for a vertex of an expanded sub-graph) and to its graph, all
// or nothing, and returns the real ids of the added vertices in the order
// they were added. New vertices run once their dependencies have finished,
// with Walk's callback. The batch is not changed.
//
// Errors: ErrUnknownVertex, ErrDuplicateName, ErrCycle (the batch would
// make a cycle), ErrInvalidArgument (an edge touching a removed vertex),
// ErrState (a vertex that has started, or ended without starting, would get
// a dependency or be removed;
// the walk has ended; the update is closed).
func (v Vertex) Apply(u *WalkUpdate) ([]uint64, error) {
	if err := u.live("Vertex.Apply"); err != nil {
		return nil, err
	}
	var ids []uint64
	err := v.run.alive("Vertex.Apply", func() error {
		var out *C.dag_ids
		var cerr *C.dag_error
		if err := check(C.dag_walk_apply(v.walk, u.ptr, &out, &cerr), cerr); err != nil {
			return err
		}
		ids = takeIDs(out)
		return nil
	})
	runtime.KeepAlive(u)
	return ids, err
}
