// The deterministic tie-break shared by every ordered algorithm: vertices
// compare by name, then by id. An unnamed vertex has the empty name, which
// sorts before every real name, so unnamed vertices come first, by id.
//
// Ranks come from the graph's maintained name order (sorted_names.hpp) and
// are kept with the cached snapshot until a name changes, so the hot loops
// of the orders compare two integers instead of two strings, and an order of
// an unchanged graph sorts nothing.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"
#include "graph/snapshot.hpp"

namespace dag {

// The snapshot's rows renumbered by rank: row k belongs to the vertex of
// rank k and lists its neighbours by rank. An order takes the smallest free
// rank again and again and reads its row: here a rank is its own queue key
// and row number, so the pass reads no rank table on the way (a miss per
// neighbour on a large graph). Where the names follow the graph's shape
// (a chain named in order, say) the rows are also read in sequence; where
// they do not, the pops jump about the rows (bench/README.md, "The second
// order of a named graph"). Made for an order's first computation and
// dropped after it: the order itself is what is kept.
struct RankedRows {
    HugeVector<Snapshot::Index> out_offsets, out_targets;  // dependencies
    HugeVector<Snapshot::Index> in_offsets, in_sources;    // dependents
    HugeVector<VertexId> ids;                              // by rank
};

// Which neighbour lists an order reads: an order takes a vertex's
// dependents once it is emitted if it goes dependencies first, and its
// dependencies if it goes dependents first.
enum class Neighbours { dependencies, dependents };

struct NameRanks {
    // rank[i] for each dense index i of the snapshot: a permutation of
    // 0..n-1 where a smaller rank means "smaller name, then smaller id".
    HugeVector<Snapshot::Index> rank;
    // Its inverse: the dense index holding each rank.
    HugeVector<Snapshot::Index> by_rank;
    // rank[i] == i for every i: the vertices were added in name order (a
    // graph read from a DOT file libdag wrote, which lists them by name), so
    // the snapshot's own rows are already in rank order and need no
    // renumbering.
    bool identity = false;
};

// The rows of `s`, the snapshot `r` is for, that an order reading `lists`
// needs: both directions' offsets (what a vertex waits for is counted in
// the other direction), the ids, and the `lists` neighbours; the other
// lists stay empty. O(V + E).
RankedRows ranked_rows(const NameRanks &r, const Snapshot &s, Neighbours lists);

// The ranks for snapshot `s` of `g`: cached while `s` is g's cached snapshot
// and no name changed; otherwise O(V) plus the name order's upkeep
// (O(k log k) for k names changed since it was last brought up to date).
std::shared_ptr<const NameRanks> name_ranks(const Graph &g, const Snapshot &s);

}  // namespace dag

namespace dag {

// The same order as name_ranks() for a handful of vertices, comparing names
// directly, for walks that touch only part of a large graph.
struct NameLess {
    const Graph &g;
    bool operator()(VertexId a, VertexId b) const {
        const std::optional<std::string_view> na = g.name(a);
        const std::optional<std::string_view> nb = g.name(b);
        if (!na || !nb) return na == nb ? a < b : !na;
        return *na < *nb;
    }
};

}  // namespace dag
