package dag

// #include <dag/dag.h>
import "C"

// SelectFlags change what Select keeps; combine with |. 0 keeps the
// targets and what they depend on.
type SelectFlags uint

const (
	// SelectDependents keeps what depends on the targets (a destroy)
	// instead of what they depend on, and excludes what the excluded
	// vertices depend on.
	SelectDependents SelectFlags = C.DAG_SELECT_DEPENDENTS
	// SelectAll makes every vertex a target: only the exclusion narrows
	// the graph (targets is ignored).
	SelectAll SelectFlags = C.DAG_SELECT_ALL
)

// Select returns a new graph with the part of g that a partial run needs:
// Terraform's -target and OpenTofu's -exclude. It holds the targets and
// everything they depend on (with SelectDependents, everything that depends
// on them), less the excluded vertices and everything that depends on them
// (with SelectDependents, everything they depend on), under the same ids
// and names, with every edge of g between them. With a -> b -> c, targets
// [b] select {b, c}. g is only read: it may be being walked.
//
// Errors: ErrUnknownVertex (a target or excluded id), ErrInvalidArgument
// (unknown flags), ErrClosed.
func (g *Graph) Select(targets, excludes []uint64, flags SelectFlags) (*Graph, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	t, tn := idsArg(targets)
	e, en := idsArg(excludes)
	var out *C.dag_graph
	var cerr *C.dag_error
	if err := check(C.dag_select(ptr, t, tn, e, en, C.uint(flags), &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(out), nil
}
