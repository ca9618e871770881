package dag

// OnContextCancel makes f run each time a done context has cancelled a
// walk in libdag, until the returned function restores the default.
func OnContextCancel(f func()) (restore func()) {
	contextCancelLanded = f
	return func() { contextCancelLanded = func() {} }
}
