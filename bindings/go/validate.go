package dag

// #include <dag/dag.h>
import "C"

// Validation is everything Validate found, as Terraform 1.16 words it and as
// data. It does not refer to the graph.
type Validation struct {
	// OK is true when the graph has no problem (Status is StatusOK).
	OK bool
	// Status is StatusOK; StatusCycle whenever there is a cycle or a self
	// reference, whatever else is wrong; StatusNoRoot or StatusMultipleRoots
	// when the root rule is the only problem.
	Status Status
	// Text is Messages joined with "\n"; "" for a valid graph.
	Text string
	// Messages holds one message per problem, in this order: the root
	// problem ("no roots found", "multiple roots: a, b"), each cycle
	// ("Cycle:" then one name a line, indented by two spaces, each line
	// depending on the next: "Cycle:\n  a\n  b\n  c"), each self reference
	// ("Self reference: a"). Unnamed vertices print as their decimal id.
	Messages []string
	// Cycles holds the vertex ids of each cycle, in the order its message
	// lists them.
	Cycles [][]uint64
	// SelfReferences holds the vertices with an edge to themselves, in the
	// order of their messages.
	SelfReferences []uint64
}

// Err returns nil for a valid graph, else an *Error with the validation's
// Status and a message worded as libdag's ("dag: Validate: Cycle:\n  a...").
func (v *Validation) Err() error {
	if v.OK {
		return nil
	}
	return &Error{Status: v.Status, Message: "dag: Validate: " + v.Text}
}

// Validate checks the graph and reports every problem at once. With
// singleRoot, exactly one vertex must have no dependents, as in Terraform's
// Validate(); without it any number of roots is fine, as in newer Terraform.
//
// An invalid graph is not an error here: the problems are in the returned
// Validation (use its Err method to get them as an error). The error is for
// a call that could not validate: ErrNoMemory, ErrClosed.
func (g *Graph) Validate(singleRoot bool) (*Validation, error) {
	ptr, err := g.handle().beginRead()
	if err != nil {
		return nil, err
	}
	defer g.h.endRead()
	var opts C.dag_validate_options
	var cerr *C.dag_error
	if err := check(C.dag_validate_options_init(&opts, C.sizeof_dag_validate_options, &cerr), cerr); err != nil {
		return nil, err
	}
	opts.single_root = 0
	if singleRoot {
		opts.single_root = 1
	}
	var out *C.dag_validation
	// The problems come back in *out too; the error object would only repeat
	// them, so it is asked for only to learn why a call failed outright.
	status := C.dag_validate(ptr, &opts, &out, &cerr)
	if out == nil {
		if err := check(status, cerr); err != nil {
			return nil, err
		}
		return nil, newError(StatusInternal, "Validate", "libdag reported success without a result")
	}
	C.dag_error_free(cerr)
	defer C.dag_validation_free(out)

	v := &Validation{
		Status: Status(C.dag_validation_status(out)),
		Text:   C.GoString(C.dag_validation_text(out)),
	}
	v.OK = v.Status == StatusOK
	n := int(C.dag_validation_message_count(out))
	v.Messages = make([]string, n)
	for i := range v.Messages {
		v.Messages[i] = C.GoString(C.dag_validation_message(out, C.size_t(i)))
	}
	v.Cycles = make([][]uint64, int(C.dag_validation_cycle_count(out)))
	for i := range v.Cycles {
		var count C.size_t
		data := C.dag_validation_cycle(out, C.size_t(i), &count)
		v.Cycles[i] = copyIDs(data, count)
	}
	var count C.size_t
	data := C.dag_validation_self_references(out, &count)
	v.SelfReferences = copyIDs(data, count)
	return v, nil
}
