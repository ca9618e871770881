package dag

// #include <stdlib.h>
// #include <dag/dag.h>
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
)

// Action is a vertex's planned change, read by the destroy order step.
type Action int

const (
	// ActionNone leaves the vertex as it is (the default).
	ActionNone Action = C.DAG_ACTION_NONE
	// ActionCreate creates it.
	ActionCreate Action = C.DAG_ACTION_CREATE
	// ActionUpdate updates it in place.
	ActionUpdate Action = C.DAG_ACTION_UPDATE
	// ActionDelete destroys it: the vertex becomes "NAME (destroy)".
	ActionDelete Action = C.DAG_ACTION_DELETE
	// ActionReplace destroys it, then creates it again.
	ActionReplace Action = C.DAG_ACTION_REPLACE
	// ActionCreateBeforeDestroy creates the new one, then destroys the old.
	ActionCreateBeforeDestroy Action = C.DAG_ACTION_CREATE_BEFORE_DESTROY
)

// Builder builds a graph in named steps, as Terraform's graph builder runs
// its transformers: declare what each vertex provides, references, needs and
// plans to do, add the built-in steps, then Build. It works on its graph in
// place and keeps the graph's C object alive until Close. Its methods may be
// called from any goroutine, one at a time.
//
// Steps and prune predicates written in Go are not offered yet (their
// callbacks would need the shims the walk uses).
type Builder struct {
	mu  sync.Mutex
	g   *Graph
	ptr *C.dag_builder
}

// NewBuilder returns a builder working on g. It may be made while g is
// walked; Build is what waits for no walk (ErrBusy).
//
// Errors: ErrBusy (called from a callback of a search of g), ErrClosed.
func NewBuilder(g *Graph) (*Builder, error) {
	ptr, err := g.handle().beginWrite("NewBuilder")
	if err != nil {
		return nil, err
	}
	defer g.h.endWrite()
	var out *C.dag_builder
	var cerr *C.dag_error
	if err := check(C.dag_builder_new(ptr, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	b := &Builder{g: g, ptr: out}
	runtime.SetFinalizer(b, (*Builder).Close)
	return b, nil
}

// Close frees the builder; the graph stays as the steps left it.
// Idempotent; nothing to do on a nil builder.
func (b *Builder) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// Only a builder NewBuilder made has a finalizer: a zero one (a
	// struct's field, a slice's element) is not the start of an allocation,
	// which runtime.SetFinalizer needs.
	if b.ptr != nil {
		C.dag_builder_free(b.ptr)
		b.ptr = nil
		runtime.SetFinalizer(b, nil)
	}
	return nil
}

// call runs f with the builder under its lock.
func (b *Builder) call(f func(*C.dag_builder) error) error {
	if b == nil {
		return errBuilderClosed{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// The builder keeps the C graph alive, so a step added after g.Close
	// would be taken, and refused only by Build.
	if b.ptr == nil {
		return errBuilderClosed{}
	}
	if b.g.handle().isClosed() {
		return ErrClosed
	}
	return f(b.ptr)
}

// closedErr is call's error for a nil or closed builder, for the methods
// that take the graph's lock before the builder's: a closed builder says
// so rather than what it finds of its graph.
func (b *Builder) closedErr() error {
	if b == nil {
		return errBuilderClosed{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ptr == nil {
		return errBuilderClosed{}
	}
	return nil
}

// errBuilderClosed is ErrClosed for a builder closed itself, or nil:
// "graph is closed" would send its reader to the wrong object.
type errBuilderClosed struct{}

func (errBuilderClosed) Error() string        { return "dag: the builder is closed" }
func (errBuilderClosed) Is(target error) bool { return target == ErrClosed }

// callReading runs f under a read of the builder's graph and the builder's
// lock: a declaration looks its vertex up in the graph, which a change on
// another goroutine could be moving. The graph's lock comes first, as in
// Build: a search's callback holds it while it declares, and Build holding
// b.mu while it waited for the graph would wait for that callback, which
// would wait for b.mu.
func (b *Builder) callReading(f func(*C.dag_builder) error) error {
	if err := b.closedErr(); err != nil {
		return err
	}
	if _, err := b.g.handle().beginRead(); err != nil {
		return err
	}
	defer b.g.h.endRead()
	return b.call(f)
}

type declareFn func(*C.dag_builder, C.uint64_t, *C.char, **C.dag_error) C.dag_status

func (b *Builder) declare(op string, fn declareFn, vertex uint64, texts []string) error {
	return b.callReading(func(ptr *C.dag_builder) error {
		for _, t := range texts {
			ct, err := cString(op, map[bool]string{true: "the key", false: "the address"}[op == "Builder.Need"], t)
			if err != nil {
				return err
			}
			var cerr *C.dag_error
			err = check(fn(ptr, C.uint64_t(vertex), ct, &cerr), cerr)
			freeString(ct)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Provide declares that vertex provides each address (aws_instance.web):
// references to it or under it resolve to vertex.
//
// Errors: ErrUnknownVertex, ErrInvalidArgument (empty), ErrBadUTF8, ErrClosed.
func (b *Builder) Provide(vertex uint64, addresses ...string) error {
	return b.declare("Builder.Provide", func(p *C.dag_builder, v C.uint64_t, s *C.char, e **C.dag_error) C.dag_status {
		return C.dag_builder_provide(p, v, s, e)
	}, vertex, addresses)
}

// Reference declares that vertex references each address; the references
// step makes it depend on the vertices providing the longest provided
// prefix, cut before '.' and '[' (aws_instance.web[0].id finds
// aws_instance.web[0], else aws_instance.web); a prefix with a bracketed key
// is also tried without its keys, so module.net[0].x finds module.net.x
// before module.net[0], as Terraform resolves it. Errors as Provide.
func (b *Builder) Reference(vertex uint64, addresses ...string) error {
	return b.declare("Builder.Reference", func(p *C.dag_builder, v C.uint64_t, s *C.char, e **C.dag_error) C.dag_status {
		return C.dag_builder_reference(p, v, s, e)
	}, vertex, addresses)
}

// Need declares that vertex needs each shared vertex (a provider); see
// AddShared. Errors as Provide.
func (b *Builder) Need(vertex uint64, keys ...string) error {
	return b.declare("Builder.Need", func(p *C.dag_builder, v C.uint64_t, s *C.char, e **C.dag_error) C.dag_status {
		return C.dag_builder_need(p, v, s, e)
	}, vertex, keys)
}

// SetAction sets the planned change of vertex.
//
// Errors: ErrUnknownVertex, ErrInvalidArgument (not an Action), ErrClosed.
func (b *Builder) SetAction(vertex uint64, action Action) error {
	return b.callReading(func(ptr *C.dag_builder) error {
		// C's dag_action is 32 bits: Action(1<<32|3) would arrive as 3.
		if action < 0 || action > math.MaxInt32 {
			return newError(StatusInvalidArgument, "Builder.SetAction", fmt.Sprintf("action %d is not an Action", int64(action)))
		}
		var cerr *C.dag_error
		return check(C.dag_builder_set_action(ptr, C.uint64_t(vertex), C.dag_action(action), &cerr), cerr)
	})
}

// AddReferences appends the step "references". Unresolved references fail
// the build (ErrNotFound, every one listed), or with warn become warnings.
func (b *Builder) AddReferences(warn bool) error {
	flags := C.uint(0)
	if warn {
		flags = C.DAG_REFERENCES_WARN
	}
	return b.call(func(ptr *C.dag_builder) error {
		var cerr *C.dag_error
		return check(C.dag_builder_add_references(ptr, flags, &cerr), cerr)
	})
}

// AddShared appends the step "shared": each vertex needing KEY depends on
// the vertex providing KEY, else the one named KEY, else a new one named
// KEY; with close, "NAME (close)" depends on it and on every user.
func (b *Builder) AddShared(close bool) error {
	flags := C.uint(0)
	if close {
		flags = C.DAG_SHARED_CLOSE
	}
	return b.call(func(ptr *C.dag_builder) error {
		var cerr *C.dag_error
		return check(C.dag_builder_add_shared(ptr, flags, &cerr), cerr)
	})
}

// AddRoot appends the step "root": a vertex named name ("" for "root")
// depending on every vertex nothing depends on.
func (b *Builder) AddRoot(name string) error {
	return b.call(func(ptr *C.dag_builder) error {
		var cname *C.char
		if name != "" {
			var err error
			if cname, err = cString("Builder.AddRoot", "the name", name); err != nil {
				return err
			}
			defer freeString(cname)
		}
		var cerr *C.dag_error
		return check(C.dag_builder_add_root(ptr, cname, &cerr), cerr)
	})
}

// AddDestroyOrder appends the step "destroy order": the apply graph of the
// actions, with "NAME (destroy)" vertices (the rules are in dag.h).
func (b *Builder) AddDestroyOrder() error {
	return b.call(func(ptr *C.dag_builder) error {
		var cerr *C.dag_error
		return check(C.dag_builder_add_destroy_order(ptr, &cerr), cerr)
	})
}

// AddTransitiveReduction appends the step "transitive reduction".
func (b *Builder) AddTransitiveReduction() error {
	return b.call(func(ptr *C.dag_builder) error {
		var cerr *C.dag_error
		return check(C.dag_builder_add_transitive_reduction(ptr, &cerr), cerr)
	})
}

// BuildOptions are Build's options; the zero value skips validation.
type BuildOptions struct {
	// Validate the graph after the last step.
	Validate bool
	// SingleRoot applies the single-root rule in that validation.
	SingleRoot bool
}

// DefaultBuildOptions validates with the single-root rule.
var DefaultBuildOptions = BuildOptions{Validate: true, SingleRoot: true}

// Build runs the steps in order, then validates as opts say, and returns
// the warnings (unresolved references under AddReferences(true)). The
// first failing step stops the build; its error names the step, and the
// warnings of the steps before it are returned with it.
//
// Errors: the step's (ErrNotFound, ErrCycle, ErrDuplicateName...), the
// validation's (ErrCycle, ErrNoRoot, ErrMultipleRoots), ErrBusy, ErrClosed.
func (b *Builder) Build(opts BuildOptions) ([]string, error) {
	if err := b.closedErr(); err != nil {
		return nil, err
	}
	// The graph's lock before b.mu, as in callReading.
	if _, err := b.g.handle().beginWrite("Builder.Build"); err != nil {
		return nil, err
	}
	defer b.g.h.endWrite()
	var warnings []string
	err := b.call(func(ptr *C.dag_builder) error {
		var o C.dag_build_options
		var cerr *C.dag_error
		if err := check(C.dag_build_options_init(&o, C.size_t(C.sizeof_dag_build_options), &cerr), cerr); err != nil {
			return err
		}
		o.validate = boolInt(opts.Validate)
		o.single_root = boolInt(opts.SingleRoot)
		built := check(C.dag_build(ptr, &o, &cerr), cerr)
		var text *C.char
		if err := check(C.dag_builder_warnings(ptr, &text, &cerr), cerr); err != nil {
			if built != nil {
				return built
			}
			return err
		}
		if s := C.GoString(text); s != "" {
			warnings = strings.Split(s, "\n")
		}
		C.dag_string_free(text)
		return built
	})
	return warnings, err
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
