package dag

// OnVertexHandedOut makes f run in Walk as each vertex is about to be
// given to fn, until the returned function restores the default.
func OnVertexHandedOut(f func(v Vertex)) (restore func()) {
	vertexHandedOut = f
	return func() { vertexHandedOut = func(Vertex) {} }
}

// OnContextCancel makes f run each time a done context has cancelled a
// walk in libdag, until the returned function restores the default.
func OnContextCancel(f func()) (restore func()) {
	contextCancelLanded = f
	return func() { contextCancelLanded = func() {} }
}

// OnSearchCallback makes f run each time libdag calls a Search callback
// (the predicate searches' included), until the returned function
// restores the default.
func OnSearchCallback(f func()) (restore func()) {
	searchCalledBack = f
	return func() { searchCalledBack = func() {} }
}

// WritersWaiting is how many calls wait for g's lock to change g (or to
// start a walk of it).
func WritersWaiting(g *Graph) int {
	g.h.mu.Lock()
	defer g.h.mu.Unlock()
	return g.h.waiting
}

// ReadersWaiting is how many readers of g wait behind a writer.
func ReadersWaiting(g *Graph) int {
	g.h.mu.Lock()
	defer g.h.mu.Unlock()
	return g.h.readersWaiting
}
