#include "algorithms/validate.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "graph/name_order.hpp"
#include "graph/shared_snapshot.hpp"
#include "algorithms/tarjan.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

// A vertex's display name without allocating: its name, or its id in
// decimal written into the object itself.
class DisplayName {
public:
    DisplayName(const Graph &g, VertexId id) : id_(id) {
        if (const std::optional<std::string_view> name = g.name(id)) {
            view_ = *name;
        } else {
            const auto end = std::to_chars(digits_, digits_ + sizeof digits_, id).ptr;
            view_ = std::string_view(digits_, static_cast<std::size_t>(end - digits_));
        }
    }
    DisplayName(const DisplayName &) = delete;
    DisplayName &operator=(const DisplayName &) = delete;

    // The order cycles are rotated and sorted by: shortest display name
    // first, then bytewise, then id, so a message reads the same every run.
    bool operator<(const DisplayName &o) const {
        if (view_.size() != o.view_.size()) return view_.size() < o.view_.size();
        if (view_ != o.view_) return view_ < o.view_;
        return id_ < o.id_;
    }

    // The order listed names are sorted in: bytewise as printed, then id.
    bool printed_before(const DisplayName &o) const {
        if (view_ != o.view_) return view_ < o.view_;
        return id_ < o.id_;
    }

private:
    VertexId id_;
    char digits_[24];
    std::string_view view_;
};

bool shorter_name(const Graph &g, VertexId a, VertexId b) { return DisplayName(g, a) < DisplayName(g, b); }
bool printed_before(const Graph &g, VertexId a, VertexId b) {
    return DisplayName(g, a).printed_before(DisplayName(g, b));
}

// Lists one component starting at its shortest-named member, then depth
// first along dependencies inside the component, neighbours in name order.
// Iterative: a ring of a million vertices is one component.
std::vector<VertexId> order_cycle(const Graph &g, const Snapshot &s, const Components &c, std::size_t comp,
                                  const HugeVector<Index> &rank, std::vector<char> &seen) {
    const Index *first = c.begin(comp);
    const Index *last = c.end(comp);
    const Index start =
        *std::min_element(first, last, [&](Index a, Index b) { return shorter_name(g, s.id_of(a), s.id_of(b)); });

    // The frames' sorted dependency lists live on one shared stack: a frame
    // owns pending[begin, end) and gives it back when it is popped.
    std::vector<Index> pending;
    struct Frame {
        std::size_t begin, next, end;
    };
    std::vector<Frame> stack;
    std::vector<VertexId> out;
    out.reserve(static_cast<std::size_t>(last - first));
    auto open = [&](Index v) {
        seen[v] = 1;
        out.push_back(s.id_of(v));
        const std::size_t begin = pending.size();
        for (const Index *w = s.out_begin(v); w != s.out_end(v); ++w)
            if (*w != v && c.component_of[*w] == c.component_of[start]) pending.push_back(*w);
        std::sort(pending.begin() + static_cast<std::ptrdiff_t>(begin), pending.end(),
                  [&](Index a, Index b) { return rank[a] < rank[b]; });
        stack.push_back({begin, begin, pending.size()});
    };
    open(start);
    while (!stack.empty()) {
        Frame &f = stack.back();
        if (f.next == f.end) {
            pending.resize(f.begin);
            stack.pop_back();
            continue;
        }
        const Index w = pending[f.next++];
        if (!seen[w]) open(w);  // invalidates f
    }
    return out;
}

void find_cycles(const Graph &g, const Snapshot &s, Validation &v) {
    const Components c = strongly_connected(s);
    std::shared_ptr<const NameRanks> ranks;
    // Shared by all components: they are disjoint, so it never needs clearing.
    std::vector<char> seen;
    for (std::size_t i = 0; i < c.count(); ++i) {
        if (c.size(i) < 2) continue;
        if (!ranks) {
            ranks = name_ranks(g, s);
            seen.assign(s.size(), 0);
        }
        v.cycles.push_back(order_cycle(g, s, c, i, ranks->rank, seen));
    }
    std::sort(v.cycles.begin(), v.cycles.end(),
              [&](const auto &a, const auto &b) { return shorter_name(g, a[0], b[0]); });

    for (Index i = 0; i < s.size(); ++i)
        if (std::find(s.out_begin(i), s.out_end(i), i) != s.out_end(i)) v.self_references.push_back(s.id_of(i));
    std::sort(v.self_references.begin(), v.self_references.end(),
              [&](VertexId a, VertexId b) { return printed_before(g, a, b); });
}

void add_cycle_messages(const Graph &g, Validation &v) {
    for (const auto &cycle : v.cycles) v.messages.push_back(cycle_message(g, cycle));
    for (VertexId id : v.self_references) v.messages.push_back("Self reference: " + g.display_name(id));
}

std::string join_lines(const std::vector<std::string> &lines) {
    std::string out;
    for (const auto &line : lines) {
        if (!out.empty()) out += '\n';
        out += line;
    }
    return out;
}

// Fills root_problem; returns the root when there is exactly one.
VertexId check_root(const Graph &g, const Snapshot &s, Validation &v) {
    std::vector<Index> roots;
    for (Index i = 0; i < s.size(); ++i)
        if (s.in_degree(i) == 0) roots.push_back(i);
    if (roots.size() == 1) return s.id_of(roots[0]);
    if (roots.empty()) {
        v.root_problem = "no roots found";
        v.root_errc = Errc::no_root;
        return no_vertex;
    }
    // Sorted as printed: an unnamed vertex prints as its id.
    std::vector<VertexId> ids(roots.size());
    for (std::size_t i = 0; i < roots.size(); ++i) ids[i] = s.id_of(roots[i]);
    std::sort(ids.begin(), ids.end(), [&](VertexId a, VertexId b) { return printed_before(g, a, b); });
    std::string msg = "multiple roots: ";
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i) msg += ", ";
        msg += g.display_name(ids[i]);
    }
    v.root_problem = std::move(msg);
    v.root_errc = Errc::multiple_roots;
    return no_vertex;
}

}  // namespace

std::string Validation::text() const { return join_lines(messages); }

Errc Validation::errc() const noexcept {
    // A cycle is the problem callers act on: a cyclic graph breaks the root
    // rule too (a plain 3-cycle has no root), which says nothing more.
    const bool cyclic = !cycles.empty() || !self_references.empty();
    return cyclic || root_problem.empty() ? Errc::cycle : root_errc;
}

std::string cycle_message(const Graph &g, const std::vector<VertexId> &cycle) {
    std::string out = "Cycle:";
    for (VertexId id : cycle) {
        out += "\n  ";
        out += g.display_name(id);
    }
    return out;
}

Validation validate(const Graph &g, bool single_root) {
    const SharedSnapshot s = shared_snapshot(g);
    Validation v;
    if (single_root) {
        check_root(g, *s, v);
        if (!v.root_problem.empty()) v.messages.push_back(v.root_problem);
    }
    if (!s.cached && has_cycle(*s)) {
        find_cycles(g, *s, v);
        add_cycle_messages(g, v);
    }
    share_if_acyclic(g, s, v.cycles.empty() && v.self_references.empty());
    return v;
}

VertexId root(const Graph &g) {
    const SharedSnapshot s = shared_snapshot(g);
    Validation v;
    VertexId r = check_root(g, *s, v);
    if (r == no_vertex) throw Error(v.root_errc, v.root_problem);
    return r;
}

std::string cycle_report(const Graph &g) {
    const SharedSnapshot s = shared_snapshot(g);
    const bool cyclic = !s.cached && has_cycle(*s);
    share_if_acyclic(g, s, !cyclic);
    if (!cyclic) return {};
    Validation v;
    find_cycles(g, *s, v);
    add_cycle_messages(g, v);
    return v.text();
}

void require_acyclic(const Graph &g, const Snapshot &s) {
    if (!has_cycle(s)) return;
    Validation v;
    find_cycles(g, s, v);
    add_cycle_messages(g, v);
    throw Error(Errc::cycle, v.text());
}

}  // namespace dag
