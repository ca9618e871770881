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
