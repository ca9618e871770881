#include "walk_executor.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#include <boost/asio/post.hpp>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "error.hpp"
#include "walker.hpp"

namespace dag::walk_detail {

namespace {
// The executor whose pool runs the current thread, to refuse a wait() that
// would wait for itself.
thread_local const Executor *current_executor = nullptr;

// Finished-vertex counts a worker has not added to its walk's total yet: one
// shared atomic add per batch instead of per vertex. Only while the worker
// drains its local batch; every other caller counts at once.
struct DoneBatch {
    bool active = false;
    Walk *walk = nullptr;
    std::size_t count = 0;
};
thread_local DoneBatch done_batch;

// A worker takes this share of the queue at once: large enough that a wide
// fan-out costs one lock per batch, small enough that blocking callbacks
// still spread over every worker.
constexpr std::size_t max_batch = 64;

// The kernel picks the TSC for its monotonic clock only once it found it
// invariant and synchronised across CPUs, which is what comparing timestamps
// taken on different workers needs.
bool tsc_trusted() {
#if defined(__x86_64__)
    static const bool trusted = [] {
        std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        std::string source;
        return f >> source && source == "tsc";
    }();
    return trusted;
#else
    return false;
#endif
}

std::uint64_t read_tsc() noexcept {
#if defined(__x86_64__)
    // rdtscp waits for every earlier instruction, so a start time is never
    // read before the claim that let the vertex run.
    unsigned cpu;
    return __rdtscp(&cpu);
#else
    return 0;
#endif
}
}  // namespace

Executor::Executor(const WalkOptions &options)
    : parallelism_(options.parallelism),
      max_workers_(std::min(options.threads, options.parallelism)),
      policy_(options.failure),
      timestamps_(options.timestamps),
      observer_(options.observer),
      tsc_(options.timestamps && tsc_trusted()),
      t0_(std::chrono::steady_clock::now()),
      tsc0_(tsc_ ? read_tsc() : 0),
      pool_(options.threads) {}

std::int64_t Executor::now() const noexcept {
    if (tsc_) return static_cast<std::int64_t>(read_tsc() - tsc0_);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count();
}

std::int64_t Executor::to_ns(std::int64_t stamp) const {
    if (!tsc_) return stamp;
    std::call_once(rate_once_, [&] {
        const std::int64_t ticks = now();
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_);
        if (ticks > 0) ns_per_tick_ = static_cast<double>(ns.count()) / static_cast<double>(ticks);
    });
    return static_cast<std::int64_t>(static_cast<double>(stamp) * ns_per_tick_);
}

Executor::~Executor() { join(); }

void Executor::join() {
    {
        std::unique_lock<std::mutex> lk(calls_mu_);
        calls_cv_.wait(lk, [&] { return calls_ == 0; });
    }
    pool_.join();
}

void Executor::enter() noexcept {
    std::lock_guard<std::mutex> lk(calls_mu_);
    ++calls_;
}

void Executor::leave() noexcept {
    std::lock_guard<std::mutex> lk(calls_mu_);
    if (--calls_ == 0) calls_cv_.notify_all();
}

bool Executor::on_worker_thread() const noexcept { return current_executor == this; }

void Executor::stop(VertexStatus reason) noexcept {
    VertexStatus none = VertexStatus::ok;
    stop_.compare_exchange_strong(none, reason, std::memory_order_acq_rel);
}

void Executor::request_cancel() noexcept {
    cancel_requested_.store(true, std::memory_order_seq_cst);
    stop(VertexStatus::cancelled);
}

bool Executor::claim(Slot *s) noexcept {
    Word w = s->word.load(std::memory_order_acquire);
    while (phase_of(w) == Phase::waiting && count_of(w) == 0)
        if (s->word.compare_exchange_weak(w, with_phase(w, Phase::running), std::memory_order_acq_rel,
                                          std::memory_order_acquire))
            return true;
    return false;
}

std::size_t Executor::spawn_locked() {
    std::size_t slots = parallelism_ > in_flight_ ? parallelism_ - in_flight_ : 0;
    std::size_t n = std::min({slots, max_workers_ - active_, queue_.size()});
    active_ += n;
    return n;
}

void Executor::post_workers(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) boost::asio::post(pool_, [this] { worker(); });
}

void Executor::push(std::vector<Slot *> &ready) {
    if (ready.empty()) return;
    std::size_t n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.insert(queue_.end(), ready.begin(), ready.end());
        n = spawn_locked();
    }
    ready.clear();
    post_workers(n);
}

void Executor::release_slot() {
    std::size_t n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        --in_flight_;
        n = spawn_locked();
    }
    post_workers(n);
}

void Executor::worker() {
    current_executor = this;
    std::vector<Slot *> local, ready;
    std::unique_lock<std::mutex> lk(mu_);
    while (!queue_.empty() && in_flight_ < parallelism_) {
        ++in_flight_;
        std::size_t take = std::clamp<std::size_t>(queue_.size() / (2 * max_workers_), 1, max_batch);
        // The batch runs from the back of `local`; keep queue order.
        local.resize(take);
        for (std::size_t i = take; i-- > 0;) {
            local[i] = queue_.front();
            queue_.pop_front();
        }
        lk.unlock();
        bool holding = drain(local, ready);
        lk.lock();
        if (holding) --in_flight_;
    }
    --active_;
    current_executor = nullptr;
}

void Executor::count_done(Walk &w, std::size_t n) {
    std::size_t done = w.done_.fetch_add(n, std::memory_order_acq_rel) + n;
    if (done == w.total_.load(std::memory_order_acquire)) w.maybe_finish();
}

void Executor::flush_done() {
    // Finishing a sub-walk finishes its parent vertex, which may batch again.
    while (done_batch.count) {
        Walk *w = done_batch.walk;
        std::size_t n = done_batch.count;
        done_batch.walk = nullptr;
        done_batch.count = 0;
        count_done(*w, n);
    }
}

bool Executor::drain(std::vector<Slot *> &local, std::vector<Slot *> &ready) {
    done_batch.active = true;
    bool holding = drain_batched(local, ready);
    flush_done();
    done_batch.active = false;
    return holding;
}

bool Executor::drain_batched(std::vector<Slot *> &local, std::vector<Slot *> &ready) {
    std::int64_t clock = -1;
    while (!local.empty()) {
        Slot *s = local.back();
        local.pop_back();
        if (run(s, ready, clock)) {
            if (!ready.empty()) {
                // Run one newly ready waiter inline: a chain never leaves this
                // worker and never touches the queue lock. The first one
                // released has the lowest index, so a grid is walked along
                // its rows, through adjacent slots, instead of down its
                // columns.
                Slot *next = ready.front();
                if (clock >= 0 && !sole_waiter(*next)) clock = -1;
                local.push_back(next);
                ready.erase(ready.begin());
                push(ready);
            } else {
                clock = -1;
            }
            continue;
        }
        clock = -1;
        std::lock_guard<std::mutex> lk(mu_);
        if (in_flight_ < parallelism_) {
            ++in_flight_;
            continue;
        }
        queue_.insert(queue_.begin(), local.rbegin(), local.rend());
        local.clear();
        return false;
    }
    return true;
}

bool Executor::sole_waiter(const Slot &d) noexcept {
    const Walk &w = *d.walk;
    if (d.index >= w.snap_->size() || w.updated_.load(std::memory_order_acquire)) return false;
    return (w.reverse_ ? w.snap_->in_degree(d.index) : w.snap_->out_degree(d.index)) == 1;
}

bool Executor::run(Slot *s, std::vector<Slot *> &ready, std::int64_t &clock) {
    const std::int64_t given = clock;
    clock = -1;
    if (!claim(s)) return true;  // stale queue entry: started, removed or held back by an update
    Walk &w = *s->walk;
    Word word = s->word.load(std::memory_order_relaxed);
    if ((word & dep_failed) && !(word & always)) {
        settle(s, VertexStatus::upstream_failed, nullptr, ready);
        return true;
    }
    if (VertexStatus reason = stop_reason(); reason != VertexStatus::ok) {
        settle(s, reason, nullptr, ready);
        return true;
    }
    if (observer_.call) {
        std::size_t running = w.running_.fetch_add(1, std::memory_order_acq_rel) + 1;
        observer_.call(observer_.context, w, Event::started, s->id, VertexStatus::not_run, running,
                       w.done_.load(std::memory_order_acquire), w.total_.load(std::memory_order_acquire));
    }
    s->started = true;
    // One clock read per vertex along a chain: nothing else it waited for
    // can have ended later than the vertex that just released it here.
    if (timestamps_) w.times(*s).start_ns = given >= 0 ? given : now();
    const char *msg = nullptr;
    Outcome outcome = w.visitor_.call(w.visitor_.context, w, s->id, &msg);
    if (timestamps_) w.times(*s).end_ns = now();

    word = s->word.load(std::memory_order_acquire);
    if (phase_of(word) == Phase::expanded) {
        w.start_expansion(s);
        return true;
    }
    if (outcome == Outcome::pending) {
        bool parked = false;
        while (phase_of(word) == Phase::running && !parked)
            parked = s->word.compare_exchange_weak(word, with_phase(word, Phase::pending));
        if (parked) {
            // A cancel that scanned for pending vertices before this one
            // parked has missed it; finish it here. Both sides use seq_cst,
            // so at least one of them sees the other.
            if (!cancel_requested_.load(std::memory_order_seq_cst)) return false;
            word = s->word.load(std::memory_order_seq_cst);
            bool reclaimed = false;
            while (phase_of(word) == Phase::pending && !reclaimed)
                reclaimed = s->word.compare_exchange_weak(word, with_phase(word, Phase::running));
            if (!reclaimed) return false;  // cancel or dag_walk_complete got it first
            if (timestamps_) w.times(*s).end_ns = now();
            settle(s, VertexStatus::cancelled, std::make_unique<std::string>("cancelled while pending"), ready);
            return true;
        }
        // Completed while the callback was still running.
        std::pair<Outcome, std::string> early;
        {
            std::lock_guard<std::mutex> lk(w.mu_);
            auto it = w.early_.find(s);
            early = std::move(it->second);
            w.early_.erase(it);
        }
        if (timestamps_) w.times(*s).end_ns = now();
        settle(s, early.first == Outcome::ok ? VertexStatus::ok : VertexStatus::failed,
               early.second.empty() ? nullptr : std::make_unique<std::string>(std::move(early.second)), ready);
        return true;
    }
    settle(s, outcome == Outcome::ok ? VertexStatus::ok : VertexStatus::failed,
           msg ? std::make_unique<std::string>(msg) : nullptr, ready);
    if (timestamps_) clock = w.times(*s).end_ns;
    return true;
}

void Executor::settle(Slot *s, VertexStatus status, std::unique_ptr<std::string> message,
                      std::vector<Slot *> &ready) {
    std::vector<std::pair<Slot *, VertexStatus>> work;
    finish_one(s, status, std::move(message), ready, work);
    // Iterative, so skipping a 10^6 chain after its first vertex failed does
    // not recurse.
    while (!work.empty()) {
        auto [d, st] = work.back();
        work.pop_back();
        finish_one(d, st, nullptr, ready, work);
    }
}

void Executor::release_waiter(Slot *d, bool ok, std::vector<Slot *> &ready, std::vector<Slot *> &skips) {
    if (!ok) d->word.fetch_or(dep_failed, std::memory_order_acq_rel);
    Word prev = d->word.fetch_sub(1, std::memory_order_acq_rel);
    if (count_of(prev) == 1) became_ready(d, prev - 1, ready, skips);
}

void Executor::became_ready(Slot *d, Word word, std::vector<Slot *> &ready, std::vector<Slot *> &skips) {
    if (phase_of(word) != Phase::waiting) return;
    bool skip = ((word & dep_failed) && !(word & always)) || stop_reason() != VertexStatus::ok;
    if (!skip) {
        ready.push_back(d);
    } else if (claim(d)) {
        skips.push_back(d);
    }
}

VertexStatus Executor::skip_status(const Slot &d) const noexcept {
    Word w = d.word.load(std::memory_order_acquire);
    return (w & dep_failed) && !(w & always) ? VertexStatus::upstream_failed : stop_reason();
}

void Executor::settle_skipped(std::vector<Slot *> &skips, std::vector<Slot *> &ready) {
    for (Slot *d : skips) settle(d, skip_status(*d), nullptr, ready);
    skips.clear();
}

void Executor::finish_one(Slot *s, VertexStatus status, std::unique_ptr<std::string> message,
                          std::vector<Slot *> &ready, std::vector<std::pair<Slot *, VertexStatus>> &work) {
    Walk &w = *s->walk;
    s->status = status;
    if (message) w.set_message(*s, std::move(*message));
    if (status == VertexStatus::failed) {
        w.record_failure(*s);
        if (policy_ == FailurePolicy::fail_fast) stop(VertexStatus::not_run);
    }
    Word old = s->word.fetch_or(phase_mask, std::memory_order_acq_rel);
    if (phase_of(old) == Phase::completed_early) {
        // The callback's own result won over an earlier dag_walk_complete.
        std::lock_guard<std::mutex> lk(w.mu_);
        w.early_.erase(s);
    }

    // Only a failure holds its waiters back; a vertex that was cancelled or
    // never ran releases them, and the stopping walk then skips them too,
    // with the same status.
    const bool ok = status != VertexStatus::failed && status != VertexStatus::upstream_failed;
    std::vector<Slot *> skips;
    if (old & overlay) {
        std::vector<Slot *> waiters;
        w.overlay_waiters(*s, waiters);
        for (Slot *d : waiters) release_waiter(d, ok, ready, skips);
    } else if (s->index < w.snap_->size()) {
        for (auto p = w.waiters_begin(*s), e = w.waiters_end(*s); p != e; ++p)
            release_waiter(&w.slots_[*p], ok, ready, skips);
    }
    for (Slot *d : skips) work.emplace_back(d, skip_status(*d));

    if (observer_.call) {
        // Exact counts for the observer: no batching.
        const bool ran = s->started;
        std::size_t done = w.done_.fetch_add(1, std::memory_order_acq_rel) + 1;
        std::size_t running = ran ? w.running_.fetch_sub(1, std::memory_order_acq_rel) - 1
                                  : w.running_.load(std::memory_order_acquire);
        observer_.call(observer_.context, w, ran ? Event::finished : Event::skipped, s->id, status, running, done,
                       w.total_.load(std::memory_order_acquire));
        if (done == w.total_.load(std::memory_order_acquire)) w.maybe_finish();
    } else if (done_batch.active) {
        if (done_batch.walk != &w) {
            flush_done();
            done_batch.walk = &w;
        }
        ++done_batch.count;
    } else {
        count_done(w, 1);
    }
}

}  // namespace dag::walk_detail
