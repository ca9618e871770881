package dag

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// unbound lists the C functions the package deliberately does not call,
// each with the reason. The coverage test fails for any other function of
// dag.h that no Go or C file of the package calls, and for an entry here
// that is called after all or no longer in the header.
var unbound = map[string]string{
	"dag_error_status": "check takes the status from the return value: libdag hands out a static " +
		"out-of-memory error object when it cannot allocate one, whatever the failure was",
	"dag_walk_report_vertices": "reports are read whole with dag_walk_report_read, which gives the same ids in the same order",
	"dag_walk_report_vertex":   "reports are read whole with dag_walk_report_read, which gives the same fields for many vertices per call",
	"dag_walk_report_ran":      "reports are read whole with dag_walk_report_read, whose outcomes carry `ran`",
	"dag_api":                  "the function table is for hosts that dlopen libdag; cgo links every function directly",
	"dag_walk": "Graph.Walk starts with dag_walk_start under the graph's write lock and waits with dag_walk_wait: " +
		"with dag_walk the lock had to be let go before libdag held the graph, and a Close there freed it",
	"dag_builder_add_step":       goStepsNotWrapped,
	"dag_builder_add_prune":      goStepsNotWrapped,
	"dag_first_ancestors_with":   predicateSearch,
	"dag_first_descendants_with": predicateSearch,
	"dag_match_ancestor":         predicateSearch,
	"dag_match_descendant":       predicateSearch,
}

// predicateSearch is why the predicate searches are not called.
const predicateSearch = "FirstAncestorsWith and its kin run dag_search, which dag.h says these are, with the same " +
	"order and results: its callback can end the search at a panic, where these would go on to their end"

// goStepsNotWrapped is why the builder's callback steps have no Go binding yet.
const goStepsNotWrapped = "Builder offers the built-in steps; steps and prune predicates written in Go " +
	"(issue 18) would call back into Go, which needs shims like the walk's, not written yet"

func TestEveryCFunctionIsReached(t *testing.T) {
	header, err := os.ReadFile(filepath.Join("..", "..", "include", "dag", "dag.h"))
	if err != nil {
		t.Fatal(err)
	}
	declared := regexp.MustCompile(`(?m)^DAG_API\s[^;(]*?\b(dag_\w+)\s*\(`).FindAllSubmatch(header, -1)
	if len(declared) < 100 {
		t.Fatalf("found %d DAG_API functions in dag.h; the pattern no longer matches the header", len(declared))
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sources = append(sources, "shim.c")
	var code strings.Builder
	for _, name := range sources {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		code.Write(text)
	}
	// Calls from Go (C.name) and from shim.c (name followed by "(").
	called := make(map[string]bool)
	for _, m := range regexp.MustCompile(`(?:C\.|[^\w.])(dag_\w+)\b(\()?`).FindAllStringSubmatch(code.String(), -1) {
		if strings.HasPrefix(m[0], "C.") || m[2] != "" {
			called[m[1]] = true
		}
	}
	inHeader := make(map[string]bool)
	var missing []string
	for _, m := range declared {
		name := string(m[1])
		inHeader[name] = true
		_, excepted := unbound[name]
		switch {
		case called[name] && excepted:
			t.Errorf("%s is called, but listed as unbound", name)
		case !called[name] && !excepted:
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("%s (dag.h) is not reached from the Go package: bind it, or list it in unbound with the reason", name)
	}
	statuses := regexp.MustCompile(`(?m)^DAG_API dag_status (dag_\w+)\(`).FindAllSubmatch(header, -1)
	for _, m := range statuses {
		name := string(m[1])
		if _, excepted := unbound[name]; !excepted && goNames[name] == "" {
			t.Errorf("%s returns a status but goNames has no Go name for its messages", name)
		}
	}
	for name := range unbound {
		if !inHeader[name] {
			t.Errorf("unbound lists %s, which dag.h no longer declares", name)
		}
	}
}
