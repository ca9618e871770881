package dag

// #include <dag/dag.h>
import "C"

import (
	"runtime"
	"strconv"
)

// NoVertex is never a valid vertex id (libdag's DAG_NO_VERTEX).
const NoVertex uint64 = 0

// Graph is a directed graph of vertices where an edge a -> b means "a
// depends on b": b's work happens before a's.
//
// Vertices are identified by uint64 ids that the graph assigns and never
// reuses; a vertex may also have a name, unique within the graph, by which
// Find looks it up.
//
// A Graph is safe for use by several goroutines at once. Reading methods
// run concurrently; changing methods (AddVertex, Connect, Subsume,
// TransitiveReduction...) wait for them and run alone, and a waiting change
// goes before reads that arrive after it. Two exceptions, both libdag's
// rules: while a walk runs, changing methods but SetUserData fail with
// ErrBusy on every goroutine; and a callback of a search (Traverse, FirstAncestorsWith,
// FirstDescendantsWith, MatchAncestor, MatchDescendant) may read the
// graph, but a change from it fails with ErrBusy, since it would wait for
// the search it is part of. Changes from other goroutines wait for the
// search to end, so a search callback must not wait for another goroutine
// that changes or reads the graph (the rule sync.RWMutex has for nested
// read locks). Nor may two searches of two graphs, each with a callback
// reading the other graph, run at once while changes of both wait: each
// callback's read waits behind the other graph's change, which waits for
// the other search (locks taken in opposite orders); read the other graph
// after the search, or search the two graphs in one order.
//
// Close frees the C graph; after it every method returns ErrClosed (or
// false, 0, "" where there is no error to return). A Graph that becomes
// unreachable without Close is freed by a finalizer, but only when the
// garbage collector runs: close graphs explicitly.
type Graph struct {
	h *handle
	// owner carries the finalizer: an allocation of its own, shared by
	// every copy of the Graph value. runtime.SetFinalizer needs a pointer to
	// the start of an allocation, which a Graph that is a struct's field or
	// a slice's element is not.
	owner *graphOwner
}

// graphOwner closes a graph none of whose copies is reachable any longer.
type graphOwner struct {
	h *handle
}

// New returns an empty graph. Close it when done.
func New() (*Graph, error) {
	var ptr *C.dag_graph
	var cerr *C.dag_error
	if err := check(C.dag_new(&ptr, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(ptr), nil
}

// wrap makes a Graph own ptr.
func wrap(ptr *C.dag_graph) *Graph {
	h := newHandle(ptr)
	owner := &graphOwner{h: h}
	runtime.SetFinalizer(owner, func(o *graphOwner) { o.h.close() })
	return &Graph{h: h, owner: owner}
}

// handle tolerates a nil *Graph, which then behaves as a closed one.
func (g *Graph) handle() *handle {
	if g == nil {
		return nil
	}
	return g.h
}

// Close frees the graph. It is idempotent and always returns nil (it
// implements io.Closer). It does not wait: calls in progress on other
// goroutines finish normally and the memory is released when the last one
// returns; a walk in progress goes on to its end with the graph it started
// with. Every later call returns ErrClosed.
func (g *Graph) Close() error {
	if g == nil || g.h == nil {
		return nil
	}
	runtime.SetFinalizer(g.owner, nil)
	g.h.close()
	return nil
}

// AddVertex adds a vertex named name and returns its id. The name must be
// non-empty, valid UTF-8 without NUL bytes, and not used by another vertex
// of the graph.
//
// Errors: ErrInvalidArgument (empty name, NUL byte), ErrBadUTF8,
// ErrDuplicateName, ErrBusy (a walk is running, or called from a search's
// callback), ErrClosed.
func (g *Graph) AddVertex(name string) (uint64, error) {
	cname, err := cString("AddVertex", "the name", name)
	if err != nil {
		return NoVertex, err
	}
	defer freeString(cname)
	return g.addVertex("AddVertex", cname)
}

// AddUnnamedVertex adds a vertex without a name and returns its id. Text
// forms print it as its decimal id.
//
// Errors: ErrBusy, ErrClosed.
func (g *Graph) AddUnnamedVertex() (uint64, error) {
	return g.addVertex("AddUnnamedVertex", nil)
}

func (g *Graph) addVertex(op string, cname *C.char) (uint64, error) {
	ptr, err := g.handle().beginWrite(op)
	if err != nil {
		return NoVertex, err
	}
	defer g.h.endWrite()
	var id C.uint64_t
	var cerr *C.dag_error
	if err := check(C.dag_add_vertex(ptr, cname, nil, &id, &cerr), cerr); err != nil {
		return NoVertex, err
	}
	return uint64(id), nil
}

// AddVertices adds a vertex for each entry of names, all or nothing, and
// returns their ids: consecutive, in the order of names. A non-empty name
// follows AddVertex's rules (valid UTF-8 without NUL bytes, not used by
// another vertex of the graph nor by another entry of names); an empty
// name "" adds an unnamed vertex, as AddUnnamedVertex does (the "" that
// Name returns for one, and that SetName takes to unname one), so
// AddVertices(make([]string, n)) adds n unnamed vertices. An empty names
// adds nothing and returns an empty slice. Faster than one AddVertex per
// name on a large graph; loaders should prefer it.
//
// Errors: ErrDuplicateName (a name is taken or given twice; the message
// gives the entry's index, "vertex 3: ..."), ErrBadUTF8,
// ErrInvalidArgument (NUL byte), ErrBusy, ErrClosed. On error the graph is
// unchanged.
func (g *Graph) AddVertices(names []string) ([]uint64, error) {
	cnames, err := cStrings("AddVertices", names, true, func(i int) string {
		return "vertex " + strconv.Itoa(i) + ": the name"
	})
	if err != nil {
		return nil, err
	}
	defer freeStrings(cnames)
	ptr, err := g.handle().beginWrite("AddVertices")
	if err != nil {
		return nil, err
	}
	defer g.h.endWrite()
	ids := make([]uint64, len(names))
	out, count := idsArg(ids)
	var cerr *C.dag_error
	if err := check(C.dag_add_vertices(ptr, cnames, nil, count, out, &cerr), cerr); err != nil {
		return nil, err
	}
	return ids, nil
}

// RemoveVertex removes a vertex and every edge touching it. Its id is never
// issued again; its name becomes free.
//
// Errors: ErrUnknownVertex, ErrBusy, ErrClosed.
func (g *Graph) RemoveVertex(id uint64) error {
	ptr, err := g.handle().beginWrite("RemoveVertex")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	var cerr *C.dag_error
	return check(C.dag_remove_vertex(ptr, C.uint64_t(id), &cerr), cerr)
}

// ReplaceVertex is Terraform's Replace: replacement takes over every edge of
// original (original's dependencies become replacement's, and original's
// dependents depend on replacement instead), then original is removed.
// Unlike Terraform's, replacement must already be in the graph, and an edge
// original -> original becomes replacement -> replacement. Replacing a
// vertex with itself does nothing.
//
// Errors: ErrUnknownVertex (either id), ErrBusy, ErrClosed. On error the
// graph is unchanged.
func (g *Graph) ReplaceVertex(original, replacement uint64) error {
	ptr, err := g.handle().beginWrite("ReplaceVertex")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	var cerr *C.dag_error
	return check(C.dag_replace_vertex(ptr, C.uint64_t(original), C.uint64_t(replacement), &cerr), cerr)
}

// HasVertex reports whether id is a vertex of the graph; false once the
// graph is closed.
func (g *Graph) HasVertex(id uint64) bool {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return false
	}
	defer g.h.endRead()
	return C.dag_has_vertex(ptr, C.uint64_t(id)) != 0
}

// VertexCount returns the number of vertices; 0 once the graph is closed.
func (g *Graph) VertexCount() int {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return 0
	}
	defer g.h.endRead()
	return int(C.dag_vertex_count(ptr))
}

// Find returns the id of the vertex named name.
//
// Errors: ErrNotFound (no vertex has that name), ErrInvalidArgument (empty
// name or a NUL byte: no vertex can have it), ErrBadUTF8, ErrClosed.
func (g *Graph) Find(name string) (uint64, error) {
	cname, err := cString("Find", "the name", name)
	if err != nil {
		return NoVertex, err
	}
	defer freeString(cname)
	ptr, err := g.handle().beginRead()
	if err != nil {
		return NoVertex, err
	}
	defer g.h.endRead()
	var id C.uint64_t
	var cerr *C.dag_error
	if err := check(C.dag_find_vertex(ptr, cname, &id, &cerr), cerr); err != nil {
		return NoVertex, err
	}
	return uint64(id), nil
}

// FindVertices looks every entry of names up, as Find does, in one call:
// the result holds, at each index, the id of the vertex with that name, or
// NoVertex (0, never an id) when no vertex has it, where Find would return
// ErrNotFound. An empty names returns an empty slice. Faster than one Find
// per name on a large graph.
//
// Errors: ErrInvalidArgument (an empty name or a NUL byte: no vertex can
// have it; the message gives the index, "names[3]"), ErrBadUTF8, ErrClosed.
func (g *Graph) FindVertices(names []string) ([]uint64, error) {
	cnames, err := cStrings("FindVertices", names, false, func(i int) string {
		return "names[" + strconv.Itoa(i) + "]"
	})
	if err != nil {
		return nil, err
	}
	defer freeStrings(cnames)
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	ids := make([]uint64, len(names))
	out, count := idsArg(ids)
	var cerr *C.dag_error
	if err := check(C.dag_find_vertices(ptr, cnames, count, out, &cerr), cerr); err != nil {
		return nil, err
	}
	return ids, nil
}

// Name returns the name of a vertex, or "" for an unnamed one (a name is
// never empty, so "" is unambiguous).
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) Name(id uint64) (string, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return "", err
	}
	defer g.h.endRead()
	var name *C.char
	var cerr *C.dag_error
	if err := check(C.dag_vertex_name(ptr, C.uint64_t(id), &name, &cerr), cerr); err != nil {
		return "", err
	}
	// The name is borrowed until the vertex is renamed or removed, which
	// the read lock rules out until the copy is made.
	return C.GoString(name), nil
}

// SetName renames a vertex; "" makes it unnamed. The old name becomes free.
//
// Errors: ErrUnknownVertex, ErrDuplicateName, ErrBadUTF8,
// ErrInvalidArgument (NUL byte), ErrBusy, ErrClosed.
func (g *Graph) SetName(id uint64, name string) error {
	var cname *C.char
	if name != "" {
		var err error
		if cname, err = cString("SetName", "the name", name); err != nil {
			return err
		}
		defer freeString(cname)
	}
	ptr, err := g.handle().beginWrite("SetName")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	var cerr *C.dag_error
	return check(C.dag_set_vertex_name(ptr, C.uint64_t(id), cname, &cerr), cerr)
}

// Edge is the edge From -> To: From depends on To.
type Edge struct {
	// From is the dependent vertex, To its dependency.
	From, To uint64
}

// Connect adds the edge from -> to: from depends on to, so to's work
// happens before from's. Connecting an existing edge again does nothing. A
// self edge (from == to) is stored; Validate reports it.
//
// Errors: ErrUnknownVertex (either id), ErrBusy, ErrClosed.
func (g *Graph) Connect(from, to uint64) error {
	ptr, err := g.handle().beginWrite("Connect")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	var cerr *C.dag_error
	return check(C.dag_connect(ptr, C.uint64_t(from), C.uint64_t(to), &cerr), cerr)
}

// ConnectMany adds every edge of edges, as Connect does, all or nothing:
// every id is checked before anything changes. Faster than one Connect per
// edge; loaders should prefer it.
//
// Errors: ErrUnknownVertex (the message gives the edge's index), ErrBusy,
// ErrClosed. On error the graph is unchanged.
func (g *Graph) ConnectMany(edges []Edge) error {
	pairs := make([]uint64, 0, 2*len(edges))
	for _, e := range edges {
		pairs = append(pairs, e.From, e.To)
	}
	ptr, err := g.handle().beginWrite("ConnectMany")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	data, _ := idsArg(pairs)
	var cerr *C.dag_error
	return check(C.dag_connect_many(ptr, data, C.size_t(len(edges)), &cerr), cerr)
}

// Disconnect removes the edge from -> to. Removing an edge that does not
// exist does nothing, but both vertices must exist.
//
// Errors: ErrUnknownVertex, ErrBusy, ErrClosed.
func (g *Graph) Disconnect(from, to uint64) error {
	ptr, err := g.handle().beginWrite("Disconnect")
	if err != nil {
		return err
	}
	defer g.h.endWrite()
	var cerr *C.dag_error
	return check(C.dag_disconnect(ptr, C.uint64_t(from), C.uint64_t(to), &cerr), cerr)
}

// HasEdge reports whether the edge from -> to exists; false for unknown ids
// and once the graph is closed.
func (g *Graph) HasEdge(from, to uint64) bool {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return false
	}
	defer g.h.endRead()
	return C.dag_has_edge(ptr, C.uint64_t(from), C.uint64_t(to)) != 0
}

// EdgeCount returns the number of edges; 0 once the graph is closed.
func (g *Graph) EdgeCount() int {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return 0
	}
	defer g.h.endRead()
	return int(C.dag_edge_count(ptr))
}

// readIDs runs a read-only call that returns ids, with the graph held for
// reading, and takes the ids it returns.
func (g *Graph) readIDs(call func(*C.dag_graph, **C.dag_ids, **C.dag_error) C.dag_status) ([]uint64, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	var out *C.dag_ids
	var cerr *C.dag_error
	if err := check(call(ptr, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return takeIDs(out), nil
}

// Vertices returns every vertex id, ascending.
//
// Errors: ErrNoMemory, ErrClosed.
func (g *Graph) Vertices() ([]uint64, error) {
	return g.readIDs(func(p *C.dag_graph, out **C.dag_ids, e **C.dag_error) C.dag_status {
		return C.dag_vertices(p, out, e)
	})
}

// Edges returns every edge, sorted by From then To.
//
// Errors: ErrNoMemory, ErrClosed.
func (g *Graph) Edges() ([]Edge, error) {
	pairs, err := g.readIDs(func(p *C.dag_graph, out **C.dag_ids, e **C.dag_error) C.dag_status {
		return C.dag_edges(p, out, e)
	})
	if err != nil {
		return nil, err
	}
	edges := make([]Edge, len(pairs)/2)
	for i := range edges {
		edges[i] = Edge{From: pairs[2*i], To: pairs[2*i+1]}
	}
	return edges, nil
}

// Dependencies returns the direct dependencies of a vertex (the targets of
// its edges, Terraform's DownEdges), ascending. With a -> b and a -> c,
// Dependencies(a) is [b c].
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) Dependencies(id uint64) ([]uint64, error) {
	return g.neighbours(id, false)
}

// Dependents returns the direct dependents of a vertex (the sources of the
// edges to it, Terraform's UpEdges), ascending. With a -> b and c -> b,
// Dependents(b) is [a c].
//
// Errors: ErrUnknownVertex, ErrClosed.
func (g *Graph) Dependents(id uint64) ([]uint64, error) {
	return g.neighbours(id, true)
}

func (g *Graph) neighbours(id uint64, dependents bool) ([]uint64, error) {
	return g.readIDs(func(p *C.dag_graph, out **C.dag_ids, e **C.dag_error) C.dag_status {
		if dependents {
			return C.dag_dependents(p, C.uint64_t(id), out, e)
		}
		return C.dag_dependencies(p, C.uint64_t(id), out, e)
	})
}

// Subsume is Terraform's Subsume: it copies every vertex and edge of other
// into g. A named vertex of other whose name g already has is the same
// vertex (the edges are merged); every other vertex gets a new id in g and
// keeps its name. other is not changed. All or nothing.
//
// Errors: ErrInvalidArgument (other is g), ErrBusy, ErrClosed (either
// graph).
func (g *Graph) Subsume(other *Graph) error {
	if g.handle() == nil || other.handle() == nil {
		return ErrClosed
	}
	if g.h == other.h {
		// One lock cannot be held for writing and reading at once; libdag
		// would refuse the call anyway.
		if _, err := g.h.beginRead(); err != nil {
			return err
		}
		g.h.endRead()
		return newError(StatusInvalidArgument, "Subsume", "a graph cannot subsume itself")
	}
	// Lock in a fixed order across all graphs, so that g.Subsume(h) and
	// h.Subsume(g) running at once cannot each hold what the other waits for.
	var ptr, src *C.dag_graph
	var err error
	if g.h.order < other.h.order {
		if ptr, err = g.h.beginWrite("Subsume"); err != nil {
			return err
		}
		defer g.h.endWrite()
		if src, err = other.h.beginRead(); err != nil {
			return err
		}
		defer other.h.endRead()
	} else {
		if src, err = other.h.beginRead(); err != nil {
			return err
		}
		defer other.h.endRead()
		if ptr, err = g.h.beginWrite("Subsume"); err != nil {
			return err
		}
		defer g.h.endWrite()
	}
	var cerr *C.dag_error
	return check(C.dag_subsume(ptr, src, &cerr), cerr)
}

// Clone returns a deep copy: same ids, names and edges. Ids the copy issues
// later continue where the original's stood, so they never collide.
//
// Errors: ErrNoMemory, ErrClosed.
func (g *Graph) Clone() (*Graph, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	var out *C.dag_graph
	var cerr *C.dag_error
	if err := check(C.dag_clone(ptr, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// String returns Terraform's String() layout: every vertex on its own line,
// sorted by name, each followed by its dependencies indented by two spaces.
// For vertices "1", "2", "3" and the edge 1 -> 3 it is "1\n  3\n2\n3\n".
// An unnamed vertex prints as its decimal id. When the text cannot be made
// (closed graph, out of memory) String returns the error text in angle
// brackets; Export(FormatText) gives the same text and returns the error
// instead.
func (g *Graph) String() string {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	defer g.h.endRead()
	var out *C.char
	var cerr *C.dag_error
	if err := check(C.dag_to_string(ptr, &out, &cerr), cerr); err != nil {
		return "<" + err.Error() + ">"
	}
	defer C.dag_string_free(out)
	return C.GoString(out)
}
