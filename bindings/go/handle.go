package dag

// #include "shim.h"
import "C"

import (
	"context"
	"sync"
	"sync/atomic"
)

// handle owns one C graph and decides who may use it when.
//
// libdag lets functions taking `const dag_graph *` run concurrently and
// needs exclusive access for the others; Go code expects a value it can
// share between goroutines without crashing the process. handle is the
// readers-writer lock between the two. Like sync.RWMutex it makes new
// readers wait behind a waiting writer, so a stream of reads cannot starve
// a change. Unlike it, it copes with callbacks that use the graph they are
// called from:
//
//   - A search with a Go callback (Traverse, FirstAncestorsWith...) holds
//     the read lock while its callback may read the graph again. With
//     writer preference alone, a writer arriving in between would deadlock
//     both; and a change from the callback would wait for the search it is
//     part of. The callback runs on the thread that called into libdag
//     (cgo keeps the goroutine there), so each search records its thread:
//     a read from that thread skips the queue, and a change from it fails
//     with ErrBusy, as libdag answers a change from one of its callbacks.
//   - Close never waits: it marks the handle closed, and whoever releases
//     the last lock frees the C graph. A finalizer may therefore run while
//     a method of the Graph is still returning, and Close may be called
//     from a callback.
//
// A walk holds no lock while it runs (libdag itself refuses changes then
// and lets reads through), so its callbacks may read freely too.
//
// handle is separate from Graph because the condition variable points back
// into it; a finalizer on an object that points to itself would never run.
type handle struct {
	mu      sync.Mutex
	cond    sync.Cond
	ptr     *C.dag_graph
	readers int
	writer  bool
	waiting int // writers waiting for the lock
	// readersWaiting counts readers waiting behind a writer, for the tests
	// to see that a read waits.
	readersWaiting int
	closed         bool
	// searchThreads holds the thread of each search in progress (a thread
	// twice for a search inside another's callback).
	searchThreads []C.uintptr_t
	// order is unique per handle and fixes the order in which Subsume locks
	// two graphs, so that g.Subsume(h) and h.Subsume(g) cannot deadlock.
	order uint64
}

var handleOrder uint64

func newHandle(ptr *C.dag_graph) *handle {
	h := &handle{ptr: ptr, order: atomic.AddUint64(&handleOrder, 1)}
	h.cond.L = &h.mu
	return h
}

// beginRead takes the read lock and returns the graph to pass to functions
// taking `const dag_graph *`. Pair with endRead.
func (h *handle) beginRead() (*C.dag_graph, error) {
	if h == nil {
		return nil, ErrClosed
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.admitReaderLocked(); err != nil {
		return nil, err
	}
	return h.ptr, nil
}

func (h *handle) endRead() {
	h.mu.Lock()
	h.readers--
	h.releasedLocked()
	h.mu.Unlock()
}

// beginSearch is beginRead for a call that runs a Go callback while it
// holds the lock. The caller must have locked its goroutine to its thread
// (runtime.LockOSThread) until endSearch, and pass that thread.
func (h *handle) beginSearch(thread C.uintptr_t) (*C.dag_graph, error) {
	if h == nil {
		return nil, ErrClosed
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.admitReaderLocked(); err != nil {
		return nil, err
	}
	h.searchThreads = append(h.searchThreads, thread)
	return h.ptr, nil
}

func (h *handle) endSearch(thread C.uintptr_t) {
	h.mu.Lock()
	for i, t := range h.searchThreads {
		if t == thread {
			h.searchThreads = append(h.searchThreads[:i], h.searchThreads[i+1:]...)
			break
		}
	}
	h.readers--
	h.releasedLocked()
	h.mu.Unlock()
}

// admitReaderLocked waits until a reader may enter and counts it in.
// h.mu must be held.
func (h *handle) admitReaderLocked() error {
	// A read from a search's callback enters at once: the search holds the
	// read lock, so no writer is active, and a waiting writer waits for
	// the search, which waits for this read.
	nested := h.waiting > 0 && h.onSearchThreadLocked()
	for !h.closed && !nested && (h.writer || h.waiting > 0) {
		h.readersWaiting++
		h.cond.Wait()
		h.readersWaiting--
	}
	if h.closed {
		return ErrClosed
	}
	h.readers++
	return nil
}

// onSearchThreadLocked reports whether the caller runs on the thread of a
// search in progress, that is, in that search's callback: the search's
// goroutine is locked to its thread, and no other goroutine runs there
// until the search returns. h.mu must be held.
func (h *handle) onSearchThreadLocked() bool {
	if len(h.searchThreads) == 0 {
		return false
	}
	self := C.dagbind_thread()
	for _, t := range h.searchThreads {
		if t == self {
			return true
		}
	}
	return false
}

// beginWrite takes the lock exclusively and returns the graph to pass to
// functions taking `dag_graph *`. op names the calling method for the
// ErrBusy message. Pair with endWrite.
func (h *handle) beginWrite(op string) (*C.dag_graph, error) {
	return h.beginWriteContext(context.Background(), op)
}

// beginWriteContext is beginWrite that stops waiting once ctx is done,
// returning ErrCancelled wrapping ctx.Err(): a walk whose context ends
// while a search or a change holds the graph must not stay blocked until
// they let go. A lock that is free is taken whatever ctx says.
func (h *handle) beginWriteContext(ctx context.Context, op string) (*C.dag_graph, error) {
	if h == nil {
		return nil, ErrClosed
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if h.onSearchThreadLocked() {
		return nil, newError(StatusBusy, op,
			"called from a callback of a search of this graph (Traverse, FirstAncestorsWith...); the graph cannot change until the search returns")
	}
	if done := ctx.Done(); done != nil && (h.writer || h.readers > 0) {
		// The wait is on h.cond, which knows nothing of ctx: wake it when
		// ctx is done. A wake-up after the wait has ended finds nobody or
		// waiters that check their condition again.
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-done:
				h.mu.Lock()
				h.cond.Broadcast()
				h.mu.Unlock()
			case <-stop:
			}
		}()
	}
	h.waiting++
	for (h.writer || h.readers > 0) && ctx.Err() == nil {
		h.cond.Wait()
	}
	h.waiting--
	if h.closed {
		// Readers held back for this writer may go on, to find it closed.
		h.cond.Broadcast()
		return nil, ErrClosed
	}
	if h.writer || h.readers > 0 {
		// ctx is done: the readers held back for this writer may go on.
		h.cond.Broadcast()
		return nil, cancelledBy(op, ctx)
	}
	h.writer = true
	return h.ptr, nil
}

func (h *handle) endWrite() {
	h.mu.Lock()
	h.writer = false
	h.releasedLocked()
	h.mu.Unlock()
}

// releasedLocked wakes waiters and frees a closed graph once nobody uses
// it. h.mu must be held.
func (h *handle) releasedLocked() {
	if h.writer || h.readers > 0 {
		return
	}
	if h.closed && h.ptr != nil {
		// dag_free only releases memory: cheap enough to do under h.mu.
		C.dag_free(h.ptr)
		h.ptr = nil
	}
	h.cond.Broadcast()
}

// isClosed reports whether close has been called (a nil handle is closed).
func (h *handle) isClosed() bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// close marks the handle closed and frees the graph now if nobody uses it,
// else when the last user lets go. Idempotent.
func (h *handle) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	h.releasedLocked()
	h.mu.Unlock()
}
