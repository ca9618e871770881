package dag_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	dag "libdag/bindings/go"
)

func TestExportFormats(t *testing.T) {
	g, _ := build(t, "a->b", "b->c")
	text, err := g.Export(dag.FormatText)
	if err != nil || text != g.String() || text != "a\n  b\nb\n  c\nc\n" {
		t.Errorf("Export(text) = %q, %v", text, err)
	}
	dot, err := g.Export(dag.FormatDot)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"digraph {", "\t\t\"a\" -> \"b\"\n", "\t\t\"b\" -> \"c\"\n"} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT output lacks %q:\n%s", want, dot)
		}
	}
	mermaid, err := g.Export(dag.FormatMermaid)
	if err != nil || !strings.HasPrefix(mermaid, "flowchart TD") || !strings.Contains(mermaid, "v1 --> v2") {
		t.Errorf("Export(mermaid) = %q, %v", mermaid, err)
	}
	_, err = g.Export(dag.FormatAuto)
	wantErr(t, "Export(auto)", err, dag.ErrInvalidArgument, "")
	_, err = g.Export(dag.Format(99))
	wantErr(t, "Export(99)", err, dag.ErrInvalidArgument, "")

	if dag.FormatDot.String() != "dot" || dag.FormatJSON.String() != "json" || dag.Format(99).String() != "unknown" {
		t.Errorf("format names: %v %v %v", dag.FormatDot, dag.FormatJSON, dag.Format(99))
	}
}

func TestDotDrawsCyclesRed(t *testing.T) {
	g, _ := build(t, "a->b", "b->a", "a->c")
	dot, err := g.Export(dag.FormatDot)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dot, `"a" -> "b" [color = "red", penwidth = "2.0"]`) || strings.Contains(dot, `"a" -> "c" [`) {
		t.Errorf("cycle edges not drawn as Terraform draws them:\n%s", dot)
	}
}

func TestJSONRoundTripIsIdentity(t *testing.T) {
	g, ids := build(t, "a->b", "b->c", "gone", "c->c")
	if _, err := g.AddUnnamedVertex(); err != nil {
		t.Fatal(err)
	}
	// A removed vertex leaves a gap in the ids, which must survive.
	if err := g.RemoveVertex(ids["gone"]); err != nil {
		t.Fatal(err)
	}
	exported, err := g.Export(dag.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	back, err := dag.Import(dag.FormatJSON, []byte(exported))
	if err != nil {
		t.Fatalf("Import of our own export: %v\n%s", err, exported)
	}
	defer back.Close()

	again, err := back.Export(dag.FormatJSON)
	if err != nil || again != exported {
		t.Errorf("export after import differs (%v):\n%s\nwant\n%s", err, again, exported)
	}
	va, _ := g.Vertices()
	vb, _ := back.Vertices()
	ea, _ := g.Edges()
	eb, _ := back.Edges()
	if !reflect.DeepEqual(va, vb) || !reflect.DeepEqual(ea, eb) {
		t.Errorf("ids or edges differ: %v %v, imported %v %v", va, ea, vb, eb)
	}
	if na, nb := names(t, g, va), names(t, back, vb); !reflect.DeepEqual(na, nb) {
		t.Errorf("names differ: %q, imported %q", na, nb)
	}
	// Ids issued after the import continue after the largest one.
	next, err := back.AddVertex("next")
	if err != nil {
		t.Fatal(err)
	}
	if last := va[len(va)-1]; next <= last {
		t.Errorf("new id %d does not continue after %d", next, last)
	}
}

func TestImportDotAndAuto(t *testing.T) {
	src := `digraph {
		compound = "true"
		subgraph "root" {
			"[root] web" -> "[root] db" -> "[root] net"
			"[root] web" -> { "[root] cache" "[root] net" }
		}
	}`
	for _, f := range []dag.Format{dag.FormatDot, dag.FormatAuto} {
		g, err := dag.Import(f, []byte(src))
		if err != nil {
			t.Fatalf("Import(%v): %v", f, err)
		}
		defer g.Close()
		if g.VertexCount() != 4 || g.EdgeCount() != 4 {
			t.Errorf("Import(%v): %d vertices, %d edges; want 4, 4:\n%s", f, g.VertexCount(), g.EdgeCount(), g)
		}
		web, _ := g.Find("[root] web")
		deps, err := g.Dependencies(web)
		// Ascending ids, which follow the order nodes first appear in.
		wantNames(t, "Dependencies(web)", g, deps, err, "[root] db", "[root] net", "[root] cache")
	}
	// AUTO picks JSON for text starting with '{'.
	g, err := dag.Import(dag.FormatAuto, []byte(` {"vertices": [{"id": 3, "name": "x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if id, err := g.Find("x"); err != nil || id != 3 {
		t.Errorf("Find(x) = %d, %v; want 3", id, err)
	}
}

func TestImportErrors(t *testing.T) {
	cases := []struct {
		format   dag.Format
		text     string
		sentinel error
	}{
		{dag.FormatJSON, `{"vertices": [`, dag.ErrParse},
		{dag.FormatJSON, `{"vertices": [{"id": 1}], "edges": [[1, 2]]}`, dag.ErrParse},
		{dag.FormatJSON, `{"vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "a"}]}`, dag.ErrDuplicateName},
		{dag.FormatDot, `graph { a -- b }`, dag.ErrParse},
		{dag.FormatDot, "digraph { a -> b \x00 }", dag.ErrParse},
		{dag.FormatText, `a`, dag.ErrInvalidArgument},
		{dag.FormatMermaid, `flowchart TD`, dag.ErrInvalidArgument},
	}
	for _, c := range cases {
		g, err := dag.Import(c.format, []byte(c.text))
		if g != nil {
			g.Close()
		}
		wantErr(t, "Import("+c.format.String()+", "+c.text+")", err, c.sentinel, "dag: Import: ")
	}
	// Empty input is malformed, not a crash on an empty slice.
	_, err := dag.Import(dag.FormatJSON, nil)
	wantErr(t, "Import(nil)", err, dag.ErrParse, "")
}

func TestImportFile(t *testing.T) {
	src, _ := build(t, "a->b")
	text, err := src.Export(dag.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "graph.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := dag.ImportFile(dag.FormatAuto, path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.String() != src.String() {
		t.Errorf("ImportFile gave %q, want %q", g, src)
	}
	missing := filepath.Join(t.TempDir(), "missing.dot")
	_, err = dag.ImportFile(dag.FormatDot, missing)
	wantErr(t, "ImportFile(missing)", err, dag.ErrIO, missing)
	_, err = dag.ImportFile(dag.FormatDot, "bad\x00path")
	wantErr(t, "ImportFile(NUL)", err, dag.ErrInvalidArgument, "NUL")
}
