// Retries of failed vertices: a vertex whose attempt failed is tried again,
// up to its retry count, after a back-off (fixed, or doubling up to a cap),
// before it counts as failed and its dependents are skipped. The wait is a
// deadline on one timer thread, not a pool thread asleep: when it passes,
// the vertex goes back to the ready queue. Stopping the walk (cancel, fail
// fast) makes every waiting retry due at once, and a due vertex of a
// stopping walk is not tried again: it ends failed with its last message.
// A pull walk's host hears of every vertex on its own threads: there the
// retries waiting as the walk stops are handed to the thread that settles
// the stop (take_flushed) instead of to the timer thread.
//
// The executor asks only when the walk allows retries, once per failed
// attempt; a walk without them pays nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "walk/walk_state.hpp"

namespace dag::walk_detail {

class Retries {
public:
    // `due` is called on the timer thread with each vertex whose back-off
    // has passed. `counts`: per-vertex retry counts, over `policy.retries`.
    // `keep_flushed`: once flushed, waiting retries are left to
    // take_flushed() rather than made due.
    Retries(const RetryPolicy &policy, std::unordered_map<const Slot *, std::size_t> counts,
            std::function<void(Slot *)> due, bool keep_flushed);
    ~Retries();
    Retries(const Retries &) = delete;
    Retries &operator=(const Retries &) = delete;

    // `s` failed an attempt with `message` (may be null). Records it; true
    // when `s` is to be tried again, after `delay`.
    bool failed(const Slot *s, const std::string *message, std::chrono::nanoseconds &delay);
    // `s`, tried before, finished its last attempt with `message`: recorded
    // with the others. Nothing for a vertex never tried again.
    void finished(const Slot *s, const std::string *message);
    // Asked as a vertex of a stopping walk is settled instead of run: when
    // it is one that failed and waited to be tried again, its last message
    // (its record is then complete).
    std::optional<std::string> take_waiting(const Slot *s);
    // Wakes `s` once `delay` has passed. False, scheduling nothing, where
    // flushed retries are kept: `s` is then due at once, for the caller.
    bool schedule(Slot *s, std::chrono::nanoseconds delay);
    // Every scheduled retry is due now (the walk is stopping).
    void flush();
    // Once flushed, with keep_flushed: true while retries are kept or a
    // `due` call is under way.
    bool holds_flushed() const;
    // Once flushed, with keep_flushed: appends every retry kept to `out`,
    // after waiting for any `due` call under way, so that what it queues
    // is queued by then. Must not be called holding a lock `due` takes.
    void take_flushed(std::vector<Slot *> &out);
    // Each attempt's message, for a vertex tried more than once; empty
    // otherwise.
    std::vector<std::string> attempts(const Slot *s) const;
    // Every vertex tried more than once, with each attempt's message.
    std::vector<std::pair<const Slot *, std::vector<std::string>>> all() const;

private:
    struct Record {
        std::vector<std::string> messages;  // one per attempt made
        bool waiting = false;               // failed, and was to be tried again
        bool closed = false;                // no attempt follows
    };

    void run();

    const RetryPolicy policy_;
    const std::unordered_map<const Slot *, std::size_t> counts_;
    const std::function<void(Slot *)> due_;
    const bool keep_flushed_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::unordered_map<const Slot *, Record> records_;
    std::multimap<std::chrono::steady_clock::time_point, Slot *> timers_;
    bool flushing_ = false;
    bool ending_ = false;
    std::size_t due_calls_ = 0;  // `due` calls under way
    std::thread thread_;  // started with the first delayed retry
};

}  // namespace dag::walk_detail
