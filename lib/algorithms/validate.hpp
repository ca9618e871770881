// Terraform's Root and Validate, reporting every problem at once, in
// Terraform 1.16's message format, and the cycles also as data.
#pragma once

#include <string>
#include <vector>

#include "graph/error.hpp"
#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {

struct Validation {
    // Set when the single-root rule was checked and failed: "no roots found"
    // or "multiple roots: a, b" (names sorted). Empty otherwise.
    std::string root_problem;
    Errc root_errc = Errc::no_root;
    // Every strongly connected component of more than one vertex, each
    // rotated to start at its shortest name (ties: bytewise smallest, then
    // smallest id) and listed in depth-first order along dependencies from
    // there, so in a simple cycle each vertex depends on the next. Cycles are
    // sorted by their first vertex (shortest name first).
    std::vector<std::vector<VertexId>> cycles;
    // Every vertex with an edge to itself, in name order.
    std::vector<VertexId> self_references;
    // One message per problem, in the order root, cycles, self references.
    std::vector<std::string> messages;

    bool ok() const noexcept { return messages.empty(); }
    // The messages joined with "\n"; "" when ok().
    std::string text() const;
    // The code a failed validation is reported with: Errc::cycle when there
    // is a cycle or a self reference, else the root problem's.
    Errc errc() const noexcept;
};

// Validates `g`. `single_root` applies Terraform's rule that exactly one
// vertex has no dependents (an empty graph then has "no roots found").
Validation validate(const Graph &g, bool single_root);

// The single vertex nothing depends on. Throws Errc::no_root
// ("no roots found") or Errc::multiple_roots ("multiple roots: " and the
// names, sorted, joined with ", ").
VertexId root(const Graph &g);

// "" when `g` has no cycle and no self reference; else the text of every
// cycle and self reference, exactly as validate() words them, joined with
// "\n". Cheap (one linear pass) on an acyclic graph.
std::string cycle_report(const Graph &g);

// Throws Errc::cycle with cycle_report's text when `s` (a snapshot of `g`)
// has a cycle or a self reference.
void require_acyclic(const Graph &g, const Snapshot &s);

// Terraform 1.16's text for one cycle: "Cycle:" then one name a line,
// indented two spaces.
std::string cycle_message(const Graph &g, const std::vector<VertexId> &cycle);

}  // namespace dag
