package dag_test

import (
	"strconv"
	"testing"
	"time"

	"libdag.dev/dag"
)

// BenchmarkWalk measures a walk's cost per vertex with an empty Go
// callback: libdag's scheduling plus one call from a C thread into Go.
func BenchmarkWalk(b *testing.B) {
	for _, shape := range []struct {
		name  string
		edges func(ids []uint64) []dag.Edge
	}{
		{"wide", func([]uint64) []dag.Edge { return nil }},
		{"chain", func(ids []uint64) []dag.Edge {
			edges := make([]dag.Edge, len(ids)-1)
			for i := range edges {
				edges[i] = dag.Edge{From: ids[i+1], To: ids[i]}
			}
			return edges
		}},
	} {
		b.Run(shape.name, func(b *testing.B) {
			const n = 10000
			g, err := dag.New()
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			ids := make([]uint64, n)
			for i := range ids {
				if ids[i], err = g.AddUnnamedVertex(); err != nil {
					b.Fatal(err)
				}
			}
			if err := g.ConnectMany(shape.edges(ids)); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				report, err := g.Walk(dag.WalkOptions{}, func(uint64) error { return nil })
				if err != nil || !report.OK() {
					b.Fatal(report, err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/vertex")
		})
	}
}

// BenchmarkBuild measures adding a named vertex and an edge to it.
func BenchmarkBuild(b *testing.B) {
	g, err := dag.New()
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	root, err := g.AddVertex("root")
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, b.N)
	for i := range names {
		names[i] = "v" + strconv.Itoa(i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id, err := g.AddVertex(names[i])
		if err != nil {
			b.Fatal(err)
		}
		if err := g.Connect(root, id); err != nil {
			b.Fatal(err)
		}
	}
}
