// Updates during a walk. The batch is checked first, while the walk runs on:
// ids, names, and cycles, against a topological order of the graph that the
// walk keeps from one update to the next (dynamic_order.hpp), so an update
// costs about what it changes, not a copy and a check of the whole graph.
// Then, with the walk quiesced (walk_executor.hpp, "Sections"), the vertices
// it would hold back or remove are claimed (each must not have started), and
// only then are the graph (in place) and the walk state changed, so a
// refused batch leaves both, and the order, as they were.
#include "walk/walk_update.hpp"

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>

#include "graph/error.hpp"
#include "graph/growth.hpp"
#include "algorithms/dynamic_order.hpp"
#include "algorithms/validate.hpp"
#include "walk/walk_executor.hpp"
#include "walk/walker.hpp"

namespace dag {

using walk_detail::Phase;
using walk_detail::Section;
using walk_detail::Slot;
using walk_detail::Word;

VertexId WalkUpdate::add_vertex(std::optional<std::string_view> name, void *user, bool always) {
    if (name) check_name(*name);
    vertices.push_back(NewVertex{name ? std::optional<std::string>(std::string(*name)) : std::nullopt, user, always});
    return provisional(vertices.size() - 1);
}

namespace {

// A vertex waiting again to be tried again has started (its ran bit).
bool never_started(Word w) {
    return walk_detail::phase_of(w) == Phase::waiting && !(w & walk_detail::ran_bit);
}

// Why an update comes too late for a vertex hold_back or mark_removed
// refused: one skipped or cancelled before it started has ended without
// running, and "has already started" sent the host looking for its run.
const char *too_late(const Slot &s) {
    const Word w = s.word.load(std::memory_order_acquire);
    if (walk_detail::phase_of(w) == Phase::done && !(w & walk_detail::ran_bit)) return "has already ended without running";
    return "has already started";
}

// Adds one to a waiting vertex's count; false once it has started.
bool hold_back(Slot *s) {
    Word w = s->word.load(std::memory_order_acquire);
    while (never_started(w))
        if (s->word.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
    return false;
}

bool mark_removed(Slot *s) {
    Word w = s->word.load(std::memory_order_acquire);
    while (never_started(w))
        if (s->word.compare_exchange_weak(w, walk_detail::with_phase(w, Phase::removed), std::memory_order_acq_rel,
                                          std::memory_order_acquire))
            return true;
    return false;
}

// Marks a vertex's waiter list as changed unless it already finished (then
// its waiters were released from the frozen list and the change is moot).
bool mark_overlay(Slot *s) {
    Word w = s->word.load(std::memory_order_acquire);
    while (walk_detail::phase_of(w) != Phase::done)
        if (s->word.compare_exchange_weak(w, w | walk_detail::overlay, std::memory_order_acq_rel,
                                          std::memory_order_acquire))
            return true;
    return false;
}

// A vertex that has finished, whatever its status.
bool has_finished(const Slot &s) {
    return walk_detail::phase_of(s.word.load(std::memory_order_acquire)) == Phase::done;
}

}  // namespace

bool Walk::waits_on_a_failure(VertexId id) {
    auto failed = [&](Vertex v) {
        const Slot &d = *lookup(Graph::id_of(v));
        const VertexStatus st = status_of(d);
        return has_finished(d) && (st == VertexStatus::failed || st == VertexStatus::upstream_failed);
    };
    // Every vertex of the graph is one of the walk's: those of its snapshot
    // and those updates added (a removed one left the graph too).
    auto any = [&](const auto &list) {
        for (auto [it, end] = boost::adjacent_vertices(Graph::index_of(id), list); it != end; ++it)
            if (failed(*it)) return true;
        return false;
    };
    return reverse_ ? any(graph_->reverse_adjacency()) : any(graph_->adjacency());
}

namespace {

struct EdgeHash {
    std::size_t operator()(std::pair<VertexId, VertexId> e) const noexcept {
        return std::hash<VertexId>()(e.first * 0x9E3779B97F4A7C15ull ^ e.second);
    }
};
using EdgeSet = std::unordered_set<std::pair<VertexId, VertexId>, EdgeHash>;

// The graph as a batch will leave it, for the order's searches: the graph's
// edges less those the batch disconnects or removes, plus the batch's new
// edges as they are checked.
class BatchView final : public EdgeView {
public:
    BatchView(const Graph &g, const EdgeSet &disconnecting, const std::unordered_set<VertexId> &removing)
        : adj_(g.adjacency()), rev_(g.reverse_adjacency()), bound_(g.index_bound()), disconnecting_(disconnecting), removing_(removing),
          filter_(!disconnecting.empty() || !removing.empty()) {}

    void add(Vertex a, Vertex b) {
        dependencies_[a].push_back(b);
        dependents_[b].push_back(a);
    }

    void dependencies(Vertex v, std::vector<Vertex> &out) const override {
        if (v < bound_)
            for (auto [it, end] = boost::adjacent_vertices(v, adj_); it != end; ++it)
                if (kept(v, *it)) out.push_back(*it);
        append(dependencies_, v, out);
    }

    void dependents(Vertex v, std::vector<Vertex> &out) const override {
        if (v < bound_)
            for (auto [it, end] = boost::adjacent_vertices(v, rev_); it != end; ++it)
                if (kept(*it, v)) out.push_back(*it);
        append(dependents_, v, out);
    }

private:
    using Lists = std::unordered_map<Vertex, std::vector<Vertex>>;

    bool kept(Vertex from, Vertex to) const {
        if (!filter_) return true;
        const VertexId a = Graph::id_of(from), b = Graph::id_of(to);
        return !removing_.count(a) && !removing_.count(b) && !disconnecting_.count({a, b});
    }
    static void append(const Lists &lists, Vertex v, std::vector<Vertex> &out) {
        if (auto it = lists.find(v); it != lists.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }

    const AdjacencyList &adj_;
    const ReverseList &rev_;
    const std::size_t bound_;
    const EdgeSet &disconnecting_;
    const std::unordered_set<VertexId> &removing_;
    const bool filter_;
    Lists dependencies_, dependents_;
};

// Puts the walk's order back unless the batch lands.
class OrderGuard {
public:
    explicit OrderGuard(DynamicOrder &order) : order_(&order) {}
    ~OrderGuard() { rollback(); }
    OrderGuard(const OrderGuard &) = delete;
    OrderGuard &operator=(const OrderGuard &) = delete;
    void commit() noexcept { order_ = nullptr; }
    void rollback() noexcept {
        if (order_) order_->rollback();
        order_ = nullptr;
    }

private:
    DynamicOrder *order_;
};

// An update's cycle check: moves `order` (of `g`, whose snapshot `snap` is
// until the first update lands) to agree with the batch's new edges, or
// throws Errc::cycle, with every cycle listed, and leaves it as it was.
void check_acyclic(DynamicOrder &order, const Graph &g, const Snapshot &snap, const WalkUpdate &u,
                   const std::vector<VertexId> &new_ids, const std::vector<std::pair<VertexId, VertexId>> &new_edges,
                   const std::vector<std::pair<VertexId, VertexId>> &connects,
                   const std::vector<std::pair<VertexId, VertexId>> &disconnects,
                   const std::vector<VertexId> &removals, const EdgeSet &disconnecting,
                   const std::unordered_set<VertexId> &removing) {
    if (!order.built()) order.build(snap, g.index_bound());
    order.mark();
    OrderGuard guard(order);
    // A new vertex that only others depend on goes first, any other last:
    // then its edges agree with the order and cost nothing to check.
    const VertexId bound = g.index_bound();
    std::vector<char> waits(new_ids.size()), waited_for(new_ids.size());
    for (auto [a, b] : new_edges) {
        if (a > bound) waits[a - bound - 1] = 1;
        if (b > bound) waited_for[b - bound - 1] = 1;
    }
    for (std::size_t k = 0; k < new_ids.size(); ++k) {
        if (waited_for[k] && !waits[k])
            order.place_first(Graph::index_of(new_ids[k]));
        else
            order.place_last(Graph::index_of(new_ids[k]));
    }
    BatchView view(g, disconnecting, removing);
    for (auto [a, b] : new_edges) {
        if (!order.add_edge(Graph::index_of(a), Graph::index_of(b), view)) {
            // Refused: the message lists every cycle, from a copy of the
            // graph with the whole batch made.
            Graph cand(g);
            for (const auto &nv : u.vertices)
                cand.add_vertex(nv.name ? std::optional<std::string_view>(*nv.name) : std::nullopt, nv.user);
            for (auto [x, y] : connects) cand.connect(x, y);
            for (auto [x, y] : disconnects) cand.disconnect(x, y);
            for (VertexId id : removals) cand.remove_vertex(id);
            throw Error(Errc::cycle, "update refused, it would create a cycle:\n" + cycle_report(cand));
        }
        view.add(Graph::index_of(a), Graph::index_of(b));
    }
    guard.commit();
}

// Keeps every other thread out of the walk's scheduling state while held.
class Quiesced {
public:
    explicit Quiesced(walk_detail::Executor &ex) : ex_(&ex) { ex.quiesce(); }
    ~Quiesced() { end(); }
    Quiesced(const Quiesced &) = delete;
    Quiesced &operator=(const Quiesced &) = delete;
    void end() noexcept {
        if (ex_) ex_->resume();
        ex_ = nullptr;
    }

private:
    walk_detail::Executor *ex_;
};

}  // namespace

std::vector<VertexId> Walk::apply(const WalkUpdate &u) {
    // Before any lock: a reader of the graph on this thread would wait for
    // itself, and holding its read while waiting for another update's
    // serialisation lock would deadlock with that update.
    if (ReadScope::reading(*graph_))
        throw Error(Errc::state, "the graph cannot be updated from inside a read of it (a visitor or predicate)");
    walk_detail::CallScope scope(*ex_);
    std::vector<Slot *> ready, skips, removed_slots;
    std::vector<VertexId> new_ids;
    // The graph changes only here, so the checks made below, before the
    // walk is quiesced, still hold once it is.
    std::unique_lock<std::mutex> serial(apply_mu_);
    std::unique_lock<std::mutex> lk(mu_);
    if (finishing_) throw Error(Errc::state, "the walk has already finished");
    lk.unlock();

    // 1. The batch's checks: ids, names, cycles; the walk runs on meanwhile.
    const std::size_t bound = graph_->index_bound();
    for (std::size_t k = 0; k < u.vertices.size(); ++k) new_ids.push_back(Graph::id_of(bound + k));
    auto is_new = [&](VertexId id) { return id > bound; };
    // How messages name a vertex, new ones included.
    auto shown = [&](VertexId id) {
        if (!is_new(id)) return graph_->display_name(id);
        const auto &name = u.vertices[id - bound - 1].name;
        return name ? *name : std::to_string(id);
    };
    std::unordered_map<std::string_view, VertexId> new_names;
    for (std::size_t k = 0; k < u.vertices.size(); ++k) {
        if (!u.vertices[k].name) continue;
        const std::string &name = *u.vertices[k].name;
        if (graph_->has_name(name))
            throw Error(Errc::duplicate_name, "vertex name \"" + name + "\" is already used by vertex " +
                                                  std::to_string(graph_->find(name)));
        // An earlier vertex of the batch has no id the caller knows yet.
        if (auto [it, fresh] = new_names.emplace(name, new_ids[k]); !fresh)
            throw Error(Errc::duplicate_name, "vertex " + std::to_string(k) + " of the update: vertex name \"" + name +
                                                  "\" is already used by vertex " +
                                                  std::to_string(it->second - bound - 1) + " of the update");
    }
    auto real = [&](VertexId id) {
        if (u.is_provisional(id)) return new_ids[u.provisional_index(id)];
        graph_->checked(id);
        return id;
    };
    std::unordered_set<VertexId> removing;
    std::vector<VertexId> removals;
    for (VertexId id : u.removals) {
        if (u.is_provisional(id))
            throw Error(Errc::invalid_argument, "a vertex added by this update cannot also be removed by it");
        graph_->checked(id);
        if (removing.insert(id).second) removals.push_back(id);
    }
    auto edge = [&](std::pair<VertexId, VertexId> e) {
        std::pair<VertexId, VertexId> r{real(e.first), real(e.second)};
        if (removing.count(r.first) || removing.count(r.second))
            throw Error(Errc::invalid_argument, "edge " + std::to_string(r.first) + " -> " +
                                                    std::to_string(r.second) +
                                                    " touches a vertex this update removes");
        return r;
    };
    // The net edge changes: an edge both connected and disconnected by the
    // batch ends up absent.
    std::vector<std::pair<VertexId, VertexId>> connects, disconnects;
    for (auto e : u.connects) connects.push_back(edge(e));
    for (auto e : u.disconnects) disconnects.push_back(edge(e));
    EdgeSet disconnecting(disconnects.begin(), disconnects.end()), connecting, going;
    std::vector<std::pair<VertexId, VertexId>> new_edges, gone_edges;
    for (auto e : connects)
        if (!disconnecting.count(e) && (is_new(e.first) || is_new(e.second) || !graph_->has_edge(e.first, e.second)) &&
            connecting.insert(e).second)
            new_edges.push_back(e);
    for (auto e : disconnects)
        if (!is_new(e.first) && !is_new(e.second) && graph_->has_edge(e.first, e.second) && going.insert(e).second)
            gone_edges.push_back(e);
    // No update has changed the graph before the first one, so until then
    // the walk's snapshot is the graph.
    check_acyclic(order_, *graph_, *snap_, u, new_ids, new_edges, connects, disconnects, removals, disconnecting,
                  removing);
    // From here a refusal also puts the order back.
    OrderGuard order_kept(order_);

    // Readers first: one may be waiting to enter a section (a visitor that
    // completes a vertex), never the other way round. Sections take the
    // walk's lock, so quiesce without it.
    std::unique_lock<std::shared_mutex> readers_out = graph_->exclude_readers();
    Quiesced quiet(*ex_);
    lk.lock();
    if (finishing_) throw Error(Errc::state, "the walk has already finished");
    updated_.store(true, std::memory_order_release);

    // The net edge changes, as (waiter, dependency) pairs of the walk.
    auto as_wait = [&](std::pair<VertexId, VertexId> e) {
        return reverse_ ? std::make_pair(e.second, e.first) : e;
    };
    std::vector<std::pair<VertexId, VertexId>> added, dropped;
    for (auto e : new_edges) added.push_back(as_wait(e));
    for (auto e : gone_edges) dropped.push_back(as_wait(e));

    // 2. Claims: every existing vertex that must wait longer, or be
    // removed, must not have started.
    std::vector<Slot *> held, marked;
    auto undo = [&] {
        for (Slot *s : held) ex_->release_waiter(s, true, ready, skips);
        for (Slot *s : marked) {
            Word w = s->word.load(std::memory_order_acquire);
            while (!s->word.compare_exchange_weak(w, walk_detail::with_phase(w, Phase::waiting),
                                                  std::memory_order_acq_rel, std::memory_order_acquire)) {
            }
            if (walk_detail::count_of(w) == 0)
                ex_->became_ready(s, walk_detail::with_phase(w, Phase::waiting), ready, skips);
        }
    };
    // Refused or applied: lets the walk and its readers go on, then finishes
    // the vertices the changes left to skip and queues those made ready.
    auto hand_over = [&] {
        lk.unlock();
        quiet.end();
        readers_out.unlock();
        // The observer hears of the vertices this batch skipped or removed
        // from here on, and may apply an update of its own.
        serial.unlock();
        Section sec(*ex_);
        ex_->settle_skipped(sec, skips, ready);
        sec.leave();
        ex_->push(ready);
    };
    // The waiters each removal releases, gathered before the graph changes:
    // from then on nothing may allocate, or a failure would leave the graph
    // changed and the walk not. The batch's edges never touch a removed
    // vertex, so wiring them in does not change these lists.
    std::vector<std::vector<Slot *>> removal_waiters;
    // The messages of removed vertices this batch creates, taken back if it
    // is refused.
    std::vector<Slot *> messaged;
    try {
        removal_waiters.reserve(removals.size());
        std::size_t releases = new_ids.size() + added.size() + dropped.size() + removals.size();
        for (VertexId id : removals) {
            Slot *r = lookup(id);
            waiters_locked(*r, overlays_[r], removal_waiters.emplace_back());
            releases += removal_waiters.back().size();
        }
        // Room for every vertex the batch, or its refusal, can make ready or
        // skip, in the lists and in the executor's queue.
        ready.reserve(releases);
        skips.reserve(releases);
        removed_slots.reserve(removals.size());
        messaged.reserve(removals.size());
        ex_->reserve_queue(releases);
        held.reserve(added.size());
        marked.reserve(removals.size());
        for (auto [waiter, dep] : added) {
            if (is_new(waiter)) continue;
            Slot *s = lookup(waiter);
            // Even on a dependency that has finished: the walk could no
            // longer honour the edge (the two may have run side by side),
            // and every edge of the graph it leaves is one it honoured.
            if (!hold_back(s))
                throw Error(Errc::state, "update refused: vertex " + graph_->display_name(waiter) + " " +
                                             too_late(*s) + ", so it cannot depend on " + shown(dep) + " now");
            held.push_back(s);
        }
        for (VertexId id : removals) {
            Slot *s = lookup(id);
            if (!mark_removed(s))
                throw Error(Errc::state, "update refused: vertex " + graph_->display_name(id) + " " + too_late(*s) +
                                             ", so it cannot be removed");
            marked.push_back(s);
        }
        // 3. Walk state for new vertices; a guard count keeps each from
        // running until its edges are in place.
        for (std::size_t k = 0; k < new_ids.size(); ++k) {
            walk_detail::ExtraSlot &s = extra_.emplace_back();
            s.walk = this;
            s.id = new_ids[k];
            s.word.store(1 | (u.vertices[k].always ? walk_detail::always : 0), std::memory_order_relaxed);
            extra_index_[s.id] = &s;
        }
        for (auto [waiter, dep] : added) {
            auto &o = overlays_[lookup(dep)];
            dag::reserve_more(o.added, added.size());
        }
        for (auto [waiter, dep] : dropped) {
            auto &o = overlays_[lookup(dep)];
            dag::reserve_more(o.removed, dropped.size());
        }
        for (VertexId id : removals) {
            Slot *r = lookup(id);
            auto [it, fresh] = messages_.try_emplace(r);
            if (fresh) messaged.push_back(r);
            it->second = "removed by an update before it started";
        }
        // 4. The graph itself, last, all or nothing.
        std::vector<Graph::NewVertex> vertices;
        vertices.reserve(u.vertices.size());
        for (const auto &nv : u.vertices)
            vertices.push_back({nv.name ? std::optional<std::string_view>(*nv.name) : std::nullopt, nv.user});
        graph_->edit_while_walked(vertices, new_edges, gone_edges, removals);
        order_kept.commit();
    } catch (...) {
        for (Slot *r : messaged) messages_.erase(r);
        while (!extra_.empty() && is_new(extra_.back().id)) {
            extra_index_.erase(extra_.back().id);
            extra_.pop_back();
        }
        undo();
        // Before hand_over lets the next batch in: it checks against the order.
        order_kept.rollback();
        hand_over();
        throw;
    }
    total_.fetch_add(new_ids.size(), std::memory_order_acq_rel);

    // A waiter skipped for a failure is skipped for the dependencies it has
    // now: with its edge to the vertex that failed dropped, it may run (as
    // Terraform's walker, which looks at the current dependencies). Before
    // the releases below, which may make it ready.
    for (auto [waiter, dep] : dropped) {
        Slot *w = lookup(waiter);
        const Word word = w->word.load(std::memory_order_acquire);
        if ((word & walk_detail::dep_failed) && walk_detail::phase_of(word) == Phase::waiting &&
            !waits_on_a_failure(waiter))
            w->word.fetch_and(~walk_detail::dep_failed, std::memory_order_acq_rel);
    }

    // 5. Wire the edges and removals into the running walk.
    for (auto [waiter, dep] : added) {
        Slot *w = lookup(waiter), *d = lookup(dep);
        if (is_new(waiter)) w->word.fetch_add(1, std::memory_order_acq_rel);
        if (mark_overlay(d)) {
            overlays_[d].add(w);
        } else {
            ex_->release_waiter(w,
                                status_of(*d) != VertexStatus::failed && status_of(*d) != VertexStatus::upstream_failed,
                                ready, skips);
        }
    }
    for (auto [waiter, dep] : dropped) {
        Slot *w = lookup(waiter), *d = lookup(dep);
        if (mark_overlay(d)) {
            overlays_[d].drop(w);
            ex_->release_waiter(w, true, ready, skips);
        }
    }
    // A vertex made to wait longer, or removed, may hold the slots of the
    // pools it needs, handed to it while it was ready: held back, it could
    // keep them from the very vertex it now waits for.
    for (Slot *s : held) ex_->release_pools(s, ready);
    for (VertexId id : removals) ex_->release_pools(lookup(id), ready);
    for (std::size_t k = 0; k < removals.size(); ++k) {
        for (Slot *d : removal_waiters[k]) ex_->release_waiter(d, true, ready, skips);
        removed_slots.push_back(lookup(removals[k]));
    }
    for (VertexId id : new_ids) ex_->release_waiter(lookup(id), true, ready, skips);
    hand_over();
    for (Slot *r : removed_slots) {
        if (ex_->observer().call)
            ex_->observe(*this, Event::skipped, id_of(*r), VertexStatus::not_run, 0, true);
        else
            done_.fetch_add(1, std::memory_order_acq_rel);
    }
    if (done_.load(std::memory_order_acquire) == total_.load(std::memory_order_acquire)) maybe_finish(nullptr);
    return new_ids;
}

}  // namespace dag
