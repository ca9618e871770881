package dag

// #include "shim.h"
import "C"

// Roots returns every vertex nothing depends on (no dependents), ascending:
// Root succeeds when there is exactly one. With a -> b and a -> c, Roots is
// [a] and Leaves is [b c]. A vertex with an edge to itself is neither.
//
// Errors: ErrClosed.
func (g *Graph) Roots() ([]uint64, error) {
	return g.list(false)
}

// Leaves returns every vertex that depends on nothing (no dependencies),
// ascending.
//
// Errors: ErrClosed.
func (g *Graph) Leaves() ([]uint64, error) {
	return g.list(true)
}

func (g *Graph) list(leaves bool) ([]uint64, error) {
	return g.readIDs(func(p *C.dag_graph, out **C.dag_ids, e **C.dag_error) C.dag_status {
		if leaves {
			return C.dag_leaves(p, out, e)
		}
		return C.dag_roots(p, out, e)
	})
}

// DependencyCount returns how many vertices id depends on directly (its
// out-degree, len(Dependencies(id))), in O(1). With a -> b and a -> c it is
// 2 for a and 0 for b.
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) DependencyCount(id uint64) (int, error) {
	return g.degree(id, false)
}

// DependentCount returns how many vertices depend on id directly (its
// in-degree, len(Dependents(id))), in O(1). With a -> b and a -> c it is 0
// for a and 1 for b.
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) DependentCount(id uint64) (int, error) {
	return g.degree(id, true)
}

func (g *Graph) degree(id uint64, dependents bool) (int, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return 0, err
	}
	defer g.h.endRead()
	var n C.size_t
	var cerr *C.dag_error
	var status C.dag_status
	if dependents {
		status = C.dag_dependent_count(ptr, C.uint64_t(id), &n, &cerr)
	} else {
		status = C.dag_dependency_count(ptr, C.uint64_t(id), &n, &cerr)
	}
	if err := check(status, cerr); err != nil {
		return 0, err
	}
	return int(n), nil
}
