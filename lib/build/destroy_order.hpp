// The apply graph of a plan: Terraform's DiffTransformer, DestroyEdgeTransformer
// and CBDEdgeTransformer in one step. Each vertex's Action (declarations.hpp)
// decides what it becomes:
//
//   none, create, update   stays as it is: its create vertex C(v) = v;
//   remove                 becomes its destroy vertex D(v) (same id, renamed
//                          `NAME (destroy)`); it has no create vertex;
//   replace                C(v) = v plus a new D(v) `NAME (destroy)`, with
//                          v's user pointer and needs; C(v) after D(v);
//   create_before_destroy  the same, but D(v) after C(v).
//
// A destroy is "late" when it runs after the creates: a
// create_before_destroy vertex's, and, as Terraform propagates
// create_before_destroy to dependencies, the destroy of anything destroyed
// that a late destroy's vertex depends on. Every other destroy is "early". With a -> b in the input (a depends on b), the apply
// graph gets, where the vertices exist:
//
//   C(a) -> C(b)   creates in dependency order (the input edge);
//   D(b) -> D(a)   a dependent is destroyed first;
//   C(a) -> D(b)   when D(b) is early: a is not created against what goes;
//   D(b) -> C(a)   when D(b) is late: the old b outlives a's move to the new;
//   C(b) -> D(a)   when D(a) is early and b is created, updated or replaced:
//                  b changes once a's old instance is gone.
//
// The rules also hold where a depends on b through vertices with no action
// (Terraform follows a resource's dependencies through what is between);
// through a vertex with an action they chain.
//
// Ordering early destroys (dependents first), then creates (dependencies
// first), then late destroys (dependents first) satisfies every rule, so the
// apply graph is acyclic whenever the input is: this step never introduces a
// cycle, and a cycle in its input is refused in Terraform's words.
#pragma once

#include "build/declarations.hpp"
#include "graph/graph.hpp"

namespace dag {

// Rewrites `g` into its apply graph. Throws Errc::cycle (validate's
// "Cycle:" text, nothing changed) when `g` has a cycle or a self reference;
// Errc::duplicate_name when a destroy vertex's name is taken.
void order_destroys(Graph &g, Declarations &declarations);

// Terraform's name of the destroy vertex of a vertex named `name`.
std::string destroy_name(std::string_view name);

}  // namespace dag
