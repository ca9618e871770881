package dag_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	dag "libdag/bindings/go"
	"libdag/bindings/go/internal/cwalk"
)

// walkShapes are the graphs of the walk benchmarks: a chain, where each
// vertex waits for the one before, and a fan-out, where every vertex but
// the first waits for the first. The C baselines build the same shapes.
var walkShapes = []struct {
	name  string
	edges func(ids []uint64) []dag.Edge
	c     func(n int) *cwalk.Shape
}{
	{"chain", func(ids []uint64) []dag.Edge {
		edges := make([]dag.Edge, len(ids)-1)
		for i := range edges {
			edges[i] = dag.Edge{From: ids[i+1], To: ids[i]}
		}
		return edges
	}, cwalk.Chain},
	{"fanout", func(ids []uint64) []dag.Edge {
		edges := make([]dag.Edge, len(ids)-1)
		for i := range edges {
			edges[i] = dag.Edge{From: ids[i+1], To: ids[0]}
		}
		return edges
	}, cwalk.FanOut},
}

// walkVertices is the size of the walk benchmarks' graphs.
const walkVertices = 100000

// BenchmarkWalk measures a walk's cost per vertex with empty callbacks, on
// 10^5 vertices with libdag's default options (parallelism 10,
// timestamps on): Walk (goroutines through the pull mode), Graph.Walk
// (calls into Go from libdag's threads), and, in the same run, libdag
// driven from C (a pull walk completed by one C thread, a callback walk
// with an empty C callback).
func BenchmarkWalk(b *testing.B) {
	for _, shape := range walkShapes {
		g, err := dag.New()
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]uint64, walkVertices)
		for i := range ids {
			if ids[i], err = g.AddUnnamedVertex(); err != nil {
				b.Fatal(err)
			}
		}
		if err := g.ConnectMany(shape.edges(ids)); err != nil {
			b.Fatal(err)
		}
		perVertex := func(b *testing.B, walk func() error) {
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if err := walk(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*walkVertices), "ns/vertex")
		}
		b.Run(shape.name+"/Walk", func(b *testing.B) {
			perVertex(b, func() error {
				report, err := dag.Walk(context.Background(), g, func(context.Context, dag.Vertex) error { return nil }, dag.WalkOptions{})
				if err == nil {
					err = report.Err()
				}
				return err
			})
		})
		b.Run(shape.name+"/Graph.Walk", func(b *testing.B) {
			perVertex(b, func() error {
				report, err := g.Walk(dag.WalkOptions{}, func(uint64) error { return nil })
				if err == nil {
					err = report.Err()
				}
				return err
			})
		})
		c := shape.c(walkVertices)
		b.Run(shape.name+"/C-pull", func(b *testing.B) {
			perVertex(b, func() error { _, err := c.PullWalk(); return err })
		})
		b.Run(shape.name+"/C-callback", func(b *testing.B) {
			perVertex(b, func() error { _, err := c.CallbackWalk(); return err })
		})
		c.Close()
		g.Close()
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
