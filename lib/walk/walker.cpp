#include "walk/walker.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "graph/error.hpp"
#include "graph/name_order.hpp"
#include "graph/utf8.hpp"
#include "algorithms/validate.hpp"
#include "walk/deadline_wait.hpp"
#include "walk/walk_executor.hpp"
#include "walk/walk_pools.hpp"
#include "walk/walk_retries.hpp"

namespace dag {

using walk_detail::CallScope;
using walk_detail::Executor;
using walk_detail::Phase;
using walk_detail::Section;
using walk_detail::Word;

namespace {

// Frozen and checked for cycles only when a mutation dropped the graph's
// cached snapshot; only an acyclic one is ever cached.
std::shared_ptr<const Snapshot> acyclic_snapshot(const Graph &g) {
    if (std::shared_ptr<const Snapshot> s = g.cached_snapshot()) return s;
    auto s = std::make_shared<const Snapshot>(freeze(g));
    require_acyclic(g, *s);
    g.cache_snapshot(s);
    return s;
}

// A large walk's arrays sit on transparent huge pages where the kernel grants
// them on request: a 10^6-vertex walk then takes a few dozen page faults
// instead of about 12,000 (a fifth of an empty-callback walk), and scattered
// slot accesses miss the TLB less often.
void *bulk_alloc(std::size_t bytes) {
    constexpr std::size_t huge = std::size_t{2} << 20;
    void *p;
    if (bytes >= huge) {
        bytes = (bytes + huge - 1) / huge * huge;
        p = std::aligned_alloc(huge, bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    } else {
        p = std::malloc(bytes ? bytes : 1);
    }
    if (!p) throw std::bad_alloc();
    return p;
}

// A finished walk's arrays, left on its graph for the next walk of the same
// snapshot (Graph::keep_walk_scratch).
struct Scratch {
    std::size_t bytes = 0;
    walk_detail::BulkArray<unsigned char> memory;
    // A walk with a priority ranks every vertex (a pass over the edges and
    // a sort, and 32 bytes a vertex of fresh memory to page in): the next
    // walk with the same priority and direction takes them over.
    HugeVector<std::uint32_t> ranks;
    int rank_key = -1;
    // The name order they were made with: a rename keeps the snapshot.
    std::weak_ptr<const NameRanks> names;
    // The snapshot renumbered by those ranks, once a walk used it.
    std::shared_ptr<const Snapshot> layout;
    walk_detail::ExecutorBuffers buffers;
};

int rank_key(const WalkOptions &options) {
    if (options.priority == Priority::none || !options.weights.empty()) return -1;
    return static_cast<int>(options.priority) * 2 + (options.reverse ? 1 : 0);
}

}  // namespace

Walk::Walk(Graph &graph, Visitor visitor, void *tag, std::shared_ptr<Executor> executor, Walk *parent,
           Slot *parent_slot)
    : graph_(&graph),
      visitor_(visitor),
      tag_(tag),
      ex_(std::move(executor)),
      parent_(parent),
      parent_slot_(parent_slot) {}

std::unique_ptr<Walk> Walk::start(Graph &g, Visitor visitor, const WalkOptions &options, void *tag) {
    std::unique_ptr<Walk> w = create(g, visitor, options, tag);
    w->run();
    return w;
}

void Walk::run() {
    // The walk may finish, and be freed by its own callback, before this
    // thread is out of launch(): freeing waits for it like for any caller.
    CallScope scope(*ex_);
    launch(nullptr);
}

std::unique_ptr<Walk> Walk::create(Graph &g, Visitor visitor, const WalkOptions &options, void *tag) {
    if (!visitor.call && !options.pull) throw Error(Errc::invalid_argument, "the walk callback is NULL");
    if (options.parallelism == 0) throw Error(Errc::invalid_argument, "parallelism must be at least 1");
    if (options.threads == 0) throw Error(Errc::invalid_argument, "threads must be at least 1");
    if (!g.try_begin_walk()) throw Error(Errc::busy, "the graph is already being walked");
    // Held from here; handed to the walk once it exists (its destructor
    // lets go of a walk that never launched).
    struct Claim {
        Graph *g;
        ~Claim() {
            if (g) g->end_walk();
        }
    } claim{&g};
    // A walk's updates would change the graph under the traversal.
    if (g.visited())
        throw Error(Errc::busy, "the graph is being traversed; walk it once the traversal's visitor or predicate has returned");
    // The build's next steps would change the graph under the walk.
    if (g.building()) throw Error(Errc::busy, "the graph is being built; walk it once the build has returned");
    std::shared_ptr<const Snapshot> snap = acyclic_snapshot(g);
    for (VertexId id : options.always_run)
        if (snap->index_of(id) == Snapshot::npos)
            throw Error(Errc::unknown_vertex, "always-run vertex " + std::to_string(id) + " is not in the graph");
    auto ex = std::make_shared<Executor>(options);
    std::unique_ptr<Walk> w(new Walk(g, visitor, tag, std::move(ex), nullptr, nullptr));
    claim.g = nullptr;
    w->base_ = snap;
    w->snap_ = std::move(snap);
    w->reverse_ = options.reverse;
    w->take_scratch();
    const int key = rank_key(options);
    if (options.priority == Priority::none) {
        w->spare_ranks_ = std::move(w->rank_);
        w->rank_.clear();
    } else {
        std::shared_ptr<const NameRanks> names = name_ranks(g, *w->base_);
        if (key < 0 || key != w->rank_key_ || w->rank_.size() != w->base_->size() || names != w->rank_names_.lock()) {
            w->rank_ = walk_detail::rank_vertices(g, *w->base_, options.reverse, options.priority, options.weights);
            w->rank_key_ = key;
            w->rank_names_ = names;
            w->layout_.reset();
        }
        // Weights are the walk's own: its ranks, made for it alone, are
        // not worth a renumbered copy of the graph.
        if (key >= 0) {
            if (!w->layout_) {
                // Ranks in id order (an unnamed graph by name) need no copy.
                const HugeVector<std::uint32_t> &r = w->rank_;
                bool in_order = true;
                for (std::size_t i = 0; in_order && i < r.size(); ++i) in_order = r[i] == i;
                w->layout_ = in_order ? w->base_ : std::make_shared<const Snapshot>(renumber(*w->base_, r.data()));
            }
            w->snap_ = w->layout_;
            w->ranked_layout_ = true;
        }
        w->ex_->set_rank_count(w->rank_.size());
    }
    w->init_slots(options.always_run);
    if (!options.pools.empty() || options.pool_needs.count) w->ex_->set_pools(w->make_pools(options));
    if (options.retry.retries > 0 || !options.retry.per_vertex.empty()) {
        std::unordered_map<const Slot *, std::size_t> counts;
        for (auto [id, count] : options.retry.per_vertex) {
            const Snapshot::Index i = w->snap_->index_of(id);
            if (i == Snapshot::npos)
                throw Error(Errc::unknown_vertex, "retry count for vertex " + std::to_string(id) + ", which is not in the graph");
            counts[&w->slot_at(i)] = count;
        }
        walk_detail::Executor *ex = w->ex_.get();
        w->ex_->set_retries(std::make_unique<walk_detail::Retries>(options.retry, std::move(counts),
                                                                    [ex](Slot *s) { ex->retry_due(s); },
                                                                    options.pull));
    }
    return w;
}

std::unique_ptr<walk_detail::Pools> Walk::make_pools(const WalkOptions &options) {
    std::unordered_map<std::string_view, std::uint32_t> index;
    std::vector<std::size_t> capacities;
    for (const PoolSpec &p : options.pools) {
        if (p.name.empty()) throw Error(Errc::invalid_argument, "a pool's name is empty");
        if (!is_valid_utf8(p.name))
            throw Error(Errc::bad_utf8, "pool name '" + printable_utf8(p.name) + "' is not valid UTF-8");
        if (!index.emplace(p.name, static_cast<std::uint32_t>(capacities.size())).second)
            throw Error(Errc::invalid_argument, "pool '" + p.name + "' is declared twice");
        capacities.push_back(p.capacity);
    }
    // Each need checked, then written into its vertex's slot, or, for a
    // vertex that needs several pools, laid out by dense index
    // (walk_pools.hpp).
    using walk_detail::need_of;
    using walk_detail::need_shift;
    using walk_detail::several_needs;
    const PoolNeeds &given = options.pool_needs;
    std::vector<std::pair<Snapshot::Index, std::uint32_t>> several;
    const char *last_name = nullptr;
    std::uint32_t last_pool = 0;
    // Locals, not members: the loop's stores to the slots' 64-bit words
    // could otherwise be stores to them (some are 64-bit integers too), for
    // all the compiler knows, and it would read them again after each.
    const Snapshot::IndexLookup dense_index = snap_->index_lookup();
    unsigned char *const slots = slot_mem_.get();
    const unsigned shift = slot_shift_;
    const std::size_t *const capacity = capacities.data();
    const VertexId *const vertices = given.vertices;
    const char *const *const names = given.names;
    const std::size_t need_count = given.count;
    for (std::size_t k = 0; k < need_count; ++k) {
        const VertexId vertex = vertices[k];
        const char *name = names[k];
        const Snapshot::Index i = dense_index(vertex);
        if (i == Snapshot::npos)
            throw Error(Errc::unknown_vertex, "vertex " + std::to_string(vertex) + " needs pool '" +
                                                  printable_utf8(name) + "' but is not in the graph");
        // Most needs name the pool the one before named, often through the
        // same pointer: no hash then.
        if (name != last_name && (!last_name || std::strcmp(name, last_name) != 0)) {
            auto p = index.find(name);
            // Declared names are valid UTF-8: only an unknown one may not be.
            if (p == index.end()) {
                if (!is_valid_utf8(name))
                    throw Error(Errc::bad_utf8, "vertex '" + graph_->display_name(vertex) + "' needs pool '" +
                                                    printable_utf8(name) + "', a name that is not valid UTF-8");
                throw Error(Errc::invalid_argument, "vertex '" + graph_->display_name(vertex) + "' needs pool '" +
                                                        printable_utf8(name) + "', which the walk does not declare");
            }
            last_pool = p->second;
        }
        last_name = name;
        if (capacity[last_pool] == 0)
            throw Error(Errc::invalid_argument, "vertex '" + graph_->display_name(vertex) + "' needs pool '" + name +
                                                    "', whose capacity is 0: it could never run");
        Slot &s = *reinterpret_cast<Slot *>(slots + (std::size_t{i} << shift));
        const walk_detail::Word word = s.word.load(std::memory_order_relaxed);
        const std::uint32_t need = need_of(word);
        // A pool needed twice by one vertex counts once (for several, the
        // layout below drops the repeats: last_pool + 1 may be several_needs).
        if (need != several_needs && need == last_pool + 1) continue;
        if (need == 0 && last_pool + 1 < several_needs) {
            s.word.store(word | walk_detail::Word{last_pool + 1} << need_shift, std::memory_order_relaxed);
            continue;
        }
        if (need != several_needs) {
            if (need) several.emplace_back(i, need - 1);
            s.word.store(word | walk_detail::Word{several_needs} << need_shift, std::memory_order_relaxed);
        }
        several.emplace_back(i, last_pool);
    }
    std::vector<std::uint32_t> offsets, pools(several.size());
    if (!several.empty()) {
        const std::size_t count = snap_->size();
        offsets.assign(count + 1, 0);
        for (auto [i, p] : several) ++offsets[i + 1];
        for (std::size_t i = 0; i < count; ++i) offsets[i + 1] += offsets[i];
        std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
        for (auto [i, p] : several) {
            const auto begin = pools.begin() + offsets[i], end = pools.begin() + fill[i];
            if (std::find(begin, end, p) == end) pools[fill[i]++] = p;
        }
        // Closes the gaps the repeated needs left.
        std::uint32_t out = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t from = offsets[i], to = fill[i];
            offsets[i] = out;
            for (std::uint32_t k = from; k != to; ++k) pools[out++] = pools[k];
        }
        offsets[count] = out;
        pools.resize(out);
    }
    return std::make_unique<walk_detail::Pools>(*this, snap_->size(), std::move(capacities), std::move(offsets),
                                                std::move(pools));
}

Walk::~Walk() {
    if (!is_root()) return;
    if (!launched_) graph_->end_walk();
    if (launched_ && !finished()) {
        try {
            // Vertices a pull walk handed out can no longer be completed
            // through the walk being freed: they end cancelled, and so does
            // one another thread's pull is handing out meanwhile.
            ex_->abandon();
            cancel_walk(true);
        } catch (const Error &) {
            // Finished between the check and the cancel: nothing to stop.
        }
        wait();
    }
    ex_->join();
    try {
        auto scratch = std::make_shared<Scratch>();
        scratch->bytes = slot_bytes_;
        scratch->memory = std::move(slot_mem_);
        if (rank_key_ >= 0) {
            scratch->ranks = std::move(rank_.empty() ? spare_ranks_ : rank_);
            scratch->rank_key = rank_key_;
            scratch->names = rank_names_;
            scratch->layout = std::move(layout_);
        }
        scratch->buffers = ex_->release_buffers();
        graph_->keep_walk_scratch(base_.get(), std::move(scratch));
    } catch (const std::bad_alloc &) {
        // The arrays are freed with the walk instead.
    }
}

void Walk::take_scratch() {
    std::shared_ptr<void> kept = graph_->take_walk_scratch(base_.get());
    if (!kept) return;
    auto &scratch = *static_cast<Scratch *>(kept.get());
    // Slots of 32 bytes with timestamps, 16 without (init_slots).
    if (scratch.bytes == base_->size() << (ex_->timestamps() ? 5 : 4)) {
        slot_mem_ = std::move(scratch.memory);
        slot_bytes_ = scratch.bytes;
    }
    // A sub-walk's vertices have no rank.
    if (is_root()) {
        rank_ = std::move(scratch.ranks);
        rank_key_ = scratch.rank_key;
        rank_names_ = scratch.names;
        layout_ = std::move(scratch.layout);
        ex_->adopt_buffers(std::move(scratch.buffers));
    }
}

void Walk::init_slots(const std::vector<VertexId> &always_run) {
    const std::size_t n = snap_->size();
    static_assert(std::is_trivially_destructible_v<Slot> && std::is_trivially_destructible_v<walk_detail::Times>);
    static_assert(sizeof(Slot) == 16 && sizeof(Slot) + sizeof(walk_detail::Times) == 32);
    const bool timed = ex_->timestamps();
    slot_shift_ = timed ? 5 : 4;
    const std::size_t bytes = n << slot_shift_;
    frozen_bytes_ = bytes;
    frozen_ids_ = snap_->id_table();
    const Snapshot &f = *snap_;
    waiter_offsets_ = reverse_ ? f.out_offsets.data() : f.in_offsets.data();
    waiter_rows_ = reverse_ ? f.out_targets.data() : f.in_sources.data();
    waited_offsets_ = reverse_ ? f.in_offsets.data() : f.out_offsets.data();
    waited_rows_ = reverse_ ? f.in_sources.data() : f.out_targets.data();
    if (!slot_mem_) {
        slot_mem_.reset(static_cast<unsigned char *>(bulk_alloc(bytes)));
        slot_bytes_ = bytes;
    }
    for (Snapshot::Index i = 0; i < n; ++i) {
        // Constructed here rather than up front: one pass over the array.
        unsigned char *cell = slot_mem_.get() + (std::size_t{i} << slot_shift_);
        Slot &s = *new (cell) Slot();
        if (timed) new (cell + sizeof(Slot)) walk_detail::Times();
        s.walk = this;
        const Snapshot::Index count = frozen_wait_count(i);
        s.word.store(count | (count == 1 ? walk_detail::sole : 0), std::memory_order_relaxed);
        if (count == 0) roots_.push_back(&s);
    }
    for (VertexId id : always_run) slot_at(snap_->index_of(id)).word.fetch_or(walk_detail::always, std::memory_order_relaxed);
    total_.store(n, std::memory_order_release);
}

void Walk::launch(Section *sec) {
    launched_ = true;
    if (snap_->size() == 0) {
        maybe_finish(sec);
        return;
    }
    std::vector<Slot *> ready = std::move(roots_);
    if (sec) {
        ex_->push(ready);
        return;
    }
    // A root walk that cannot launch has not started: freeing it then waits
    // for nothing (it waited for ever for vertices no worker would take up).
    try {
        ex_->launch(ready);
    } catch (const std::bad_alloc &) {
        launched_ = false;
        roots_ = std::move(ready);
        throw;
    }
}

void Walk::overlay_waiters(Slot &s, std::vector<Slot *> &out) {
    std::lock_guard<std::mutex> lk(mu_);
    waiters_locked(s, overlays_.at(&s), out);
}

void Walk::waiters_locked(Slot &s, const walk_detail::Overlay &o, std::vector<Slot *> &out) {
    if (const Snapshot::Index i = index_of(s); i != Snapshot::npos)
        for (auto p = waiters_begin(i), e = waiters_end(i); p != e; ++p)
            if (!o.dropped(&slot_at(*p))) out.push_back(&slot_at(*p));
    out.insert(out.end(), o.added.begin(), o.added.end());
}

Walk::Slot *Walk::lookup(VertexId id) {
    Snapshot::Index i = snap_->index_of(id);
    if (i != Snapshot::npos) return &slot_at(i);
    auto it = extra_index_.find(id);
    if (it != extra_index_.end()) return it->second;
    throw Error(Errc::unknown_vertex, "vertex " + std::to_string(id) + " is not part of this walk");
}

void Walk::set_message(const Slot &s, std::string message) {
    std::lock_guard<std::mutex> lk(mu_);
    try {
        messages_[&s] = std::move(message);
    } catch (const std::bad_alloc &) {
        // Called between callbacks, with nobody to report to: the vertex
        // keeps its status without the message.
    }
}

void Walk::note_cancelled_pending(const Slot &s) noexcept {
    std::lock_guard<std::mutex> lk(mu_);
    try {
        cancelled_pending_.insert(&s);
    } catch (const std::bad_alloc &) {
        // A later completion of the vertex then says it has finished
        // (DAG_E_STATE) rather than that it was cancelled while pending.
    }
}

void Walk::record_failure(const Slot &s) {
    std::lock_guard<std::mutex> lk(mu_);
    if (first_error_ != no_vertex) return;
    const VertexId id = id_of(s);
    first_error_ = id;
    try {
        std::string name = graph_->has_vertex(id) ? graph_->display_name(id) : std::to_string(id);
        auto m = messages_.find(&s);
        const bool said = m != messages_.end() && !m->second.empty();
        first_error_message_ = "vertex " + name + " failed" + (said ? ": " + m->second : "");
    } catch (const std::bad_alloc &) {
        // As in set_message(): the first error keeps its id, not its text.
        first_error_message_.clear();
    }
}

bool Walk::finished() const {
    std::lock_guard<std::mutex> lk(mu_);
    return finished_;
}

void Walk::maybe_finish(Section *sec) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (finishing_ || done_.load(std::memory_order_acquire) != total_.load(std::memory_order_acquire)) return;
        finishing_ = true;
        cancelled_at_finish_ = ex_->cancel_requested();
    }
    on_finished(sec);
}

VertexStatus Walk::summary(std::string &message) const {
    std::lock_guard<std::mutex> lk(mu_);
    bool failed = false, cancelled = false;
    auto scan = [&](const Slot &s) {
        // A vertex an update removed is no part of the sub-walk any more.
        const Word word = s.word.load(std::memory_order_acquire);
        if (walk_detail::phase_of(word) == Phase::removed) return;
        const VertexStatus st = walk_detail::status_of(word);
        failed |= st == VertexStatus::failed || st == VertexStatus::upstream_failed;
        cancelled |= st == VertexStatus::cancelled || st == VertexStatus::not_run;
    };
    for (Snapshot::Index i = 0; i < snap_->size(); ++i) scan(slot_at(i));
    for (const Slot &s : extra_) scan(s);
    if (failed) {
        message = "sub-walk failed: " + first_error_message_;
        return VertexStatus::failed;
    }
    if (cancelled) {
        message = "sub-walk did not run to its end";
        return VertexStatus::cancelled;
    }
    return VertexStatus::ok;
}

void Walk::on_finished(Section *sec) {
    graph_->end_walk();
    if (!is_root()) {
        std::string message;
        VertexStatus st = summary(message);
        if (ex_->timestamps()) parent_->times(*parent_slot_).end_ns = ex_->now();
        std::vector<Slot *> ready;
        std::optional<Section> own;
        if (!sec) sec = &own.emplace(*ex_);
        ex_->settle(*sec, parent_slot_, st, true, message.empty() ? nullptr : std::make_unique<std::string>(message),
                    ready);
        ex_->push(ready);
    }
    std::function<void()> release;
    {
        std::lock_guard<std::mutex> lk(mu_);
        finished_ = true;
        finished_cv_.notify_all();
        release.swap(release_);
    }
    if (is_root() && ex_->pulls()) ex_->end_pulls();
    if (release) release();
}

bool Walk::next_ready(std::vector<ReadyVertex> &out, std::size_t capacity,
                      std::optional<std::chrono::steady_clock::time_point> deadline) {
    if (!ex_->pulls())
        throw Error(Errc::state, "the walk runs its vertices on its callback; only a walk begun without one hands them out");
    if (!is_root()) throw Error(Errc::state, "ready vertices are handed out by the walk that was begun, not by a sub-walk");
    if (ex_->pulling_here())
        throw Error(Errc::state, "cannot take ready vertices from inside an observer called while handing them out");
    // The observer of a completion or an update runs before the vertices
    // that call releases are queued: a wait there would wait for itself.
    if (ex_->inside_own_call())
        throw Error(Errc::state, "cannot take ready vertices from inside the walk's observer; take them once the "
                                 "call that reported the event has returned");
    out.clear();
    CallScope scope(*ex_);
    out.reserve(capacity);
    ex_->pull(out, capacity, deadline);
    // Freed from its observer during this call: what it handed out has
    // ended cancelled, and is nobody's to complete.
    if (ex_->abandoned()) out.clear();
    return out.empty() && finished();
}

Walk::Call::Call(Walk &w) noexcept : ex_(*w.ex_) { ex_.enter(); }

Walk::Call::~Call() { ex_.leave(); }

void Walk::progress(std::size_t &done, std::size_t &total) {
    // Both counts only grow (a removed vertex counts as done), so reading
    // done first keeps it within the total read after it.
    done = done_.load(std::memory_order_acquire);
    total = total_.load(std::memory_order_acquire);
}

bool Walk::wait_until(std::chrono::steady_clock::time_point deadline) {
    if (!is_root()) throw Error(Errc::state, "a sub-walk cannot be waited for; wait for the walk that expanded it");
    if (ex_->calling_back())
        throw Error(Errc::state,
                    "cannot wait for a walk from inside its own callback or observer, or a walk's started from one");
    if (reading_graph())
        throw Error(Errc::state, "cannot wait for a walk from inside a read of its graph (a visitor or predicate): "
                                 "an update of the walk waits for that read");
    std::unique_lock<std::mutex> lk(mu_);
    return walk_detail::wait_until(finished_cv_, lk, deadline, [&] { return finished_; });
}

bool Walk::calling_back() const noexcept { return ex_->calling_back(); }

bool Walk::reading_graph() noexcept {
    if (!ReadScope::reading_any()) return false;
    try {
        for (Walk *w : self_and_children())
            if (ReadScope::reading(*w->graph_)) return true;
        return false;
    } catch (const std::bad_alloc &) {
        // Cannot tell: a caller refused or deferred is safe, one let through
        // may wait for itself.
        return true;
    }
}

bool Walk::on_walk_thread() noexcept { return Executor::calling_back_any(); }

void Walk::release_when_finished(std::function<void()> release) noexcept {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!finished_) {
            release_ = std::move(release);
            release = nullptr;
        }
    }
    if (release) {
        release();
        return;
    }
    try {
        // As in ~Walk: vertices a pull walk handed out can no longer be
        // completed through the walk being freed, so they end cancelled,
        // and so does one its observer (this call) is about to hand out.
        ex_->abandon();
        cancel_walk(true);
    } catch (const Error &) {
        // It finished meanwhile, and release_ has run or will.
    } catch (const std::bad_alloc &) {
        // The cancel was requested; only the scan that finishes pending
        // vertices at once ran out of memory. Nothing new starts, and the
        // walk finishes, releasing, once those are completed.
    }
}

void Walk::wait() {
    if (!is_root()) throw Error(Errc::state, "a sub-walk cannot be waited for; wait for the walk that expanded it");
    if (ex_->calling_back())
        throw Error(Errc::state,
                    "cannot wait for a walk from inside its own callback or observer, or a walk's started from one");
    if (reading_graph())
        throw Error(Errc::state, "cannot wait for a walk from inside a read of its graph (a visitor or predicate): "
                                 "an update of the walk waits for that read");
    std::unique_lock<std::mutex> lk(mu_);
    finished_cv_.wait(lk, [&] { return finished_; });
}

WalkReport Walk::report() const {
    WalkReport r;
    std::lock_guard<std::mutex> lk(mu_);
    const std::size_t n = snap_->size() + extra_.size();
    r.snap_ = base_;
    r.frozen_ = snap_->size();
    r.state_.resize(n);
    if (ex_->timestamps()) r.times_.resize(2 * n);
    std::size_t i = 0;
    const bool as_is = ex_->stamps_are_ns();
    const double rate = ex_->timestamps() && !as_is ? ex_->ns_per_tick() : 1.0;
    auto ns = [&](std::int64_t stamp) {
        return as_is ? stamp : static_cast<std::int64_t>(static_cast<double>(stamp) * rate);
    };
    auto add = [&](const Slot &s) {
        const walk_detail::Word word = s.word.load(std::memory_order_acquire);
        const VertexStatus status = walk_detail::status_of(word);
        const bool ran = (word & walk_detail::ran_bit) != 0;
        r.state_[i] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(status) | (ran ? WalkReport::ran_flag : 0));
        if (ex_->timestamps()) {
            r.times_[2 * i] = ns(times(s).start_ns);
            r.times_[2 * i + 1] = ns(times(s).end_ns);
        }
        ++r.totals[static_cast<std::size_t>(status)];
        ++i;
    };
    // In ascending id order: base_'s, whose index k a ranked layout moved
    // to its rank.
    for (Snapshot::Index k = 0; k < snap_->size(); ++k) add(slot_at(ranked_layout_ ? rank_[k] : k));
    r.added_ids_.reserve(extra_.size());
    for (const Slot &s : extra_) {  // ids issued later are larger
        r.added_ids_.push_back(id_of(s));
        add(s);
    }
    // Messages are few (failures and the walk's notes): found by slot, then
    // ordered by the slot's place in the report.
    r.messages_.reserve(messages_.size());
    for (const auto &[slot, text] : messages_) {
        const Snapshot::Index k = report_index(*slot);
        std::size_t at;
        if (k != Snapshot::npos) {
            at = k;
        } else {
            const VertexId id = id_of(*slot);
            at = r.frozen_ + static_cast<std::size_t>(
                                 std::lower_bound(r.added_ids_.begin(), r.added_ids_.end(), id) - r.added_ids_.begin());
        }
        r.messages_.emplace_back(at, text);
    }
    std::sort(r.messages_.begin(), r.messages_.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    if (const walk_detail::Retries *retries = ex_->retries()) {
        for (auto &[slot, messages] : retries->all()) {
            if (slot->walk != this) continue;
            const Snapshot::Index k = report_index(*slot);
            const std::size_t at =
                k != Snapshot::npos
                    ? k
                    : r.frozen_ + static_cast<std::size_t>(std::lower_bound(r.added_ids_.begin(), r.added_ids_.end(),
                                                                            id_of(*slot)) -
                                                           r.added_ids_.begin());
            r.attempts_.emplace_back(at, std::move(messages));
        }
        std::sort(r.attempts_.begin(), r.attempts_.end(),
                  [](const auto &a, const auto &b) { return a.first < b.first; });
    }
    r.first_error = first_error_;
    r.first_error_message = first_error_message_;
    r.cancelled = finishing_ ? cancelled_at_finish_ : ex_->cancel_requested();
    return r;
}

WalkOutcome Walk::outcome() const {
    WalkOutcome o;
    std::lock_guard<std::mutex> lk(mu_);
    o.first_error = first_error_;
    o.first_error_message = first_error_message_;
    o.cancelled = finishing_ ? cancelled_at_finish_ : ex_->cancel_requested();
    if (o.cancelled) {
        // The same vertices report() lists, counted from their state words.
        auto count = [&](const Slot &s) {
            const walk_detail::Word word = s.word.load(std::memory_order_acquire);
            const VertexStatus st = walk_detail::status_of(word);
            // Skipped for a failure before the cancel came: never ran either.
            if (st == VertexStatus::upstream_failed) ++o.never_ran;
            if (st != VertexStatus::cancelled && st != VertexStatus::not_run) return;
            ++((word & walk_detail::ran_bit) ? o.cancelled_after_running : o.never_ran);
        };
        for (Snapshot::Index i = 0; i < snap_->size(); ++i) count(slot_at(i));
        for (const Slot &s : extra_) count(s);
    }
    return o;
}

std::vector<Walk *> Walk::self_and_children() {
    std::vector<Walk *> out{this};
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::lock_guard<std::mutex> lk(out[i]->mu_);
        for (auto &c : out[i]->children_) out.push_back(c.get());
    }
    return out;
}

void Walk::cancel_pending() {
    Section sec(*ex_);
    std::vector<Slot *> pending;
    {
        std::lock_guard<std::mutex> lk(mu_);
        auto check = [&](Slot &s) {
            if (walk_detail::phase_of(s.word.load(std::memory_order_seq_cst)) == Phase::pending) pending.push_back(&s);
        };
        for (Snapshot::Index i = 0; i < snap_->size(); ++i) check(slot_at(i));
        for (Slot &s : extra_) check(s);
    }
    for (Slot *s : pending) {
        // Before the claim: running out of memory here leaves the vertex
        // pending, for dag_walk_complete or a later cancel to finish.
        auto note = std::make_unique<std::string>("cancelled while pending");
        Word w = s->word.load(std::memory_order_acquire);
        bool claimed = false;
        while (walk_detail::phase_of(w) == Phase::pending && !claimed)
            claimed = s->word.compare_exchange_weak(w, walk_detail::with_phase(w, Phase::finishing),
                                                    std::memory_order_acq_rel, std::memory_order_acquire);
        if (!claimed) continue;  // completed meanwhile
        note_cancelled_pending(*s);
        finish_claimed(sec, s, VertexStatus::cancelled, std::move(note));
    }
}

void Walk::finish_claimed(Section &sec, Slot *s, VertexStatus status, std::unique_ptr<std::string> message) noexcept {
    if (ex_->timestamps()) times(*s).end_ns = ex_->now();
    // A host completes its vertices one call each: the list of what they
    // release is kept per thread, not allocated each time. Taken out while
    // in use, since an observer called from settle() may complete another
    // vertex on this thread.
    thread_local std::vector<Slot *> spare;
    std::vector<Slot *> ready = std::move(spare);
    ex_->settle(sec, s, status, true, std::move(message), ready);
    ex_->release_slot(ready);
    spare = std::move(ready);
}

void Walk::cancel() { cancel_walk(!ex_->pulls()); }

void Walk::cancel_walk(bool finish_pending) {
    CallScope scope(*ex_);
    Walk *root = this;
    while (root->parent_) root = root->parent_;
    {
        std::lock_guard<std::mutex> lk(root->mu_);
        if (root->finishing_) throw Error(Errc::state, "the walk has already finished");
    }
    ex_->request_cancel();
    {
        // The walk may have finished between the check and the request:
        // then it finished uncancelled, as every wait says, and so must
        // this cancel.
        std::lock_guard<std::mutex> lk(root->mu_);
        if (root->finishing_ && !root->cancelled_at_finish_)
            throw Error(Errc::state, "the walk has already finished");
    }
    if (finish_pending)
        for (Walk *w : root->self_and_children()) w->cancel_pending();
    ex_->settle_stopped();
}

void Walk::complete(VertexId vertex, Outcome outcome, const char *message, bool from_own_callback) {
    if (outcome == Outcome::pending)
        throw Error(Errc::invalid_argument, "a vertex can only be completed as ok, failed or cancelled");
    // As for a callback's result: only a failure (or a cancel) keeps its
    // message. Copied before anything changes, so that running out of memory
    // changes nothing.
    std::unique_ptr<std::string> note =
        outcome != Outcome::ok && message ? std::make_unique<std::string>(printable_utf8(message)) : nullptr;
    CallScope scope(*ex_);
    // Entered before the lock: entering waits for a running update, which
    // takes the lock itself.
    Section sec(*ex_);
    std::unique_lock<std::mutex> lk(mu_);
    // Even once the walk has finished, the vertex decides the answer: a host
    // completing work that a cancel overtook learns it was cancelled.
    Slot *s = lookup(vertex);
    // Named only for an error: a completion is the pull loop's hot path.
    const auto who = [vertex] { return "vertex " + std::to_string(vertex); };
    // A host says cancelled for work it stopped because the walk was
    // cancelled; before that, the walk would go on past a vertex nobody ran.
    // After the lookup: an unknown vertex is that whatever the outcome.
    if (outcome == Outcome::cancelled && !ex_->cancel_requested())
        throw Error(Errc::state, who() + " can be completed as cancelled only once the walk has been cancelled");
    for (;;) {
        Word w = s->word.load(std::memory_order_acquire);
        switch (walk_detail::phase_of(w)) {
            case Phase::running:
                // Its callback has not returned yet.
                early_[s] = {outcome, note ? *note : std::string()};
                if (s->word.compare_exchange_strong(w, walk_detail::with_phase(w, Phase::completed_early),
                                                    std::memory_order_acq_rel))
                    return;
                early_.erase(s);
                continue;
            case Phase::pending:
                if (!s->word.compare_exchange_strong(w, walk_detail::with_phase(w, Phase::finishing),
                                                     std::memory_order_acq_rel))
                    continue;
                lk.unlock();
                finish_claimed(sec, s, status_after(outcome), std::move(note));
                // Fail fast may have stopped the walk, or a slot came free
                // for a stopping one.
                sec.leave();
                ex_->settle_stopped();
                return;
            case Phase::completed_early:
                if (from_own_callback) {
                    early_[s] = {outcome, note ? *note : std::string()};
                    return;
                }
                throw Error(Errc::state, who() + " was already completed");
            case Phase::finishing:
                // Another completion or a cancel got there first; which one
                // decides the answer, so wait the moment it takes to finish
                // (it needs the lock to record its message).
                lk.unlock();
                std::this_thread::yield();
                lk.lock();
                continue;
            case Phase::waiting:
                if (w & walk_detail::ran_bit)
                    throw Error(Errc::state, who() + " failed an attempt and waits to be tried again");
                throw Error(Errc::state, who() + (ex_->pulls() ? " has not been handed out; only a vertex "
                                                                 "dag_walk_next_ready() handed out can be completed"
                                                               : " has not started; only a vertex whose callback "
                                                                 "returned pending can be completed"));
            case Phase::expanded:
                throw Error(Errc::state, who() + " was expanded; it finishes when its sub-walk does");
            case Phase::removed:
                throw Error(Errc::state, who() + " was removed by an update");
            case Phase::retrying:
                throw Error(Errc::state, who() + " failed an attempt and waits to be tried again");
            case Phase::done: {
                if (!(w & walk_detail::ran_bit))
                    throw Error(Errc::state, who() + (ex_->pulls() ? " was never handed out; only a vertex "
                                                                     "dag_walk_next_ready() handed out can be completed"
                                                                   : " never started; only a vertex whose callback "
                                                                     "returned pending can be completed"));
                // Cancelled while pending, unless it was expanded: then it
                // finished with its sub-walk.
                const bool expanded = std::any_of(children_.begin(), children_.end(),
                                                  [&](const auto &c) { return c->parent_slot_ == s; });
                if (expanded) throw Error(Errc::state, who() + " was expanded; it finished with its sub-walk");
                if (cancelled_pending_.count(s) != 0)
                    throw Error(Errc::cancelled, who() + " was cancelled while pending");
                throw Error(Errc::state, who() + " has already finished");
            }
        }
    }
}

Walk &Walk::expand(VertexId vertex, Graph &sub, Visitor visitor, void *tag,
                   const std::function<void(Walk &)> &created) {
    if (!visitor.call && !ex_->pulls()) throw Error(Errc::invalid_argument, "the sub-walk callback is NULL");
    // A pull walk's host may expand as another thread frees the walk.
    CallScope scope(*ex_);
    std::shared_ptr<const Snapshot> snap = acyclic_snapshot(sub);
    std::unique_ptr<Walk> child(new Walk(sub, visitor, tag, ex_, this, nullptr));
    child->base_ = snap;
    child->snap_ = std::move(snap);
    child->reverse_ = reverse_;
    child->take_scratch();
    child->init_slots({});

    // A pull walk's vertex is handed out pending, and expanded from there.
    const Phase from = ex_->pulls() ? Phase::pending : Phase::running;
    Walk *raw = child.get();
    Slot *s;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (finishing_) throw Error(Errc::state, "the walk has already finished");
        s = lookup(vertex);
        child->parent_slot_ = s;
        const std::string refused =
            "vertex " + std::to_string(vertex) +
            (ex_->pulls() ? " can be expanded only while it is handed out and not completed, once"
                          : " can be expanded only from inside its own callback, once");
        if (walk_detail::phase_of(s->word.load(std::memory_order_acquire)) != from)
            throw Error(Errc::state, refused);
        // Record first, publish last: the CAS cannot throw, so an allocation
        // failure leaves the vertex running as it was.
        children_.push_back(std::move(child));
        try {
            expansions_[s] = raw;
        } catch (...) {
            children_.pop_back();
            throw;
        }
        // Before the publication below, after which the sub-walk may start
        // (its parent's callback may return on another thread meanwhile): its
        // graph counts as walked from then on, so that its updates keep readers
        // out as a root walk's do, and the caller knows the sub-walk by then.
        raw->graph_->begin_walk();
        if (created) created(*raw);
        Word w = s->word.load(std::memory_order_acquire);
        bool published = false;
        while (walk_detail::phase_of(w) == from && !published)
            published = s->word.compare_exchange_weak(w, walk_detail::with_phase(w, Phase::expanded),
                                                      std::memory_order_acq_rel, std::memory_order_acquire);
        if (!published) {
            raw->graph_->end_walk();
            expansions_.erase(s);
            children_.pop_back();
            throw Error(Errc::state, refused);
        }
    }
    if (from == Phase::pending) {
        // What a worker does once an expanding callback returns: the vertex
        // stops counting as running and gives its slot back; the sub-walk
        // holds none until its own vertices are handed out.
        Section sec(*ex_);
        if (ex_->observer().call) running_.fetch_sub(1, std::memory_order_acq_rel);
        start_expansion(sec, s);
        sec.leave();
        std::vector<Slot *> none;
        ex_->release_slot(none);
        // The sub-walk's roots queued for a walk stopped meanwhile are
        // settled here, as a completion does: no puller may come for them.
        ex_->settle_stopped();
    }
    return *raw;
}

void Walk::start_expansion(Section &sec, Slot *s) {
    Walk *child;
    {
        std::lock_guard<std::mutex> lk(mu_);
        auto it = expansions_.find(s);
        child = it->second;
        expansions_.erase(it);
    }
    child->launch(&sec);
}

}  // namespace dag

