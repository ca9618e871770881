// A topological order kept up to date while edges are added: the cycle check
// of a running walk's updates (walk_update.cpp). Building it costs O(V + E)
// once per walk; after that an added edge that agrees with the order costs
// O(1), and one that does not costs a search of only the vertices placed
// between its two ends, which are then reordered (Pearce and Kelly, "A
// dynamic topological sort algorithm for directed acyclic graphs", 2007).
// An update used to pay a copy and a cycle check of the whole graph instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {

// The edges an order is checked against, by vertex index: a graph as it will
// be once a batch of changes is made, before it is made.
class EdgeView {
public:
    virtual ~EdgeView() = default;
    // Appends what `v` depends on.
    virtual void dependencies(Vertex v, std::vector<Vertex> &out) const = 0;
    // Appends what depends on `v`.
    virtual void dependents(Vertex v, std::vector<Vertex> &out) const = 0;
};

class DynamicOrder {
public:
    using Position = std::int64_t;

    bool built() const noexcept { return built_; }
    // Gives every vertex index below `index_bound` a distinct position,
    // each dependency before its dependents, from a snapshot of the graph
    // (the walk's own: a Kahn pass over its compact arrays costs a fraction
    // of one over the adjacency list). Removed vertices, which the snapshot
    // leaves out, get positions too. The snapshot must be acyclic.
    void build(const Snapshot &s, std::size_t index_bound);

    // Positions for vertices that have no edges yet: after every other
    // vertex, or before.
    void place_last(Vertex v);
    void place_first(Vertex v);

    // Makes the order agree with a new edge `a` -> `b` (a depends on b);
    // `view` has every edge already added, with or without this one. False
    // when b already depends on a, directly or not, so the edge would close
    // a cycle; then nothing has moved.
    bool add_edge(Vertex a, Vertex b, const EdgeView &view);

    // Remembers the order as it is, so that rollback() can return to it
    // (a refused batch): undoes every move and placement made since.
    void mark();
    void rollback();

    std::size_t size() const noexcept { return pos_.size(); }
    Position position(Vertex v) const noexcept { return pos_[v]; }

private:
    void set(Vertex v, Position p);
    bool seen(Vertex v) const noexcept { return v < seen_.size() && seen_[v] == stamp_; }
    void see(Vertex v);

    bool built_ = false;
    std::vector<Position> pos_;
    Position first_ = 0;  // the smallest position given so far
    Position last_ = 0;   // the largest
    // Since mark(): old positions of moved vertices, and the state to return to.
    std::vector<std::pair<Vertex, Position>> log_;
    std::size_t marked_size_ = 0;
    Position marked_first_ = 0, marked_last_ = 0;
    // Visited marks of the current search, by stamp, so no search clears them.
    std::vector<std::uint32_t> seen_;
    std::uint32_t stamp_ = 0;
};

}  // namespace dag
