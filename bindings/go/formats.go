package dag

// #include <dag/dag.h>
import "C"

import "unsafe"

// Format is a text form of a graph, for Export and Import. The values are
// libdag's ABI.
type Format int32

const (
	// FormatAuto (Import only) reads JSON when the first character after
	// any byte-order mark and white space is '{', DOT otherwise.
	FormatAuto Format = C.DAG_FORMAT_AUTO
	// FormatText is Terraform's String() layout, as Graph.String. Export
	// only.
	FormatText Format = C.DAG_FORMAT_TEXT
	// FormatDot is Graphviz DOT in the layout `terraform graph` prints, with
	// cycle edges drawn red. Import reads any directed DOT graph: every node
	// becomes a vertex named by its node ID, every edge tail -> head a
	// dependency of the tail on the head; attributes and subgraphs are
	// ignored.
	FormatDot Format = C.DAG_FORMAT_DOT
	// FormatMermaid is a Mermaid `flowchart TD`. Export only.
	FormatMermaid Format = C.DAG_FORMAT_MERMAID
	// FormatJSON is libdag's own form, which round-trips exactly: exporting
	// then importing gives the same ids, names and edges.
	//
	//	{"format": "libdag", "version": 1,
	//	 "vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3}],
	//	 "edges": [[1, 2]]}
	FormatJSON Format = C.DAG_FORMAT_JSON
)

// String returns libdag's short name of the format ("dot"), or "unknown".
func (f Format) String() string {
	return C.GoString(C.dag_format_name(C.dag_format(f)))
}

// Export writes the graph in format f (FormatText, FormatDot, FormatMermaid
// or FormatJSON). The output is deterministic: the same graph gives the
// same text.
//
// Errors: ErrInvalidArgument (FormatAuto or an unknown format; for DOT, a
// vertex name DOT cannot quote: one ending in a backslash or holding a
// backslash before a line break), ErrNoMemory, ErrClosed.
func (g *Graph) Export(f Format) (string, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return "", err
	}
	defer g.h.endRead()
	var out *C.char
	var cerr *C.dag_error
	if err := check(C.dag_export_graph(ptr, C.dag_format(f), &out, &cerr), cerr); err != nil {
		return "", err
	}
	defer C.dag_string_free(out)
	return C.GoString(out), nil
}

// Import reads a graph from data in format f (FormatDot, FormatJSON or
// FormatAuto) into a new Graph, which the caller closes. data may be UTF-8
// (with or without a byte-order mark) or, for DOT, UTF-16 with a byte-order
// mark. Import may be called from any goroutine; libdag serialises DOT
// parsing internally.
//
// Errors: ErrParse (malformed text; the message says where), ErrBadUTF8,
// ErrDuplicateName (JSON: two vertices with one name), ErrInvalidArgument
// (FormatText, FormatMermaid or an unknown format; JSON: an empty name),
// ErrNoMemory.
func Import(f Format, data []byte) (*Graph, error) {
	// libdag refuses a NUL byte in the text with a parse error of its own;
	// passing the bytes as they are keeps its message, with the position.
	var ptr *C.char
	if len(data) > 0 {
		ptr = (*C.char)(unsafe.Pointer(&data[0]))
	}
	var out *C.dag_graph
	var cerr *C.dag_error
	if err := check(C.dag_import_graph(C.dag_format(f), ptr, C.size_t(len(data)), &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// ImportFile is Import reading the file at path. FormatAuto looks at the
// file's content, not its name.
//
// Errors: those of Import; ErrIO (the file cannot be opened or read; the
// message has the path and the system's reason); ErrInvalidArgument (a NUL
// byte in path).
func ImportFile(f Format, path string) (*Graph, error) {
	cpath, err := cString("ImportFile", "the path", path)
	if err != nil {
		return nil, err
	}
	defer freeString(cpath)
	var out *C.dag_graph
	var cerr *C.dag_error
	if err := check(C.dag_import_graph_file(C.dag_format(f), cpath, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(out), nil
}
