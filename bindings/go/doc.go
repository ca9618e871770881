// Package dag builds, checks and walks dependency graphs with the semantics
// of Terraform's internal/dag, through libdag's C API.
//
// An edge a -> b, made by g.Connect(a, b), means "a depends on b": b's work
// happens before a's. Terraform's names are kept, and they mislead: the
// ancestors of a vertex are what it depends on, its descendants what
// depends on it, and the root is the vertex nothing depends on.
//
//	g, err := dag.New()
//	if err != nil { ... }
//	defer g.Close()
//	web, _ := g.AddVertex("aws_instance.web")
//	db, _ := g.AddVertex("aws_db_instance.main")
//	_ = g.Connect(web, db) // web depends on db
//	report, err := dag.Walk(ctx, g, func(ctx context.Context, v dag.Vertex) error {
//		name, _ := v.Name()
//		return deploy(ctx, name) // db first, then web, each on a goroutine
//	}, dag.WalkOptions{})
//
// # Errors
//
// Failing calls return an *Error carrying libdag's status and message, in
// Go's terms ("dag: Root: no roots found"); match kinds with errors.Is
// against the Err* sentinels (ErrCycle, ErrUnknownVertex, ErrBusy...).
// Methods of a closed Graph return ErrClosed, and those of a closed Builder
// an error matching it with errors.Is; neither is an *Error. Messages
// travel with the error value, never through thread-local state, so
// nothing is lost when the runtime moves a goroutine between threads.
//
// # Goroutines
//
// A Graph may be shared between goroutines: reads run concurrently, changes
// run alone. Changes fail with ErrBusy during a walk (but SetUserData,
// which libdag allows then) and from a search's callback (SetUserData too:
// libdag would allow it there, but the search holds the graph only for
// reading, so other goroutines may be reading the same vertex's number, a
// race libdag leaves to its caller). Walk runs each vertex on a goroutine
// of its own; Graph.Walk's callbacks run on libdag's own threads; search
// callbacks (Traverse, FirstAncestorsWith...) run on the calling goroutine.
// Panics in callbacks never cross into libdag: a walk records them as
// failed vertices, a search ends and panics again in its caller.
//
// # Building
//
// The module, libdag/bindings/go, is used from a checkout of the
// repository, through a replace directive or a go.work workspace; import
// it as dag. By default the package links the checkout's build/ (where the
// project builds libdag); name another directory with
//
//	CGO_LDFLAGS=-L/path/to/libdag/lib LD_LIBRARY_PATH=/path/to/libdag/lib go build
//
// or build with -tags libdag_pkgconfig to take an installed libdag from
// pkg-config. See README.md.
package dag
