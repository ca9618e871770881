#include "algorithms/dynamic_order.hpp"

#include <algorithm>

#include "graph/error.hpp"

namespace dag {

void DynamicOrder::build(const Snapshot &s, std::size_t index_bound) {
    const std::size_t n = s.size();
    pos_.assign(index_bound, 0);
    Position next = 0;
    // Removed vertices are not in the snapshot; with no edges, anywhere will do.
    for (Vertex v = 0; v < index_bound; ++v)
        if (s.index_of(Graph::id_of(v)) == Snapshot::npos) pos_[v] = next++;
    std::vector<Snapshot::Index> waiting(n), ready;
    ready.reserve(n);
    for (Snapshot::Index i = 0; i < n; ++i)
        if ((waiting[i] = s.out_degree(i)) == 0) ready.push_back(i);
    for (std::size_t head = 0; head < ready.size(); ++head) {
        const Snapshot::Index i = ready[head];
        pos_[Graph::index_of(s.id_of(i))] = next++;
        for (const Snapshot::Index *p = s.in_begin(i), *e = s.in_end(i); p != e; ++p)
            if (--waiting[*p] == 0) ready.push_back(*p);
    }
    if (ready.size() != n) throw Error(Errc::cycle, "the graph has a cycle, so it has no topological order");
    first_ = 0;
    last_ = next - 1;
    built_ = true;
    mark();
}

void DynamicOrder::place_last(Vertex v) {
    if (v >= pos_.size()) pos_.resize(v + 1);
    pos_[v] = ++last_;
}

void DynamicOrder::place_first(Vertex v) {
    if (v >= pos_.size()) pos_.resize(v + 1);
    pos_[v] = --first_;
}

void DynamicOrder::set(Vertex v, Position p) {
    if (v < marked_size_) log_.emplace_back(v, pos_[v]);
    pos_[v] = p;
}

void DynamicOrder::see(Vertex v) {
    if (v >= seen_.size()) seen_.resize(std::max(pos_.size(), v + 1));
    seen_[v] = stamp_;
}

bool DynamicOrder::add_edge(Vertex a, Vertex b, const EdgeView &view) {
    if (a == b) return false;
    const Position lower = pos_[a], upper = pos_[b];
    if (upper < lower) return true;
    if (++stamp_ == 0) {
        std::fill(seen_.begin(), seen_.end(), 0);
        stamp_ = 1;
    }
    // b has to come before a. What must follow a (a, and its dependents
    // placed before b) and what must precede b (b, and its dependencies
    // placed after a) are found; nothing outside the two sets moves.
    std::vector<Vertex> follow, precede, frontier, next;
    // `from` and what it reaches through dependents (forward) or
    // dependencies, placed strictly between a and b; false when going
    // forward reaches b.
    auto collect = [&](Vertex from, bool forward, std::vector<Vertex> &out) {
        see(from);
        frontier.push_back(from);
        while (!frontier.empty()) {
            const Vertex v = frontier.back();
            frontier.pop_back();
            out.push_back(v);
            next.clear();
            forward ? view.dependents(v, next) : view.dependencies(v, next);
            for (Vertex w : next) {
                if (forward && w == b) return false;
                if ((forward ? pos_[w] < upper : pos_[w] > lower) && !seen(w)) {
                    see(w);
                    frontier.push_back(w);
                }
            }
        }
        return true;
    };
    if (!collect(a, true, follow)) return false;
    collect(b, false, precede);
    // The two sets take the positions they held between them: first what
    // must precede, then what must follow, each keeping its own order.
    auto earlier = [&](Vertex x, Vertex y) { return pos_[x] < pos_[y]; };
    std::sort(precede.begin(), precede.end(), earlier);
    std::sort(follow.begin(), follow.end(), earlier);
    std::vector<Position> slots;
    slots.reserve(precede.size() + follow.size());
    for (Vertex v : precede) slots.push_back(pos_[v]);
    for (Vertex v : follow) slots.push_back(pos_[v]);
    // Two sorted runs already.
    std::inplace_merge(slots.begin(), slots.begin() + static_cast<std::ptrdiff_t>(precede.size()), slots.end());
    std::size_t k = 0;
    for (Vertex v : precede) set(v, slots[k++]);
    for (Vertex v : follow) set(v, slots[k++]);
    return true;
}

void DynamicOrder::mark() {
    log_.clear();
    marked_size_ = pos_.size();
    marked_first_ = first_;
    marked_last_ = last_;
}

void DynamicOrder::rollback() {
    for (auto it = log_.rbegin(); it != log_.rend(); ++it) pos_[it->first] = it->second;
    pos_.resize(marked_size_);
    first_ = marked_first_;
    last_ = marked_last_;
    log_.clear();
}

}  // namespace dag
