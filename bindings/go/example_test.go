package dag_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	dag "libdag/bindings/go"
)

func Example() {
	g, err := dag.New()
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	web, _ := g.AddVertex("aws_instance.web")
	db, _ := g.AddVertex("aws_db_instance.main")
	vpc, _ := g.AddVertex("aws_vpc.main")
	_ = g.Connect(web, db) // web depends on db
	_ = g.Connect(db, vpc) // db depends on vpc

	order, _ := g.ReverseTopologicalOrder()
	for _, id := range order {
		name, _ := g.Name(id)
		fmt.Println(name)
	}
	// Output:
	// aws_vpc.main
	// aws_db_instance.main
	// aws_instance.web
}

func ExampleGraph_Validate() {
	g, _ := dag.New()
	defer g.Close()
	a, _ := g.AddVertex("a")
	b, _ := g.AddVertex("b")
	c, _ := g.AddVertex("c")
	_ = g.ConnectMany([]dag.Edge{{From: a, To: b}, {From: b, To: c}, {From: c, To: a}})

	v, err := g.Validate(false)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Text)
	fmt.Println(errors.Is(v.Err(), dag.ErrCycle))
	// Output:
	// Cycle:
	//   a
	//   b
	//   c
	// true
}

func ExampleWalk() {
	g, _ := dag.New()
	defer g.Close()
	app, _ := g.AddVertex("app")
	db, _ := g.AddVertex("db")
	_ = g.Connect(app, db)

	errRefused := errors.New("connection refused")
	// Each vertex runs on a goroutine; ctx cancels the walk.
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		if name, _ := v.Name(); name == "db" {
			return fmt.Errorf("migrate: %w", errRefused)
		}
		return nil
	}, dag.WalkOptions{})
	if err != nil {
		log.Fatal(err) // a cycle, a cancelled context, ...
	}
	fmt.Println(report.Err())
	fmt.Println(errors.Is(report.Err(), errRefused))
	r, _ := report.Result(app)
	fmt.Println(r.Status)
	// Output:
	// vertex db failed: migrate: connection refused
	// true
	// upstream-failed
}

func ExampleGraph_Walk() {
	g, _ := dag.New()
	defer g.Close()
	app, _ := g.AddVertex("app")
	db, _ := g.AddVertex("db")
	logs, _ := g.AddVertex("logs")
	_ = g.Connect(app, db)

	// The callback runs on libdag's threads, up to Parallelism at once.
	report, err := g.Walk(dag.WalkOptions{Parallelism: 4}, func(id uint64) error {
		name, _ := g.Name(id) // callbacks may read the graph
		if name == "db" {
			return errors.New("connection refused")
		}
		return nil
	})
	if err != nil {
		log.Fatal(err) // the walk could not run at all
	}
	fmt.Println(report.OK(), report.FirstErrorMessage)
	for _, id := range []uint64{db, app, logs} {
		r, _ := report.Result(id)
		fmt.Println(r.Status)
	}
	// Output:
	// false vertex db failed: connection refused
	// failed
	// upstream-failed
	// ok
}

func ExampleImport() {
	g, err := dag.Import(dag.FormatJSON, []byte(`{
		"vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
		"edges": [[1, 2]]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	fmt.Print(g)
	// Output:
	// a
	//   b
	// b
}
