package dag

// #include <dag/dag.h>
import "C"

// Terraform's names for these algorithms mislead; with a -> b -> c (a
// depends on b, b depends on c):
//
//	Ancestors(a)               = [b c]   everything a depends on
//	Descendants(c)             = [a b]   everything that depends on c
//	Root()                     = a       the vertex nothing depends on
//	TopologicalOrder()         = [a b c] dependents first
//	ReverseTopologicalOrder()  = [c b a] execution order
//
// Where several answers would be valid, ties are broken by name, then by
// id, an unnamed vertex counting as the empty name.

// Root returns the single vertex nothing depends on (Terraform's Root).
//
// Errors: ErrNoRoot (also for an empty graph), ErrMultipleRoots (the
// message lists them: "dag: Root: multiple roots: a, b"), ErrClosed.
func (g *Graph) Root() (uint64, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return NoVertex, err
	}
	defer g.h.endRead()
	var root C.uint64_t
	var cerr *C.dag_error
	if err := check(C.dag_root(ptr, &root, &cerr), cerr); err != nil {
		return NoVertex, err
	}
	return uint64(root), nil
}

// StronglyConnected returns the strongly connected components (Tarjan).
// Every vertex is in exactly one; a vertex on no cycle is a component of
// its own. Components come after every component they depend on. With
// a -> b, b -> a, b -> c (ids in that order) the result is [[c] [b a]].
//
// Errors: ErrNoMemory, ErrClosed.
func (g *Graph) StronglyConnected() ([][]uint64, error) {
	return g.idLists(func(ptr *C.dag_graph, out **C.dag_id_lists, cerr **C.dag_error) C.dag_status {
		return C.dag_strongly_connected(ptr, out, cerr)
	})
}

// Cycles returns every cycle (component of more than one vertex), each
// ordered and the list sorted as Validate reports them. Self references are
// not cycles here; Validate lists them. An acyclic graph gives an empty
// list.
//
// Errors: ErrNoMemory, ErrClosed.
func (g *Graph) Cycles() ([][]uint64, error) {
	return g.idLists(func(ptr *C.dag_graph, out **C.dag_id_lists, cerr **C.dag_error) C.dag_status {
		return C.dag_cycles(ptr, out, cerr)
	})
}

func (g *Graph) idLists(call func(*C.dag_graph, **C.dag_id_lists, **C.dag_error) C.dag_status) ([][]uint64, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	var out *C.dag_id_lists
	var cerr *C.dag_error
	if err := check(call(ptr, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return takeIDLists(out), nil
}

// TransitiveReduction removes, in place, every edge a -> c for which another
// path from a to c exists, and returns how many it removed. Reachability
// stays the same: with a -> b, b -> c and a -> c, the edge a -> c goes.
//
// Errors: ErrCycle (the graph has a cycle or a self reference; the message
// lists each as Validate does, and the graph is unchanged), ErrBusy,
// ErrNoMemory, ErrClosed.
func (g *Graph) TransitiveReduction() (int, error) {
	ptr, err := g.handle().beginWrite("TransitiveReduction")
	if err != nil {
		return 0, err
	}
	defer g.h.endWrite()
	var removed C.size_t
	var cerr *C.dag_error
	if err := check(C.dag_transitive_reduction(ptr, &removed, &cerr), cerr); err != nil {
		return 0, err
	}
	return int(removed), nil
}

// TopologicalOrder returns every vertex before its dependencies (dependents
// first), Terraform's TopologicalOrder. Among vertices free at the same
// moment the smallest name goes first, then the smallest id.
//
// Errors: ErrCycle (a self reference alone counts too; the message is
// Validate's wording), ErrNoMemory, ErrClosed.
func (g *Graph) TopologicalOrder() ([]uint64, error) {
	return g.order(false)
}

// ReverseTopologicalOrder returns every vertex after its dependencies: the
// order a sequential run executes them, Terraform's
// ReverseTopologicalOrder. It is not simply TopologicalOrder reversed: ties
// are broken among the vertices free first in this direction.
//
// Errors: as TopologicalOrder.
func (g *Graph) ReverseTopologicalOrder() ([]uint64, error) {
	return g.order(true)
}

func (g *Graph) order(reverse bool) ([]uint64, error) {
	return g.readIDs(func(p *C.dag_graph, out **C.dag_ids, e **C.dag_error) C.dag_status {
		if reverse {
			return C.dag_reverse_topological_order(p, out, e)
		}
		return C.dag_topological_order(p, out, e)
	})
}

// Ancestors returns everything the given vertices depend on, transitively
// (Terraform's Ancestors), ascending. A given vertex is in the result only
// when another given vertex, or a cycle, reaches it. With a -> b -> c,
// Ancestors(a) is [b c] and Ancestors(c) is [].
//
// Errors: ErrUnknownVertex (nothing is searched), ErrClosed.
func (g *Graph) Ancestors(ids ...uint64) ([]uint64, error) {
	return g.reach(ids, false)
}

// Descendants returns everything that depends on the given vertices,
// transitively (Terraform's Descendants), ascending. With a -> b -> c,
// Descendants(c) is [a b] and Descendants(a) is [].
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) Descendants(ids ...uint64) ([]uint64, error) {
	return g.reach(ids, true)
}

func (g *Graph) reach(ids []uint64, descendants bool) ([]uint64, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	data, count := idsArg(ids)
	var out *C.dag_ids
	var cerr *C.dag_error
	var status C.dag_status
	if descendants {
		status = C.dag_descendants(ptr, data, count, &out, &cerr)
	} else {
		status = C.dag_ancestors(ptr, data, count, &out, &cerr)
	}
	if err := check(status, cerr); err != nil {
		return nil, err
	}
	return takeIDs(out), nil
}
