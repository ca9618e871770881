// The parallel walker: runs a callback per vertex once all its dependencies
// have finished, on a Boost.Asio thread pool, with a bound on callbacks in
// flight, failure propagation, cancellation, asynchronous completion, updates
// during the walk and nested sub-walks (DESIGN.md section 3).
//
// Scheduling cost (DESIGN.md section 5): the topology is frozen into CSR
// arrays, once per change of the graph (the snapshot is cached on it); a
// finished vertex decrements its waiters' atomic counters, keeps one
// newly ready waiter to run inline on the same worker and hands the rest to a
// shared queue in one batch. A pool handler is posted per idle worker woken,
// never per vertex.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "algorithms/dynamic_order.hpp"
#include "graph/snapshot.hpp"
#include "walk/walk_priority.hpp"
#include "walk/walk_report.hpp"
#include "walk/walk_state.hpp"
#include "walk/walk_types.hpp"

namespace dag {

namespace walk_detail {
class Executor;
class Pools;
class Section;
}  // namespace walk_detail

struct WalkUpdate;

class Walk {
public:
    // Validates the options and the graph (a cycle throws Errc::cycle before
    // anything runs), marks the graph busy and starts walking. `tag` is handed
    // back through tag(), for the C layer.
    static std::unique_ptr<Walk> start(Graph &g, Visitor visitor, const WalkOptions &options, void *tag);
    // The two halves of start(), for a caller that must publish the walk
    // before its first callback can run.
    static std::unique_ptr<Walk> create(Graph &g, Visitor visitor, const WalkOptions &options, void *tag);
    void run();

    Walk(const Walk &) = delete;
    Walk &operator=(const Walk &) = delete;
    // A root walk still running is cancelled and waited for.
    ~Walk();

    // Pull mode (WalkOptions::pull), root walks: hands out up to `capacity`
    // ready vertices of the walk and its sub-walks into `out` (cleared
    // first), each pending until Walk::complete; waits until `deadline`
    // (forever without one) while none is ready. Returns true once the walk
    // has finished (`out` then empty), false otherwise (`out` empty on
    // timeout). Throws Errc::state on a callback walk, on a sub-walk, and
    // from an observer called while handing out.
    bool next_ready(std::vector<ReadyVertex> &out, std::size_t capacity,
                    std::optional<std::chrono::steady_clock::time_point> deadline);
    // Vertices finished and vertices in all, for a progress display that
    // polls: `done` never exceeds `total`, and neither goes down from one
    // call to the next. Without an observer, workers add their finished
    // vertices in batches (Section::max_done_batch), so `done` may lag.
    void progress(std::size_t &done, std::size_t &total);
    // wait() with a deadline: true once finished, false on timeout.
    bool wait_until(std::chrono::steady_clock::time_point deadline);

    // An outside call that reads the walk beyond what it locks (a wait and
    // the report read after it, a progress read), for its duration:
    // destroying the walk waits for it, as for completions, so a thread
    // still inside one as another thread frees the walk reads nothing freed.
    class Call {
    public:
        explicit Call(Walk &w) noexcept;
        ~Call();
        Call(const Call &) = delete;
        Call &operator=(const Call &) = delete;

    private:
        walk_detail::Executor &ex_;
    };

    // Blocks until the walk has finished. Throws Errc::state when called from
    // a callback or observer of this walk (it would wait for itself) or on a
    // sub-walk.
    void wait();
    bool finished() const;
    // True on a thread inside a callback or observer of this walk (or of
    // any walk sharing its pool), where wait() would wait for itself.
    bool calling_back() const noexcept;
    // True inside a read of the walked graph or a sub-walk's on this thread
    // (a traversal's visitor or predicate), which an update of the walk
    // waits for: waiting for the walk there could wait for itself, and
    // freeing it would free the graph read.
    bool reading_graph() noexcept;
    // The same for any walk: a pool thread, or an observer call.
    static bool on_walk_thread() noexcept;
    // For a caller that cannot wait (a callback or observer of this walk
    // letting go of it): cancels the walk unless it has finished, and calls
    // `release` once it has, on the thread that finishes it, or at once if
    // it already has. `release` must not wait for the walk on that thread.
    // Root walks only. Never throws: `release` will be called.
    void release_when_finished(std::function<void()> release) noexcept;
    // After wait(): the outcome of every vertex.
    WalkReport report() const;
    // After wait(): what the walk's status needs, with no per-vertex copy.
    WalkOutcome outcome() const;

    // Nothing new starts; running callbacks finish; pending vertices are
    // finished as cancelled. Applies to every sub-walk. Throws Errc::state on
    // a finished walk. In a pull walk a vertex handed out is the host's
    // running work: it finishes when the host completes it.
    void cancel();

    // Finishes a vertex whose callback returned (or will return) pending.
    // `from_own_callback`: called from inside the vertex's own callback,
    // whose result wins over a completion another thread made while it
    // ran, so this one replaces that (dag_walk_fail's message for the
    // callback's own failure).
    void complete(VertexId vertex, Outcome outcome, const char *message, bool from_own_callback = false);

    // From inside the vertex's callback: walk `sub` as part of the vertex,
    // which then finishes when the sub-walk does. `sub` must outlive this
    // walk and stay unchanged but for the sub-walk's own updates. Returns the
    // sub-walk, owned by this walk; `created`, if given, is called with it
    // before it can start (it must not throw).
    Walk &expand(VertexId vertex, Graph &sub, Visitor visitor, void *tag,
                 const std::function<void(Walk &)> &created = {});

    // Applies a batch of changes all or nothing; returns the ids given to the
    // added vertices, in the order they were added (walk_update.cpp).
    std::vector<VertexId> apply(const WalkUpdate &update);

    void *tag() const noexcept { return tag_; }
    const Graph &graph() const noexcept { return *graph_; }
    bool is_root() const noexcept { return parent_ == nullptr; }

private:
    friend class walk_detail::Executor;
    friend class walk_detail::Pools;
    using Slot = walk_detail::Slot;

    Walk(Graph &graph, Visitor visitor, void *tag,
         std::shared_ptr<walk_detail::Executor> executor, Walk *parent, Slot *parent_slot);

    // The options' pools, checked against the graph, for the executor.
    std::unique_ptr<walk_detail::Pools> make_pools(const WalkOptions &options);
    // Whether its frozen vertices have ranks: a root walk with a priority.
    bool has_ranks() const noexcept { return ranked_layout_ || !rank_.empty(); }
    // Its rank among the ready vertices (walk_priority.hpp), for a walk with a priority.
    std::uint32_t rank_of(const Slot &s) const noexcept {
        const Snapshot::Index i = index_of(s);
        if (i == Snapshot::npos) return walk_detail::unranked;
        if (ranked_layout_) return i;
        return !rank_.empty() ? rank_[i] : walk_detail::unranked;
    }
    // Takes over what the last walk of the same snapshot left (Scratch in
    // walker.cpp): its slot array and, for a root walk, its ranks.
    void take_scratch();
    // `always_run` ids must be in the snapshot.
    void init_slots(const std::vector<VertexId> &always_run);
    // `sec`: the caller's section, if it is inside one (a sub-walk's
    // launch, from its parent vertex's worker).
    void launch(walk_detail::Section *sec);
    Slot *lookup(VertexId id);
    // The slot's dense index in the snapshot; npos for a vertex added by an
    // update, which has no frozen edges.
    Snapshot::Index index_of(const Slot &s) const noexcept {
        // Compared as addresses: an added vertex's slot is not in the array.
        const std::uintptr_t off = reinterpret_cast<std::uintptr_t>(&s) - reinterpret_cast<std::uintptr_t>(slot_mem_.get());
        return off < frozen_bytes_ ? static_cast<Snapshot::Index>(off >> slot_shift_) : Snapshot::npos;
    }
    // A frozen slot's dense index in base_ (the report's order); npos for
    // a vertex added by an update.
    Snapshot::Index report_index(const Slot &s) const noexcept {
        const Snapshot::Index i = index_of(s);
        return ranked_layout_ && i != Snapshot::npos ? base_->index_of(id_of(s)) : i;
    }
    Slot &slot_at(Snapshot::Index i) noexcept {
        return *reinterpret_cast<Slot *>(slot_mem_.get() + (std::size_t{i} << slot_shift_));
    }
    const Slot &slot_at(Snapshot::Index i) const noexcept {
        return *reinterpret_cast<const Slot *>(slot_mem_.get() + (std::size_t{i} << slot_shift_));
    }
    VertexId id_of(const Slot &s) const noexcept {
        const Snapshot::Index i = index_of(s);
        if (i == Snapshot::npos) return static_cast<const walk_detail::ExtraSlot &>(s).id;
        return frozen_ids_ ? frozen_ids_[i] : VertexId{i} + 1;
    }
    static VertexStatus status_of(const Slot &s) noexcept {
        return walk_detail::status_of(s.word.load(std::memory_order_acquire));
    }
    // Only with timestamps on.
    walk_detail::Times &times(Slot &s) noexcept {
        if (index_of(s) == Snapshot::npos) return static_cast<walk_detail::ExtraSlot &>(s).times;
        return *reinterpret_cast<walk_detail::Times *>(reinterpret_cast<unsigned char *>(&s) + sizeof(Slot));
    }
    const walk_detail::Times &times(const Slot &s) const noexcept {
        if (index_of(s) == Snapshot::npos) return static_cast<const walk_detail::ExtraSlot &>(s).times;
        return *reinterpret_cast<const walk_detail::Times *>(reinterpret_cast<const unsigned char *>(&s) + sizeof(Slot));
    }
    void set_message(const Slot &s, std::string message);
    // Waiters of a slot from the frozen arrays (dependents, or dependencies
    // when walking in reverse).
    // By dense index.
    const Snapshot::Index *waiters_begin(Snapshot::Index i) const noexcept { return waiter_rows_ + waiter_offsets_[i]; }
    const Snapshot::Index *waiters_end(Snapshot::Index i) const noexcept { return waiter_rows_ + waiter_offsets_[i + 1]; }
    // What a frozen vertex waits for (dependencies, or dependents in
    // reverse), by dense index.
    const Snapshot::Index *waited_begin(Snapshot::Index i) const noexcept { return waited_rows_ + waited_offsets_[i]; }
    const Snapshot::Index *waited_end(Snapshot::Index i) const noexcept { return waited_rows_ + waited_offsets_[i + 1]; }
    // Asks for what running slot `s` will read first (its id and its row of
    // waiters), as soon as it is known to run: on a large graph whose edges
    // join vertices far apart each of those is a cache miss, and this lets
    // them overlap with the work before it.
    void prefetch_for_run(const Slot &s) const noexcept {
        const Snapshot::Index i = index_of(s);
        if (i == Snapshot::npos) return;
        if (frozen_ids_) __builtin_prefetch(frozen_ids_ + i);
        __builtin_prefetch(waiter_offsets_ + i);
    }
    // How many vertices a frozen vertex waited for when the walk began.
    Snapshot::Index frozen_wait_count(Snapshot::Index i) const noexcept {
        return reverse_ ? snap_->in_degree(i) : snap_->out_degree(i);
    }
    // Whether vertex `id` waits, by the graph as it is now, on a vertex that
    // failed or was skipped for a failure. Only with the walk quiesced.
    bool waits_on_a_failure(VertexId id);
    // Every current waiter of `s` when updates changed its list.
    void overlay_waiters(Slot &s, std::vector<Slot *> &out);
    // The same, with mu_ held.
    void waiters_locked(Slot &s, const walk_detail::Overlay &o, std::vector<Slot *> &out);
    void start_expansion(walk_detail::Section &sec, Slot *s);
    // Called when done reached total; finishes the walk once. `sec`: the
    // caller's section, if it is inside one.
    void maybe_finish(walk_detail::Section *sec);
    void on_finished(walk_detail::Section *sec);
    void record_failure(const Slot &s);
    // A pending vertex a cancel claimed (see cancelled_pending_).
    void note_cancelled_pending(const Slot &s) noexcept;
    void cancel_pending();
    // cancel(), finishing pending vertices as cancelled or leaving them to
    // be completed.
    void cancel_walk(bool finish_pending);
    // Finishes a pending vertex that the caller moved to Phase::finishing,
    // and releases its waiters. Noexcept: with the vertex claimed, running
    // out of memory while releasing would leave the walk unable to finish,
    // so the process ends instead, as on the pool threads.
    void finish_claimed(walk_detail::Section &sec, Slot *s, VertexStatus status,
                        std::unique_ptr<std::string> message) noexcept;
    std::vector<Walk *> self_and_children();
    VertexStatus summary(std::string &message) const;

    // Topology.
    Graph *graph_;
    // The graph's snapshot: the report's order (ascending ids) and the key
    // of what a walk leaves to the next.
    std::shared_ptr<const Snapshot> base_;
    // What the walk's slots follow: base_, or for a walk ranked without
    // weights base_ renumbered by rank (ranked_layout_), so that a vertex's
    // dense index is its rank and the walk, which starts vertices about in
    // rank order, reads its arrays in sequence (a grid's critical path
    // otherwise jumps a row of the grid from one vertex to the next).
    std::shared_ptr<const Snapshot> snap_;
    bool ranked_layout_ = false;
    bool reverse_ = false;
    bool launched_ = false;
    // The frozen vertices' slots, by dense index: every 16 bytes, or every 32
    // with the vertex's times right after its slot when timestamps are on,
    // so that where the walk order jumps around the two cost one cache miss,
    // not two.
    walk_detail::BulkArray<unsigned char> slot_mem_;
    // slot_mem_'s size, for the next walk to know whether it fits: set with
    // the block, so a walk refused before init_slots passes on the size of
    // the block it took over.
    std::size_t slot_bytes_ = 0;
    unsigned slot_shift_ = 4;
    // Fixed by init_slots for the scheduler, which reads them for every
    // vertex: the frozen arrays' addresses, read through snap_ and the
    // direction every time, cost a chain a tenth more.
    std::size_t frozen_bytes_ = 0;  // snap_->size() << slot_shift_
    const VertexId *frozen_ids_ = nullptr;  // Snapshot::id_table()
    const Snapshot::Index *waiter_offsets_ = nullptr, *waiter_rows_ = nullptr;
    const Snapshot::Index *waited_offsets_ = nullptr, *waited_rows_ = nullptr;
    std::deque<walk_detail::ExtraSlot> extra_;  // added by updates; deque keeps addresses stable
    std::vector<Slot *> roots_;  // waiting for nothing; found by init_slots, queued by launch
    HugeVector<std::uint32_t> rank_;  // by base_'s dense index; empty without a priority, and for sub-walks
    // Which ranks rank_ holds, for the next walk of the same snapshot to
    // take over (ranks depend on the snapshot, the priority and the
    // direction only, when no weights are given); -1 for none to keep.
    // Until create() has ranks of its own, the ones the last walk left;
    // a walk that uses none passes those on (spare_ranks_).
    int rank_key_ = -1;
    HugeVector<std::uint32_t> spare_ranks_;
    std::weak_ptr<const NameRanks> rank_names_;  // the name order rank_ was made with
    // base_ renumbered by the ranks of rank_key_, once made: kept with them.
    std::shared_ptr<const Snapshot> layout_;

    Visitor visitor_;
    void *tag_;
    std::shared_ptr<walk_detail::Executor> ex_;
    Walk *parent_;
    Slot *parent_slot_;

    std::atomic<std::size_t> done_{0};
    std::atomic<std::size_t> total_{0};
    std::atomic<std::size_t> running_{0};
    // An update was applied: a vertex may wait for more than its frozen
    // in-degree says. Set before the update touches any vertex's word.
    std::atomic<bool> updated_{false};

    // One update at a time, from its checks to its last change.
    std::mutex apply_mu_;
    // Guards everything below, and the overlay contents.
    mutable std::mutex mu_;
    std::condition_variable finished_cv_;
    bool finishing_ = false;  // done reached total; no more changes
    // Whether the walk was cancelled when it finished: what every report
    // and wait tells from then on, whatever a cancel racing the end sets.
    bool cancelled_at_finish_ = false;
    bool finished_ = false;   // graph released, waiters may go
    std::function<void()> release_;  // release_when_finished()
    VertexId first_error_ = no_vertex;
    std::string first_error_message_;
    std::unordered_map<VertexId, Slot *> extra_index_;
    std::unordered_map<Slot *, walk_detail::Overlay> overlays_;
    std::unordered_map<Slot *, std::pair<Outcome, std::string>> early_;
    std::unordered_map<const Slot *, std::string> messages_;
    // Pending vertices a cancel finished, noted while they are claimed (a
    // completion waits for a claimed vertex to finish): a completion of one
    // learns it was cancelled, where one the host completed as cancelled has
    // simply finished.
    std::unordered_set<const Slot *> cancelled_pending_;
    std::unordered_map<Slot *, Walk *> expansions_;
    std::vector<std::unique_ptr<Walk>> children_;
    // The graph's topological order, built at the first update and kept
    // by each: the updates' cycle check (walk_update.cpp). Under apply_mu_.
    DynamicOrder order_;
};

}  // namespace dag
