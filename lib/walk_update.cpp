// Updates during a walk. The batch is tried on a copy of the graph first
// (ids, cycles), then, with the walk quiesced (walk_executor.hpp,
// "Sections"), the vertices it would hold back or remove are claimed (each
// must not have started), and only then are the graph and the walk state
// changed, so a refused batch leaves both as they were.
#include "walk_update.hpp"

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>

#include "error.hpp"
#include "validate.hpp"
#include "walk_executor.hpp"
#include "walker.hpp"

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

// Adds one to a waiting vertex's count; false once it has started.
bool hold_back(Slot *s) {
    Word w = s->word.load(std::memory_order_acquire);
    while (walk_detail::phase_of(w) == Phase::waiting)
        if (s->word.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
    return false;
}

bool mark_removed(Slot *s) {
    Word w = s->word.load(std::memory_order_acquire);
    while (walk_detail::phase_of(w) == Phase::waiting)
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

}  // namespace

namespace {

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
    // The graph changes only here, so the checks made on the copy below
    // still hold once the walk is quiesced.
    std::lock_guard<std::mutex> serial(apply_mu_);
    std::unique_lock<std::mutex> lk(mu_);
    if (finishing_) throw Error(Errc::state, "the walk has already finished");
    lk.unlock();

    // 1. The batch on a copy: ids, names, cycles; the walk runs on meanwhile.
    Graph cand(*graph_);
    for (const auto &nv : u.vertices)
        new_ids.push_back(cand.add_vertex(nv.name ? std::optional<std::string_view>(*nv.name) : std::nullopt,
                                          nv.user));
    auto real = [&](VertexId id) {
        if (u.is_provisional(id)) return new_ids[u.provisional_index(id)];
        graph_->checked(id);
        return id;
    };
    std::unordered_set<VertexId> removing;
    for (VertexId id : u.removals) {
        if (u.is_provisional(id))
            throw Error(Errc::invalid_argument, "a vertex added by this update cannot also be removed by it");
        graph_->checked(id);
        removing.insert(id);
    }
    auto edge = [&](std::pair<VertexId, VertexId> e) {
        std::pair<VertexId, VertexId> r{real(e.first), real(e.second)};
        if (removing.count(r.first) || removing.count(r.second))
            throw Error(Errc::invalid_argument, "edge " + std::to_string(r.first) + " -> " +
                                                    std::to_string(r.second) +
                                                    " touches a vertex this update removes");
        return r;
    };
    std::vector<std::pair<VertexId, VertexId>> connects, disconnects;
    for (auto e : u.connects) connects.push_back(edge(e));
    for (auto e : u.disconnects) disconnects.push_back(edge(e));
    for (auto [a, b] : connects) cand.connect(a, b);
    for (auto [a, b] : disconnects) cand.disconnect(a, b);
    for (VertexId id : removing) cand.remove_vertex(id);
    std::string cycles = cycle_report(cand);
    if (!cycles.empty()) throw Error(Errc::cycle, "update refused, it would create a cycle:\n" + cycles);

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
    for (auto e : connects)
        if (!graph_->has_edge(e.first, e.second) && cand.has_edge(e.first, e.second) &&
            std::find(added.begin(), added.end(), as_wait(e)) == added.end())
            added.push_back(as_wait(e));
    for (auto e : disconnects)
        if (graph_->has_edge(e.first, e.second) && !cand.has_edge(e.first, e.second) &&
            std::find(dropped.begin(), dropped.end(), as_wait(e)) == dropped.end())
            dropped.push_back(as_wait(e));
    const VertexId first_new = new_ids.empty() ? no_vertex : new_ids.front();
    auto is_new = [&](VertexId id) { return first_new != no_vertex && id >= first_new; };

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
        Section sec(*ex_);
        ex_->settle_skipped(sec, skips, ready);
        sec.leave();
        ex_->push(ready);
    };
    try {
        held.reserve(added.size());
        marked.reserve(removing.size());
        for (auto [waiter, dep] : added) {
            if (is_new(waiter)) continue;
            Slot *s = lookup(waiter);
            if (!hold_back(s))
                throw Error(Errc::state, "update refused: vertex " + graph_->display_name(waiter) +
                                             " has already started, so it cannot wait for " +
                                             cand.display_name(dep));
            held.push_back(s);
        }
        for (VertexId id : removing) {
            Slot *s = lookup(id);
            if (!mark_removed(s))
                throw Error(Errc::state, "update refused: vertex " + graph_->display_name(id) +
                                             " has already started, so it cannot be removed");
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
            o.added.reserve(o.added.size() + added.size());
        }
        for (auto [waiter, dep] : dropped) {
            auto &o = overlays_[lookup(dep)];
            o.removed.reserve(o.removed.size() + dropped.size());
        }
        for (VertexId id : removing) overlays_[lookup(id)];
        // 4. The graph itself, last: a swap cannot fail.
        retired_.reserve(retired_.size() + 1);
        auto old = std::make_unique<Graph>();
        graph_->swap(cand);
        old->swap(cand);
        retired_.push_back(std::move(old));
    } catch (...) {
        while (!extra_.empty() && is_new(extra_.back().id)) {
            extra_index_.erase(extra_.back().id);
            extra_.pop_back();
        }
        undo();
        hand_over();
        throw;
    }
    total_.fetch_add(new_ids.size(), std::memory_order_acq_rel);

    // 5. Wire the edges and removals into the running walk.
    for (auto [waiter, dep] : added) {
        Slot *w = lookup(waiter), *d = lookup(dep);
        if (is_new(waiter)) w->word.fetch_add(1, std::memory_order_acq_rel);
        if (mark_overlay(d)) {
            overlays_[d].added.push_back(w);
        } else {
            ex_->release_waiter(w,
                                status_of(*d) != VertexStatus::failed && status_of(*d) != VertexStatus::upstream_failed,
                                ready, skips);
        }
    }
    for (auto [waiter, dep] : dropped) {
        Slot *w = lookup(waiter), *d = lookup(dep);
        if (mark_overlay(d)) {
            overlays_[d].removed.push_back(w);
            ex_->release_waiter(w, true, ready, skips);
        }
    }
    for (VertexId id : removing) {
        Slot *r = lookup(id);
        messages_[r] = "removed by an update before it started";
        std::vector<Slot *> waiters;
        const walk_detail::Overlay &o = overlays_[r];
        if (const Snapshot::Index i = index_of(*r); i != Snapshot::npos)
            for (auto p = waiters_begin(i), e = waiters_end(i); p != e; ++p)
                if (std::find(o.removed.begin(), o.removed.end(), &slot_at(*p)) == o.removed.end())
                    waiters.push_back(&slot_at(*p));
        for (Slot *d : o.added)
            if (std::find(o.removed.begin(), o.removed.end(), d) == o.removed.end()) waiters.push_back(d);
        for (Slot *d : waiters) ex_->release_waiter(d, true, ready, skips);
        removed_slots.push_back(r);
    }
    for (VertexId id : new_ids) ex_->release_waiter(lookup(id), true, ready, skips);
    hand_over();
    for (Slot *r : removed_slots) {
        std::size_t done = done_.fetch_add(1, std::memory_order_acq_rel) + 1;
        if (ex_->observer().call)
            ex_->observer().call(ex_->observer().context, *this, Event::skipped, id_of(*r), VertexStatus::not_run,
                                 running_.load(std::memory_order_acquire), done,
                                 total_.load(std::memory_order_acquire));
    }
    if (done_.load(std::memory_order_acquire) == total_.load(std::memory_order_acquire)) maybe_finish(nullptr);
    return new_ids;
}

}  // namespace dag
