// The scheduler shared by a walk and its sub-walks: one Asio thread pool, one
// queue of ready vertices and one parallelism budget, so nested walks share
// the bound instead of multiplying it.
//
// Sections. Every change to the scheduling state (a vertex's word, its
// status, the walk's counts) happens inside a section: a worker is inside
// from the moment a callback returns until it calls the next one, a thread
// finishing a vertex from outside the pool (dag_walk_complete, cancel) for
// the length of that call. An update (dag_walk_apply) quiesces: it raises a
// flag, waits until no thread is inside, changes the state alone, and lowers
// the flag; a thread entering a section while the flag is up waits for it.
// With the updates out of the way, what is left racing on a word is other
// releasers of the same vertex and dag_walk_complete, so the walk's common
// steps need no atomic read-modify-write: a finished vertex publishes its
// phase with a store, and a waiter with one dependency is released, and
// claimed to run on the same worker, with a load and a store. Only a waiter
// with several dependencies still takes a locked decrement. A worker enters
// with a store and a compiler barrier where membarrier(2) lets the updater
// pay for both sides (asymmetric_fence.hpp), with an atomic exchange
// elsewhere.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "walk/asymmetric_fence.hpp"
#include "walk/ready_order.hpp"
#include "walk/ranked_slots.hpp"
#include "walk/walk_state.hpp"
#include "walk/walk_types.hpp"

namespace dag::walk_detail {

class Executor;
class Pools;
class Retries;

// One worker's "inside a section" flag, alone on its cache line.
struct alignas(64) SectionFlag {
    std::atomic<bool> inside{false};
};

// How many of a ranked walk's best queued vertices one worker takes at once
// (with several workers; one worker takes one). A batch that ran quickly
// doubles the next, up to `most`: short vertices make the queue's lock,
// which every worker takes, the cost, and a batch's few places of order
// cost nothing. One that took long halves it, down to one: long vertices
// are where the order pays, and a batch holds back better-ranked vertices
// released while it runs. The most is high (512) because a ranked walk
// without weights lies in rank order in memory (walker.hpp): a longer run
// of the queue's best is a longer sequential read, and one lock less; at
// 50 us a batch, holding back better ones costs the order little.
class RankedBatch {
public:
    static constexpr std::size_t most = 512;
    // A batch quicker than this is short work.
    static constexpr std::chrono::microseconds quick{50};

    std::size_t size() const noexcept { return size_; }
    // A batch is taken now: the one before it ran since the last call.
    void taken(std::chrono::steady_clock::time_point now) noexcept {
        if (last_ != std::chrono::steady_clock::time_point{})
            size_ = now - last_ < quick ? std::min(most, 2 * size_) : std::max<std::size_t>(1, size_ / 2);
        last_ = now;
    }

private:
    std::size_t size_ = 1;
    std::chrono::steady_clock::time_point last_{};
};

// A thread's stay in sections of one executor (see above). A worker's
// Section enters and leaves around each callback; an outside caller's is
// inside for its whole life. Also batches the finished-vertex counts of a
// worker, so a walk's shared counter takes one add per batch.
class Section {
public:
    // The most finished vertices a worker counts before adding them to the
    // walk's shared count: one atomic add per this many vertices.
    static constexpr std::size_t max_done_batch = 64;

    // An outside caller: inside from construction to destruction.
    explicit Section(Executor &ex);
    // A worker, with its own flag: starts outside.
    Section(Executor &ex, SectionFlag &flag) noexcept : ex_(ex), flag_(&flag) {}
    Section(const Section &) = delete;
    Section &operator=(const Section &) = delete;
    ~Section();

    inline void enter();
    inline void leave() noexcept;
    bool inside() const noexcept { return inside_; }
    Executor &executor() const noexcept { return ex_; }
    // A worker of a ranked walk: the batches it takes from the queue.
    RankedBatch &ranked_batch() noexcept { return ranked_batch_; }
    // A worker of a ranked walk: the ranks of the vertices it is about to
    // queue, read before it takes the queue's lock.
    std::vector<std::uint32_t> &ready_ranks() noexcept { return ready_ranks_; }
    // A worker's (or the puller's) pool slot kept from the vertex it
    // finished for the next it starts (walk_pools.hpp); null for an outside
    // caller, which keeps none.
    std::uint32_t *kept_pool_slot() noexcept { return flag_ ? &kept_pool_slot_ : nullptr; }

    // Counts `w`'s finished vertex, now or later.
    inline void count_done(Walk &w);
    void flush_done();

    // Leaves the section for the length of a call into user code (an
    // observer), which may itself apply an update.
    class Pause {
    public:
        explicit Pause(Section &s) : s_(s) { s_.leave(); }
        ~Pause() { s_.enter(); }
        Pause(const Pause &) = delete;
        Pause &operator=(const Pause &) = delete;

    private:
        Section &s_;
    };

private:
    void count_done_slowly(Walk &w);

    Executor &ex_;
    SectionFlag *flag_ = nullptr;  // nullptr: an outside caller
    bool inside_ = false;
    Walk *batch_walk_ = nullptr;
    std::size_t batch_count_ = 0;
    RankedBatch ranked_batch_;
    std::vector<std::uint32_t> ready_ranks_;
    std::uint32_t kept_pool_slot_ = ~std::uint32_t{0};
};

// What an executor grows as its walk runs, for the next walk of the same
// graph to use again (walker.cpp keeps it with the graph's walk arrays): a
// walk whose vertex releases a million others at once then neither grows its
// lists anew nor pages in fresh memory, as glibc's allocator may make it do
// for the first few walks. The lists a worker run fills (the vertices it
// released, their ranks), the ready queue's ring, and the ranked slots of a
// walk with a priority.
struct ExecutorBuffers {
    std::vector<std::vector<Slot *>> ready;
    std::vector<std::vector<std::uint32_t>> ranks;
    std::vector<Slot *> ring;
    std::unique_ptr<RankedSlots<Slot>> ranked;
};

class Executor {
public:
    explicit Executor(const WalkOptions &options);
    Executor(const Executor &) = delete;
    Executor &operator=(const Executor &) = delete;
    ~Executor();

    // Finishes `s` with `status` (`ran`: its callback was called), releases
    // its waiters and finishes, in turn, every waiter that will now never run
    // (upstream failed, or the walk is stopping). Waiters that became ready
    // are appended to `ready`; with `next`, the first of them is claimed for
    // running instead and stored there. `running`: it counts as running for
    // the observer (not one that ran and was waiting to be tried again).
    // Inside a section.
    void settle(Section &sec, Slot *s, VertexStatus status, bool ran, std::unique_ptr<std::string> message,
                std::vector<Slot *> &ready, Slot **next = nullptr, bool running = true);
    // One dependency of `d` is resolved (`ok`: it did not fail), with a
    // locked decrement: safe against any other releaser.
    void release_waiter(Slot *d, bool ok, std::vector<Slot *> &ready, std::vector<Slot *> &skips);
    // `d`, whose word is now `word`, waits for nothing more: queue it, or
    // claim it for skipping when it will never run.
    void became_ready(Slot *d, Word word, std::vector<Slot *> &ready, std::vector<Slot *> &skips);
    // Finishes claimed vertices that will never run (upstream failed, or the
    // walk is stopping). Inside a section.
    void settle_skipped(Section &sec, std::vector<Slot *> &skips, std::vector<Slot *> &ready);
    // The walk's first push: its roots, with no worker running yet. Should
    // queueing them or waking the first worker fail, the queue is left empty
    // and the exception reaches the caller: no worker would ever take them
    // up (push() keeps them queued for one), and the walk would never end.
    void launch(std::vector<Slot *> &ready);
    // Hands ready vertices to the workers, waking idle ones.
    void push(std::vector<Slot *> &ready) {
        if (!ready.empty()) push_nonempty(ready);
    }
    // Room for `n` more ready vertices, so that pushing that many does not
    // allocate (an update that has changed the graph must not fail).
    void reserve_queue(std::size_t n);
    // A pending vertex finished: its parallelism slot is free again, and
    // `ready`, what it released, is queued in the same lock, so that no
    // worker the slot wakes starts another vertex before seeing them (at
    // parallelism 1, one that a released vertex outranks).
    void release_slot(std::vector<Slot *> &ready);
    // The walk's named limits (walk_pools.hpp), before it launches; a walk
    // that declares none never sets them.
    void set_pools(std::unique_ptr<Pools> pools);
    // A walk with a priority, before it launches: its ranks are below `n`.
    void set_rank_count(std::size_t n);
    // Before set_rank_count() and launch: a past walk's buffers, to use again.
    void adopt_buffers(ExecutorBuffers &&buffers) noexcept;
    // Once joined: the buffers, for a later walk's adopt_buffers().
    ExecutorBuffers release_buffers() noexcept;
    // An update held `s` back or removed it: the pool slots it may have been
    // handed while parked go to others (it asks again once ready).
    void release_pools(const Slot *s, std::vector<Slot *> &ready);
    // The walk's retry policy (walk_retries.hpp), before it launches; a walk
    // without retries never sets it.
    void set_retries(std::unique_ptr<Retries> retries);
    const Retries *retries() const noexcept { return retries_.get(); }
    // A vertex's back-off has passed: back to the ready queue. From the
    // retry timer's thread.
    void retry_due(Slot *s);

    // Claims a waiting vertex whose count is zero for running (or skipping).
    static bool claim(Slot *s) noexcept;

    // Waits until no thread is inside a section and keeps new ones out until
    // resume(); one updater at a time. Must not be called from inside a
    // section.
    void quiesce();
    void resume() noexcept;

    // First reason wins: cancelled (dag_walk_cancel) or not_run (fail fast).
    void stop(VertexStatus reason) noexcept;
    VertexStatus stop_reason() const noexcept {
        return static_cast<VertexStatus>(stop_.load(std::memory_order_acquire) & ~cancel_bit);
    }
    bool cancel_requested() const noexcept { return stop_.load(std::memory_order_seq_cst) & cancel_bit; }
    void request_cancel() noexcept;
    // A pull walk freed from its own observer: no host can complete what it
    // hands out any more, so a vertex handed out from now on ends cancelled
    // at once. Set before the cancel that finishes what is out.
    void abandon() noexcept { abandoned_.store(true, std::memory_order_seq_cst); }
    bool abandoned() const noexcept { return abandoned_.load(std::memory_order_seq_cst); }

    // A raw timestamp since the walk started: TSC ticks where the kernel
    // itself keeps its monotonic clock on the TSC (a read costs about two
    // thirds of a steady_clock read there), steady_clock nanoseconds elsewhere.
    // now_ordered() is never read before the instructions that precede it;
    // now() may be read a few cycles early, which an end time can afford.
    std::int64_t now() const noexcept;
    std::int64_t now_ordered() const noexcept;
    // Nanoseconds per raw timestamp unit when stamps are TSC ticks
    // (stamps_are_ns() false). The first call fixes the rate against
    // steady_clock over the time since the walk started, so call it only
    // once the walk has finished; a report reads it once for all its vertices.
    double ns_per_tick() const;
    bool stamps_are_ns() const noexcept { return !tsc_; }
    bool timestamps() const noexcept { return timestamps_; }
    const Observer &observer() const noexcept { return observer_; }
    // With an observer: counts an event of `w` (`running_delta` to its
    // running count; `finishes`: one more of its vertices is done) and calls
    // the observer with the counts and a sequence number taken together.
    // While the observer runs, this thread counts as calling back from this
    // executor (calling_back()), whichever thread it is: events also reach
    // the observer on threads that complete, cancel or update a walk.
    // Returns the walk's done count after the event.
    std::size_t observe(Walk &w, Event event, VertexId id, VertexStatus status, int running_delta, bool finishes);
    // True on a pool thread of this executor (inside a callback or observer)
    // and inside any of its observer calls: where waiting for the walk
    // would wait for itself. Also inside the callbacks and observer of a
    // walk started from one of those, on whichever thread they run: the
    // callback that started it may be waiting for that walk.
    bool calling_back() const noexcept;
    // True inside a call into this executor's walk on this thread (a
    // completion, an update, a pull): in its observer.
    bool inside_own_call() const noexcept;
    // calling_back() for any executor.
    static bool calling_back_any() noexcept;

    // Pull mode (WalkOptions::pull): the caller's thread runs the scheduler
    // for as long as it takes to hand out up to `capacity` ready vertices
    // into `out`, each then pending and holding a parallelism slot. Waits
    // until `deadline` while none is ready; returns with `out` empty then,
    // or at once when end_pulls() was called. One caller at a time runs the
    // scheduler; the others wait their turn.
    // No deadline: wait as long as it takes. A stopping walk (cancel, fail
    // fast) hands nothing out: a pull then settles everything queued.
    void pull(std::vector<ReadyVertex> &out, std::size_t capacity,
              std::optional<std::chrono::steady_clock::time_point> deadline);
    bool pulls() const noexcept { return pull_; }
    // Pull mode: once the walk is stopping, finishes what is queued from the
    // calling thread, as a pool would; a call that may have stopped the walk
    // or freed a slot (cancel, complete) makes it, since no puller may come.
    void settle_stopped();
    // A pull walk's retries kept as it stopped (Retries::take_flushed),
    // queued from this thread.
    void queue_flushed_retries();
    // True inside pull() on this thread (an observer it calls), where
    // pulling again would wait for itself.
    bool pulling_here() const noexcept;
    // The root walk has finished: pull() returns at once from now on.
    void end_pulls();

    // Calls from outside the pool (complete, cancel, apply) may touch the
    // executor after the walk finished; the root waits for them before it
    // is destroyed.
    void enter() noexcept;
    void leave() noexcept;
    void join();

private:
    friend class Section;

    static std::uint32_t rank_of(const Slot *s) noexcept;
    void worker();
    void push_nonempty(std::vector<Slot *> &ready);
    // Ranked, from a worker: push_nonempty() with the ranks read before the
    // lock is taken (into `sec`'s ready_ranks()). Every worker of a ranked
    // walk takes that lock for every batch, so what is done under it is
    // time the others may wait: a rank is a cache miss where ranks are far
    // apart. A pull walk has one puller at a time, whose Section lives for
    // one turn: there it is push_nonempty(), with nothing to allocate.
    void push_ranked(Section &sec, std::vector<Slot *> &ready);
    // Reads the ranks of `ready` into `sec`'s ready_ranks().
    void read_ranks(Section &sec, const std::vector<Slot *> &ready);
    // Ranked: claims and removes the best-ranked vertex of `ready` if
    // nothing queued outranks it; null otherwise.
    Slot *take_best(std::vector<Slot *> &ready) noexcept;
    // Ranked with one worker: keeps the ranked vertices of `ready` in solo_
    // and queues the others. With `take`, the best-ranked of them is
    // claimed and returned instead if it outranks everything in solo_ and
    // the queue.
    Slot *keep_solo(std::vector<Slot *> &ready, bool take);
    // Ranked with one worker: whether `next`, a ranked vertex claimed as it
    // was released, runs next: nothing in `local`, solo_ or the queue
    // outranks it (or another thread has just completed or expanded it).
    // Otherwise it is made ready again and kept in solo_.
    bool keeps_turn(Slot *next, const std::vector<Slot *> &local);
    // Ranked with one worker: claims and removes solo_'s best-ranked vertex
    // if nothing queued outranks it (`anyway`: whatever is queued); null
    // when solo_ has none to give.
    Slot *take_solo(bool anyway) noexcept;
    // Ranked, with nothing else to run: queues `ready` and takes the
    // queue's best (ranked_take() of them) into `local`, under one lock.
    void exchange_best(Section &sec, std::vector<Slot *> &ready, std::vector<Slot *> &local);
    // How many of the queue's best a worker of a ranked walk takes at once:
    // `batch` at most, and no more than a share that leaves the others
    // theirs. Called with mu_ held.
    std::size_t ranked_take(const RankedBatch &batch) const noexcept;
    void enter_slowly(SectionFlag *flag);
    // Runs the batch in `local`; false when the worker lost its slot to a
    // pending vertex and could not get another.
    bool drain(Section &sec, std::vector<Slot *> &local, std::vector<Slot *> &ready);
    // A worker (or the puller) done with the queue's work for now: counts
    // what it finished, gives back the pool slot it kept, if any, and
    // queues `ready`.
    void leave_queue_work(Section &sec, std::vector<Slot *> &ready);
    // Adds finished vertices to a walk's count; the last one finishes it.
    void count_done(Section &sec, Walk &w, std::size_t n);
    // Runs one claimed vertex, inside `sec`; false when its slot went to the
    // vertex (pending). `clock`: in, a start time to record instead of
    // reading the clock, or -1; out, the end time of a vertex that finished
    // here, or -1, read in order after everything before it when
    // `order_end`. `next`: the waiter claimed to run next, if any.
    bool run(Section &sec, Slot *s, std::vector<Slot *> &ready, std::int64_t &clock, Slot *&next, bool order_end);
    // A start time for `d`, just claimed by `s`, which ended at `end` on this
    // worker: the latest end time among what `d` waited for, when that is
    // known and cheap to find, else -1 (read the clock).
    static std::int64_t start_after(const Slot &s, const Slot &d, std::int64_t end) noexcept;
    // `skips` receives the waiters claimed for skipping; `running` as for
    // settle().
    void finish_one(Section &sec, Slot *s, VertexStatus status, bool ran, std::unique_ptr<std::string> message,
                    std::vector<Slot *> &ready, std::vector<Slot *> &skips, Slot **next, bool running = true);
    VertexStatus skip_status(const Slot &d) const noexcept;
    // `s`'s attempt failed with `message`: true when it will be tried again
    // (it then holds no pool slot and is not finished). Inside a section.
    bool retry(Slot *s, const std::string *message, std::vector<Slot *> &ready);
    // As a vertex finishes or fails an attempt: frees its pools' slots
    // (into `kept`, a worker's, where one may stay) and queues at once the
    // vertices handed them.
    void free_pools(const Slot *s, std::vector<Slot *> &ready, std::uint32_t *kept);
    // A vertex whose word is `w` will be finished without running.
    bool will_skip(Word w) const noexcept;
    // Sets the stop word's reason (unless one is set) and cancel bit.
    void stop_with(std::uint8_t word) noexcept;
    std::size_t spawn_locked();
    void post_workers(std::size_t n);
    void wait_resumed() const noexcept;

    const bool pull_;
    // Null unless the walk declares pools: checked once as a vertex starts
    // and once as it finishes.
    std::unique_ptr<Pools> pools_;
    // Null unless the walk allows retries: checked once per failed attempt,
    // and once per vertex that ran as it finishes.
    std::unique_ptr<Retries> retries_;
    const std::size_t parallelism_;
    // drain() keeps the waiters it releases until it needs the queue.
    const bool hold_ready_;
    const std::size_t max_workers_;
    const FailurePolicy policy_;
    const bool timestamps_;
    const Observer observer_;
    const bool tsc_;
    const bool asymmetric_;
    const std::chrono::steady_clock::time_point t0_;
    const std::uint64_t tsc0_;
    mutable std::once_flag rate_once_;
    mutable double ns_per_tick_ = 1.0;

    std::mutex mu_;
    // Ranked for a walk with a priority: then a worker takes one vertex at a
    // time, and runs a dependent it released only when that outranks every
    // vertex queued (take_best).
    ReadyOrder queue_;
    // A ranked walk's only worker (no pulls) holds what it releases here
    // until it runs it, and the queue only what other threads queue: only
    // one worker at a time uses it, handed over with mu_ as workers start
    // and exit, and drain() leaves it empty. Set with the rank count.
    const bool solo_ranked_;
    std::unique_ptr<RankedSlots<Slot>> solo_;
    // Lists no worker run holds (each run takes a pair and gives it back,
    // with mu_; room for max_workers_ pairs is reserved, so giving back does
    // not allocate), and ranked slots not yet used.
    ExecutorBuffers spare_;
    std::size_t active_ = 0;     // workers posted and not yet exited
    std::size_t in_flight_ = 0;  // slots held: by workers, and by pending vertices
    std::vector<std::size_t> free_flags_;
    // Pull mode: a puller waits here for a ready vertex, a free slot, its
    // turn, or the end.
    std::condition_variable pull_cv_;
    bool pulling_ = false;
    bool pulls_ended_ = false;
    // The puller's work lists, kept between turns: a pull loop takes a turn
    // for every few vertices.
    std::vector<Slot *> pull_local_, pull_ready_;
    std::vector<ReadyVertex> *pull_out_ = nullptr;  // the current puller's
    std::atomic<bool> abandoned_{false};  // abandon()

    std::unique_ptr<SectionFlag[]> flags_;  // one per worker that can run at once
    std::atomic<bool> quiescing_{false};
    std::atomic<std::size_t> outside_inside_{0};  // outside callers inside a section
    std::mutex quiesce_mu_;

    // Observed walks only: counts and sequence numbers change together.
    std::mutex event_mu_;
    std::uint64_t sequence_ = 0;

    // The stop reason and whether dag_walk_cancel asked for it, in one word:
    // whoever sees the cancel sees the walk stopping. As two stores, a vertex
    // cancelled while pending in between released its waiters into a walk
    // not yet stopping, and they ran.
    static constexpr std::uint8_t cancel_bit = 0x80;
    std::atomic<std::uint8_t> stop_{static_cast<std::uint8_t>(VertexStatus::ok)};

    std::mutex calls_mu_;
    std::condition_variable calls_cv_;
    std::size_t calls_ = 0;

    // Unique for the process's life, unlike an address: an executor freed
    // and another made in its place must not count as this one.
    const std::uint64_t serial_;
    // The serials of the executors whose callbacks or observer the thread
    // that made this one was inside (and of those they were started
    // inside): empty unless this walk was started from a callback.
    const std::vector<std::uint64_t> started_inside_;
    static std::vector<std::uint64_t> inside_now();

    // Started without threads of its own; threads_ run it (attach). Boost's
    // own start hangs when one of its threads cannot be created: it joins
    // those it started, which wait for work that never ends.
    boost::asio::thread_pool pool_{0};
    std::vector<std::thread> threads_;
    bool joined_ = false;
};

// Keeps an external call registered with the executor for its duration.
class CallScope {
public:
    explicit CallScope(Executor &ex) noexcept : ex_(ex) { ex_.enter(); }
    ~CallScope() { ex_.leave(); }
    CallScope(const CallScope &) = delete;
    CallScope &operator=(const CallScope &) = delete;

private:
    Executor &ex_;
};

// Per vertex on a worker: kept inline, and the common case first.
inline void Section::enter() {
    if (flag_ && ex_.asymmetric_) {
        flag_->inside.store(true, std::memory_order_relaxed);
        light_fence();
        if (!ex_.quiescing_.load(std::memory_order_acquire)) {
            inside_ = true;
            return;
        }
        flag_->inside.store(false, std::memory_order_release);
    }
    ex_.enter_slowly(flag_);
    inside_ = true;
}

inline void Section::leave() noexcept {
    if (flag_)
        flag_->inside.store(false, std::memory_order_release);
    else
        ex_.outside_inside_.fetch_sub(1, std::memory_order_release);
    inside_ = false;
}

inline void Section::count_done(Walk &w) {
    // A batch stays small, so that a polled progress count
    // (Walk::progress) lags by little more than a batch per worker.
    if (flag_ && batch_walk_ == &w && batch_count_ < max_done_batch) {
        ++batch_count_;
        return;
    }
    count_done_slowly(w);
}

}  // namespace dag::walk_detail
