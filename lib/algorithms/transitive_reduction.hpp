// Transitive reduction in place: removes every edge u -> w for which another
// path from u to w exists, keeping exactly the same reachability.
//
// Bitset reachability in topological order, O(V * E / 64) word operations,
// instead of Terraform's depth-first search from every vertex, O(V * E).
// Memory stays bounded: the reachability matrix is built one block of target
// columns at a time (see reduction_block_words()).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {

// The edges of the acyclic snapshot `s` that the reduction removes, as dense
// index pairs (from, to), sorted. `block_columns` fixes the width of a block
// of the reachability matrix (rounded up to a multiple of 64; tests use 64
// to exercise many blocks); 0 picks it from reduction_block_words().
// Precondition: `s` is acyclic.
std::vector<std::pair<Snapshot::Index, Snapshot::Index>> redundant_edges(const Snapshot &s,
                                                                         std::size_t block_columns = 0);

// The 64-bit words per row of one block for `n` vertices. Aims at 64 MiB of
// bitsets, which stays in the last-level cache; but at least 64 words, since
// every block rereads the edges and narrow blocks make that dominate, unless
// that would take more than 1 GiB.
std::size_t reduction_block_words(std::size_t n);

// Removes the redundant edges from `g` and returns how many. A graph with a
// cycle or a self reference is refused with Errc::cycle and left unchanged;
// a graph being walked with Errc::busy.
std::size_t transitive_reduction(Graph &g);

}  // namespace dag
