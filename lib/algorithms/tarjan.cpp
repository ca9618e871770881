#include "algorithms/tarjan.hpp"

#include <algorithm>

#include "graph/shared_snapshot.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

bool has_self_edge(const Snapshot &s) {
    for (Index v = 0; v < s.size(); ++v)
        if (std::find(s.out_begin(v), s.out_end(v), v) != s.out_end(v)) return true;
    return false;
}

}  // namespace

// Tarjan's algorithm with Pearce's single array of numbers instead of three
// (discovery order, low link, component): num[v] is 0 while v is unvisited,
// its discovery number lowered to its low link while v is open, and
// n - (its component) once v is in a component. Discovery numbers count
// only open vertices, so they stay below every component's number and one
// `min` updates low links without asking whether a neighbour is finished.
// One random access per edge instead of three keeps a million-vertex graph
// mostly in cache; the rest is arrays sized once.
Components strongly_connected(const Snapshot &s) {
    const Index n = static_cast<Index>(s.size());
    const Index *offsets = s.out_offsets.data();
    const Index *targets = s.out_targets.data();

    Components out;
    out.members.resize(n);
    out.offsets.resize(std::size_t{n} + 1);
    LargeVector<Index> num(n, 0);
    // The explicit call stack (a vertex, where its edge scan stands, its
    // discovery number) replaces one native stack frame per level of
    // recursion; with Tarjan's stack of open vertices it is at most n deep.
    struct Frame {
        Index v, next, end, discovered;
    };
    const LargeBuffer<Frame> calls(n);
    const LargeBuffer<Index> open(n);
    Frame *const bottom = calls.data();
    Frame *top = bottom;  // one past the innermost frame
    Index *open_top = open.data();
    Index *members = out.members.data();
    Index counter = 1;    // the next discovery number
    Index component = n;  // the next component's number, counting down
    Index done = 0;       // members written
    Index count = 0;      // components written

    for (Index root = 0; root < n; ++root) {
        if (num[root] != 0) continue;
        Index v = root;
        bool descend = true;
        while (descend) {
            // Opens v. Its neighbours' numbers and rows are asked for now:
            // the scan reads every number, and descends into some rows.
            const Index first = offsets[v], last = offsets[v + 1];
            for (Index e = first; e < last; ++e) {
                __builtin_prefetch(num.data() + targets[e]);
                __builtin_prefetch(offsets + targets[e]);
            }
            num[v] = counter;
            *top++ = Frame{v, first, last, counter};
            *open_top++ = v;
            ++counter;
            // Goes on with the innermost frame until it meets an unvisited
            // vertex or the whole tree under `root` is finished.
            descend = false;
            for (;;) {
                Frame &f = top[-1];
                if (f.next != f.end) {
                    const Index w = targets[f.next++];
                    if (num[w] == 0) {
                        v = w;
                        descend = true;
                        break;
                    }
                    num[f.v] = std::min(num[f.v], num[w]);
                    continue;
                }
                const Index u = f.v;
                if (num[u] == f.discovered) {
                    // u is a root: it and every open vertex above it form a
                    // component, listed in the order they leave the stack.
                    Index w;
                    do {
                        w = *--open_top;
                        num[w] = component;
                        members[done++] = w;
                        --counter;
                    } while (w != u);
                    out.offsets[++count] = done;
                    --component;
                }
                if (--top == bottom) break;
                num[top[-1].v] = std::min(num[top[-1].v], num[u]);
            }
        }
    }
    out.offsets.resize(std::size_t{count} + 1);
    for (Index &x : num) x = n - x;
    out.component_of = std::move(num);
    return out;
}

bool has_cycle(const Snapshot &s) {
    // Kahn's pass is cheaper than Tarjan when only a yes/no is needed; a
    // self edge keeps its vertex's in-degree above zero, so it counts too.
    // First in, first out, because then the vertices handled next are known
    // ahead: each is asked for in steps, as a loop over an array prefetches
    // (its row's offset, then its row, then the counters the row points
    // to), so the random reads of a large graph overlap instead of each
    // waiting for its miss. Every vertex enters the queue once at most.
    const Index n = static_cast<Index>(s.size());
    const Index *offsets = s.out_offsets.data();
    const Index *targets = s.out_targets.data();
    LargeVector<Index> indegree(n);
    const LargeBuffer<Index> queue(n);
    Index *const q = queue.data();
    Index head = 0, tail = 0;
    for (Index v = 0; v < n; ++v) {
        indegree[v] = s.in_degree(v);
        if (indegree[v] == 0) q[tail++] = v;
    }
    constexpr Index offset_ahead = 12, row_ahead = 8, counters_ahead = 4;
    while (head < tail) {
        if (head + offset_ahead < tail) __builtin_prefetch(offsets + q[head + offset_ahead]);
        if (head + row_ahead < tail) __builtin_prefetch(targets + offsets[q[head + row_ahead]]);
        if (head + counters_ahead < tail) {
            const Index u = q[head + counters_ahead];
            for (Index e = offsets[u]; e < offsets[u + 1]; ++e) __builtin_prefetch(indegree.data() + targets[e]);
        }
        const Index v = q[head++];
        for (Index e = offsets[v]; e < offsets[v + 1]; ++e)
            if (--indegree[targets[e]] == 0) q[tail++] = targets[e];
    }
    return tail != n;
}

ComponentIds strongly_connected_components(const Graph &g) {
    const SharedSnapshot s = shared_snapshot(g);
    Components c = strongly_connected(*s);
    // Only components of one vertex each, and no self edge: no cycle.
    share_if_acyclic(g, s, !s.cached && c.count() == s->size() && !has_self_edge(*s));
    ComponentIds out;
    out.offsets = std::move(c.offsets);
    out.ids.reserve(c.members.size());
    for (Index m : c.members) out.ids.push_back(s->id_of(m));
    return out;
}

}  // namespace dag
