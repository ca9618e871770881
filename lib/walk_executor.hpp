// The scheduler shared by a walk and its sub-walks: one Asio thread pool, one
// queue of ready vertices and one parallelism budget, so nested walks share
// the bound instead of multiplying it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "walk_state.hpp"
#include "walk_types.hpp"

namespace dag::walk_detail {

class Executor {
public:
    explicit Executor(const WalkOptions &options);
    Executor(const Executor &) = delete;
    Executor &operator=(const Executor &) = delete;
    ~Executor();

    // Finishes `s` with `status`, releases its waiters and finishes, in turn,
    // every waiter that will now never run (upstream failed, or the walk is
    // stopping). Waiters that became ready are appended to `ready`.
    void settle(Slot *s, VertexStatus status, std::unique_ptr<std::string> message, std::vector<Slot *> &ready);
    // One dependency of `d` is resolved (`ok`: it did not fail).
    void release_waiter(Slot *d, bool ok, std::vector<Slot *> &ready, std::vector<Slot *> &skips);
    // `d`, whose word is now `word`, waits for nothing more: queue it, or
    // claim it for skipping when it will never run.
    void became_ready(Slot *d, Word word, std::vector<Slot *> &ready, std::vector<Slot *> &skips);
    // Finishes claimed vertices that will never run (upstream failed, or the
    // walk is stopping).
    void settle_skipped(std::vector<Slot *> &skips, std::vector<Slot *> &ready);
    // Hands ready vertices to the workers, waking idle ones.
    void push(std::vector<Slot *> &ready);
    // A pending vertex finished: its parallelism slot is free again.
    void release_slot();

    // Claims a waiting vertex whose count is zero for running (or skipping).
    static bool claim(Slot *s) noexcept;

    // First reason wins: cancelled (dag_walk_cancel) or not_run (fail fast).
    void stop(VertexStatus reason) noexcept;
    VertexStatus stop_reason() const noexcept { return stop_.load(std::memory_order_acquire); }
    bool cancel_requested() const noexcept { return cancel_requested_.load(std::memory_order_acquire); }
    void request_cancel() noexcept;

    // A raw timestamp since the walk started: TSC ticks where the kernel
    // itself keeps its monotonic clock on the TSC (a read costs about two
    // thirds of a steady_clock read there), steady_clock nanoseconds elsewhere.
    std::int64_t now() const noexcept;
    // A raw timestamp in nanoseconds since the walk started. The first call
    // fixes the tick rate against steady_clock over the time since the walk
    // started, so convert only once the walk has finished.
    std::int64_t to_ns(std::int64_t stamp) const;
    bool timestamps() const noexcept { return timestamps_; }
    const Observer &observer() const noexcept { return observer_; }
    // True on a pool thread of this executor (inside a callback or observer).
    bool on_worker_thread() const noexcept;

    // Calls from outside the pool (complete, cancel, apply) may touch the
    // executor after the walk finished; the root waits for them before it
    // is destroyed.
    void enter() noexcept;
    void leave() noexcept;
    void join();

private:
    void worker();
    // Runs the batch in `local`; false when the worker lost its slot to a
    // pending vertex and could not get another.
    bool drain(std::vector<Slot *> &local, std::vector<Slot *> &ready);
    bool drain_batched(std::vector<Slot *> &local, std::vector<Slot *> &ready);
    // Adds finished vertices to a walk's count; the last one finishes it.
    void count_done(Walk &w, std::size_t n);
    void flush_done();
    // Runs one vertex; false when its slot went to the vertex (pending).
    // `clock`: in, a start time to record instead of reading the clock, or
    // -1; out, the end time of a vertex that finished here, or -1.
    bool run(Slot *s, std::vector<Slot *> &ready, std::int64_t &clock);
    // True when `d`, just released, waited for one vertex only, so the end
    // time of the vertex that released it can serve as its start time.
    static bool sole_waiter(const Slot &d) noexcept;
    void finish_one(Slot *s, VertexStatus status, std::unique_ptr<std::string> message,
                    std::vector<Slot *> &ready, std::vector<std::pair<Slot *, VertexStatus>> &work);
    VertexStatus skip_status(const Slot &d) const noexcept;
    std::size_t spawn_locked();
    void post_workers(std::size_t n);

    const std::size_t parallelism_;
    const std::size_t max_workers_;
    const FailurePolicy policy_;
    const bool timestamps_;
    const Observer observer_;
    const bool tsc_;
    const std::chrono::steady_clock::time_point t0_;
    const std::uint64_t tsc0_;
    mutable std::once_flag rate_once_;
    mutable double ns_per_tick_ = 1.0;

    std::mutex mu_;
    std::deque<Slot *> queue_;
    std::size_t active_ = 0;     // workers posted and not yet exited
    std::size_t in_flight_ = 0;  // slots held: by workers, and by pending vertices

    std::atomic<VertexStatus> stop_{VertexStatus::ok};
    std::atomic<bool> cancel_requested_{false};

    std::mutex calls_mu_;
    std::condition_variable calls_cv_;
    std::size_t calls_ = 0;

    boost::asio::thread_pool pool_;
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

}  // namespace dag::walk_detail
