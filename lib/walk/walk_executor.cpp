#include "walk/walk_executor.hpp"

#include <algorithm>
#include <exception>
#include <fstream>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include <boost/asio/post.hpp>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "walk/asymmetric_fence.hpp"
#include "walk/deadline_wait.hpp"
#include "graph/error.hpp"
#include "graph/utf8.hpp"
#include "walk/spinning_lock.hpp"
#include "walk/thread_name.hpp"
#include "walk/walk_pools.hpp"
#include "walk/walk_retries.hpp"
#include "walk/walker.hpp"

// The per-vertex path runs through run(), settle() and finish_one(), which
// also serve the rarer callers; inlined into the worker's loop as a whole it
// costs a quarter less (chain, 1 thread: 24 -> 18 ns per vertex).
#if defined(__GNUC__)
#define DAG_FLATTEN __attribute__((flatten))
#else
#define DAG_FLATTEN
#endif

namespace dag::walk_detail {

namespace {
// What the current thread is inside of, innermost first: user code that one
// executor calls (a callback, an observer) may call into another walk,
// whose observer may call back into the first, so a thread can be inside
// several at once, and each question is about any of them.
struct ExecutorFrame {
    const Executor *ex;
    const ExecutorFrame *outer;
};
// The executors whose pool runs the current thread, or whose observer it
// runs: to refuse a wait() that would wait for itself.
thread_local const ExecutorFrame *current_executor = nullptr;
std::atomic<std::uint64_t> next_serial{1};
// The executors whose scheduler the current thread runs in pull(): an
// observer it calls may complete or cancel, which must not wait for it.
thread_local const ExecutorFrame *current_puller = nullptr;

bool inside(const ExecutorFrame *f, const Executor *ex) noexcept {
    for (; f; f = f->outer)
        if (f->ex == ex) return true;
    return false;
}

// Puts `ex` on top of `chain` for the scope.
class InsideScope {
public:
    InsideScope(const ExecutorFrame *&chain, const Executor *ex) noexcept : chain_(chain), frame_{ex, chain} {
        chain_ = &frame_;
    }
    ~InsideScope() { chain_ = frame_.outer; }
    InsideScope(const InsideScope &) = delete;
    InsideScope &operator=(const InsideScope &) = delete;

private:
    const ExecutorFrame *&chain_;
    ExecutorFrame frame_;
};

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

// rdtscp waits for every earlier instruction, so a start time is never read
// before the claim that let the vertex run. Plain rdtsc (about 10 ns here
// against 17) may be read a few cycles before the instructions ahead of it
// finish; that can only make an end time early, so a dependent's start,
// read in order after its claim, still comes after it.
std::uint64_t read_tsc_ordered() noexcept {
#if defined(__x86_64__)
    unsigned cpu;
    return __rdtscp(&cpu);
#else
    return 0;
#endif
}

std::uint64_t read_tsc() noexcept {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return 0;
#endif
}

// A callback's failure message, copied on a pool thread, where an allocation
// failure has nobody to be reported to: the failure is kept without it. Bytes
// that are not UTF-8 are written as \xNN: messages handed out are UTF-8.
std::unique_ptr<std::string> copy_message(const char *msg) noexcept {
    try {
        return std::make_unique<std::string>(printable_utf8(msg));
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}
}  // namespace

Executor::Executor(const WalkOptions &options)
    : pull_(options.pull),
      parallelism_(options.parallelism),
      hold_ready_(!options.pull && options.parallelism == 1),
      // A pull walk's scheduler runs on one puller at a time.
      max_workers_(options.pull ? 1 : std::min(options.threads, options.parallelism)),
      policy_(options.failure),
      timestamps_(options.timestamps),
      observer_(options.observer),
      tsc_(options.timestamps && tsc_trusted()),
      asymmetric_(asymmetric_fence_available()),
      t0_(std::chrono::steady_clock::now()),
      tsc0_(tsc_ ? read_tsc_ordered() : 0),
      queue_(options.priority != Priority::none ? &Executor::rank_of : nullptr),
      solo_ranked_(options.priority != Priority::none && max_workers_ == 1 && !pull_),
      flags_(new SectionFlag[max_workers_]),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)),
      started_inside_(inside_now()) {
    free_flags_.reserve(max_workers_);
    for (std::size_t i = max_workers_; i-- > 0;) free_flags_.push_back(i);
    spare_.ready.reserve(max_workers_);
    spare_.ranks.reserve(max_workers_);
    if (pull_) return;
    // Only max_workers_ threads can ever be busy at once.
    threads_.reserve(max_workers_);
    const ThreadHooks hooks = options.thread_hooks;
    // With a start hook, the walk begins only once every thread has run it,
    // so that one which throws fails the start before any callback runs.
    // Shared: a thread may still be notifying when the wait below is over.
    struct Starts {
        std::mutex mu;
        std::condition_variable cv;
        std::size_t pending = 0;
        std::exception_ptr error;
    };
    const auto starts = std::make_shared<Starts>();
    starts->pending = max_workers_;
    try {
        while (threads_.size() < max_workers_)
            threads_.emplace_back([this, hooks, starts] {
                name_this_thread("dag-walk");
                if (hooks.start) {
                    std::exception_ptr error;
                    try {
                        hooks.start(hooks.data);
                    } catch (...) {
                        error = std::current_exception();
                    }
                    {
                        std::lock_guard<std::mutex> lk(starts->mu);
                        if (error && !starts->error) starts->error = error;
                        --starts->pending;
                    }
                    starts->cv.notify_all();
                    // Never started, so it has nothing to end.
                    if (error) return;
                }
                pool_.attach();
                if (hooks.exit) {
                    try {
                        hooks.exit(hooks.data);
                    } catch (...) {
                        // The walk has been reported by now: nobody is left to
                        // tell, and ending the thread must not end the process.
                    }
                }
            });
    } catch (...) {
        // std::system_error, or std::bad_alloc for a thread's state: the
        // started threads must be joined before they are destroyed.
        const std::size_t started = threads_.size();
        pool_.stop();
        for (std::thread &t : threads_) t.join();
        try {
            throw;
        } catch (const std::system_error &e) {
            throw Error(Errc::no_memory, "could not start the walk's " + std::to_string(max_workers_) +
                                             " threads (" + std::to_string(started) + " started): " + e.what());
        }
    }
    if (!hooks.start) return;
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lk(starts->mu);
        starts->cv.wait(lk, [&] { return starts->pending == 0; });
        error = starts->error;
    }
    if (!error) return;
    pool_.stop();
    for (std::thread &t : threads_) t.join();
    std::rethrow_exception(error);
}

std::int64_t Executor::now() const noexcept {
    if (tsc_) return static_cast<std::int64_t>(read_tsc() - tsc0_);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count();
}

std::int64_t Executor::now_ordered() const noexcept {
    if (tsc_) return static_cast<std::int64_t>(read_tsc_ordered() - tsc0_);
    return now();
}

double Executor::ns_per_tick() const {
    std::call_once(rate_once_, [&] {
        const std::int64_t ticks = now_ordered();
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_);
        if (ticks > 0) ns_per_tick_ = static_cast<double>(ns.count()) / static_cast<double>(ticks);
    });
    return ns_per_tick_;
}

Executor::~Executor() {
    join();
    // Its timer thread calls retry_due(): gone before the rest.
    retries_.reset();
}

void Executor::set_pools(std::unique_ptr<Pools> pools) { pools_ = std::move(pools); }

void Executor::set_rank_count(std::size_t n) {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.set_rank_count(n, solo_ranked_, spare_.ranked);
    if (solo_ranked_) solo_ = RankedSlots<Slot>::reuse_or_make(spare_.ranked, n);
}

namespace {

// Within the room reserved (a walk with fewer workers keeps fewer), the last
// ones: give_back_list() keeps the longest there.
template <class T>
void adopt_lists(std::vector<std::vector<T>> &spare, std::vector<std::vector<T>> &lists, std::size_t room) noexcept {
    const std::size_t skip = lists.size() > room ? lists.size() - room : 0;
    for (std::size_t i = skip; i < lists.size(); ++i) spare.push_back(std::move(lists[i]));
}

// The next worker run takes spare.back(): the longest of the lists given
// back last, so that the run releasing most again finds its room.
template <class T>
void give_back_list(std::vector<std::vector<T>> &spare, std::vector<T> &list) noexcept {
    list.clear();
    spare.push_back(std::move(list));
    const std::size_t n = spare.size();
    if (n > 1 && spare[n - 2].capacity() > spare[n - 1].capacity()) spare[n - 2].swap(spare[n - 1]);
}

template <class T>
void take_list(std::vector<std::vector<T>> &spare, std::vector<T> &list) noexcept {
    if (spare.empty()) return;
    list.swap(spare.back());
    spare.pop_back();
}

}  // namespace

void Executor::adopt_buffers(ExecutorBuffers &&buffers) noexcept {
    adopt_lists(spare_.ready, buffers.ready, max_workers_);
    adopt_lists(spare_.ranks, buffers.ranks, max_workers_);
    queue_.adopt(std::move(buffers.ring));
    spare_.ranked = std::move(buffers.ranked);
}

ExecutorBuffers Executor::release_buffers() noexcept {
    ExecutorBuffers buffers = std::move(spare_);
    queue_.release(buffers.ring, buffers.ranked);
    if (solo_ && solo_->empty()) buffers.ranked = std::move(solo_);
    return buffers;
}

std::uint32_t Executor::rank_of(const Slot *s) noexcept { return s->walk->rank_of(*s); }

void Executor::release_pools(const Slot *s, std::vector<Slot *> &ready) {
    if (pools_) pools_->release(s, ready);
}

void Executor::free_pools(const Slot *s, std::vector<Slot *> &ready, std::uint32_t *kept) {
    const std::size_t had = ready.size();
    pools_->release(s, ready, kept);
    // Vertices handed its slots hold them: queued now, not after the vertex
    // this worker runs next, for which the slots would idle.
    if (ready.size() != had) push_nonempty(ready);
}

void Executor::set_retries(std::unique_ptr<Retries> retries) { retries_ = std::move(retries); }

bool Executor::retry(Slot *s, const std::string *message, std::vector<Slot *> &ready) {
    const Word word = s->word.load(std::memory_order_acquire);
    // A sub-walk's failures are not tried again by its parent vertex, nor is
    // anything once the walk is stopping.
    if (phase_of(word) == Phase::expanded || stop_reason() != VertexStatus::ok) return false;
    std::chrono::nanoseconds delay{0};
    if (!retries_->failed(s, message, delay)) return false;
    if (pools_) free_pools(s, ready, nullptr);
    // It counted as running since its start event; the next attempt starts
    // again.
    if (observer_.call) s->walk->running_.fetch_sub(1, std::memory_order_acq_rel);
    // Waiting again, but it has run: the ran bit keeps an update from
    // removing it or making it wait (walk_update.cpp, hold_back), as it
    // would a vertex that never started.
    if (delay.count() == 0) {
        s->word.store(with_phase(word, Phase::waiting) | ran_bit, std::memory_order_release);
        ready.push_back(s);
        return true;
    }
    // Marked before the timer can see it: retry_due() moves it on from here.
    s->word.store(with_phase(word, Phase::retrying) | ran_bit, std::memory_order_release);
    if (!retries_->schedule(s, delay)) {
        // A pull walk stopped meanwhile: due now, settled by this thread's
        // caller as the stop's other retries are.
        s->word.store(with_phase(word, Phase::waiting) | ran_bit, std::memory_order_release);
        ready.push_back(s);
    }
    return true;
}

void Executor::retry_due(Slot *s) {
    CallScope scope(*this);
    std::vector<Slot *> ready{s};
    {
        Section sec(*this);
        s->word.store(with_phase(s->word.load(std::memory_order_acquire), Phase::waiting), std::memory_order_release);
    }
    // A stop is settled by the thread that stopped the walk (a pull walk's
    // retries wait for it there, queue_flushed_retries) or by the workers.
    push(ready);
}

void Executor::queue_flushed_retries() {
    if (!retries_) return;
    std::vector<Slot *> due;
    retries_->take_flushed(due);
    if (due.empty()) return;
    {
        Section sec(*this);
        for (Slot *s : due)
            s->word.store(with_phase(s->word.load(std::memory_order_acquire), Phase::waiting),
                          std::memory_order_release);
    }
    push(due);
}

void Executor::join() {
    {
        std::unique_lock<std::mutex> lk(calls_mu_);
        calls_cv_.wait(lk, [&] { return calls_ == 0; });
    }
    if (joined_) return;
    joined_ = true;
    // Ends the work the pool was started with: its threads return from
    // attach() once every posted worker has run.
    pool_.wait();
    for (std::thread &t : threads_) t.join();
}

void Executor::enter() noexcept {
    std::lock_guard<std::mutex> lk(calls_mu_);
    ++calls_;
}

void Executor::leave() noexcept {
    std::lock_guard<std::mutex> lk(calls_mu_);
    if (--calls_ == 0) calls_cv_.notify_all();
}

std::vector<std::uint64_t> Executor::inside_now() {
    std::vector<std::uint64_t> serials;
    for (const ExecutorFrame *f = current_executor; f; f = f->outer) {
        serials.push_back(f->ex->serial_);
        serials.insert(serials.end(), f->ex->started_inside_.begin(), f->ex->started_inside_.end());
    }
    return serials;
}

bool Executor::inside_own_call() const noexcept {
    for (const ExecutorFrame *f = current_executor; f; f = f->outer)
        if (f->ex == this) return true;
    return false;
}

bool Executor::calling_back() const noexcept {
    // The frames' executors are alive: their calls are on this thread's stack.
    for (const ExecutorFrame *f = current_executor; f; f = f->outer)
        if (f->ex == this || std::find(f->ex->started_inside_.begin(), f->ex->started_inside_.end(), serial_) !=
                                 f->ex->started_inside_.end())
            return true;
    return false;
}

bool Executor::calling_back_any() noexcept { return current_executor != nullptr; }

std::size_t Executor::observe(Walk &w, Event event, VertexId id, VertexStatus status, int running_delta,
                              bool finishes) {
    struct Held {
        const Observer &o;
        explicit Held(const Observer &observer) : o(observer) {
            if (o.hold) o.hold(o.context, true);
        }
        ~Held() {
            if (o.hold) o.hold(o.context, false);
        }
    } held(observer_);
    EventCounts c;
    {
        std::lock_guard<std::mutex> lk(event_mu_);
        if (running_delta > 0)
            c.running = w.running_.fetch_add(1, std::memory_order_acq_rel) + 1;
        else if (running_delta < 0)
            c.running = w.running_.fetch_sub(1, std::memory_order_acq_rel) - 1;
        else
            c.running = w.running_.load(std::memory_order_acquire);
        c.done = finishes ? w.done_.fetch_add(1, std::memory_order_acq_rel) + 1 : w.done_.load(std::memory_order_acquire);
        c.total = w.total_.load(std::memory_order_acquire);
        c.sequence = ++sequence_;
    }
    const InsideScope observing(current_executor, this);
    observer_.call(observer_.context, w, event, id, status, c);
    return c.done;
}

Section::Section(Executor &ex) : ex_(ex) { enter(); }

Section::~Section() {
    if (inside_) leave();
}

void Executor::enter_slowly(SectionFlag *flag) {
    for (;;) {
        if (!flag) {
            // Outside callers are rare: a locked add is a full fence on its own.
            outside_inside_.fetch_add(1, std::memory_order_seq_cst);
            if (!quiescing_.load(std::memory_order_seq_cst)) return;
            outside_inside_.fetch_sub(1, std::memory_order_release);
        } else if (asymmetric_) {
            flag->inside.store(true, std::memory_order_relaxed);
            light_fence();
            if (!quiescing_.load(std::memory_order_acquire)) return;
            flag->inside.store(false, std::memory_order_release);
        } else {
            flag->inside.store(true, std::memory_order_seq_cst);
            if (!quiescing_.load(std::memory_order_seq_cst)) return;
            flag->inside.store(false, std::memory_order_release);
        }
        wait_resumed();
    }
}

void Section::count_done_slowly(Walk &w) {
    if (!flag_) {
        ex_.count_done(*this, w, 1);
        return;
    }
    if (batch_walk_ != &w || batch_count_ >= max_done_batch) {
        flush_done();
        batch_walk_ = &w;
    }
    ++batch_count_;
}

void Section::flush_done() {
    // Finishing a sub-walk finishes its parent vertex, which may batch again.
    while (batch_count_) {
        Walk *w = batch_walk_;
        std::size_t n = batch_count_;
        batch_walk_ = nullptr;
        batch_count_ = 0;
        ex_.count_done(*this, *w, n);
    }
}

void Executor::quiesce() {
    quiesce_mu_.lock();
    quiescing_.store(true, std::memory_order_seq_cst);
    if (asymmetric_) heavy_fence();
    for (std::size_t i = 0; i < max_workers_; ++i)
        while (flags_[i].inside.load(std::memory_order_seq_cst)) std::this_thread::yield();
    while (outside_inside_.load(std::memory_order_seq_cst)) std::this_thread::yield();
}

void Executor::resume() noexcept {
    quiescing_.store(false, std::memory_order_release);
    quiesce_mu_.unlock();
}

void Executor::wait_resumed() const noexcept {
    while (quiescing_.load(std::memory_order_acquire)) std::this_thread::yield();
}

void Executor::stop(VertexStatus reason) noexcept { stop_with(static_cast<std::uint8_t>(reason)); }

void Executor::request_cancel() noexcept {
    stop_with(static_cast<std::uint8_t>(VertexStatus::cancelled) | cancel_bit);
}

void Executor::stop_with(std::uint8_t word) noexcept {
    std::uint8_t now = stop_.load(std::memory_order_seq_cst);
    for (;;) {
        // First reason wins; a cancel is recorded whatever the reason.
        const std::uint8_t reason = now & ~cancel_bit;
        const std::uint8_t next =
            (reason == static_cast<std::uint8_t>(VertexStatus::ok) ? word & ~cancel_bit : reason) |
            ((now | word) & cancel_bit);
        if (next == now || stop_.compare_exchange_weak(now, next, std::memory_order_seq_cst)) break;
    }
    // Vertices waiting out a back-off are not tried again: due now.
    if (retries_) retries_->flush();
}

bool Executor::claim(Slot *s) noexcept {
    Word w = s->word.load(std::memory_order_acquire);
    while (phase_of(w) == Phase::waiting && count_of(w) == 0)
        if (s->word.compare_exchange_weak(w, with_phase(w, Phase::running), std::memory_order_acq_rel,
                                          std::memory_order_acquire))
            return true;
    return false;
}

bool Executor::will_skip(Word w) const noexcept {
    return ((w & dep_failed) && !(w & always)) || stop_reason() != VertexStatus::ok;
}

std::size_t Executor::spawn_locked() {
    if (pull_) {
        // The pullers are the workers.
        if (!queue_.empty() && in_flight_ < parallelism_) pull_cv_.notify_all();
        return 0;
    }
    std::size_t slots = parallelism_ > in_flight_ ? parallelism_ - in_flight_ : 0;
    std::size_t n = std::min({slots, max_workers_ - active_, queue_.size()});
    active_ += n;
    return n;
}

void Executor::post_workers(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        try {
            boost::asio::post(pool_, [this] { worker(); });
        } catch (const std::bad_alloc &) {
            // The vertices stay queued, for a worker still running or the
            // next push to take: failing here would lose them.
            std::lock_guard<std::mutex> lk(mu_);
            active_ -= n - i;
            return;
        }
    }
}

void Executor::reserve_queue(std::size_t n) {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.reserve_more(n);
}

void Executor::push_nonempty(std::vector<Slot *> &ready) {
    std::size_t n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.push_back(ready.begin(), ready.end());
        n = spawn_locked();
    }
    ready.clear();
    post_workers(n);
}

void Executor::launch(std::vector<Slot *> &ready) {
    if (ready.empty()) return;
    std::size_t n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.push_back(ready.begin(), ready.end());
        n = spawn_locked();
    }
    if (n > 0) {
        try {
            boost::asio::post(pool_, [this] { worker(); });
        } catch (const std::bad_alloc &) {
            std::lock_guard<std::mutex> lk(mu_);
            active_ -= n;
            queue_.pop_front_reversed(ready.data(), ready.size());
            throw;
        }
    }
    ready.clear();
    if (n > 1) post_workers(n - 1);
}

void Executor::read_ranks(Section &sec, const std::vector<Slot *> &ready) {
    std::vector<std::uint32_t> &ranks = sec.ready_ranks();
    ranks.resize(ready.size());
    for (std::size_t i = 0; i < ready.size(); ++i) ranks[i] = rank_of(ready[i]);
}

void Executor::push_ranked(Section &sec, std::vector<Slot *> &ready) {
    if (pull_) return push_nonempty(ready);
    read_ranks(sec, ready);
    std::size_t n;
    {
        lock_spinning(mu_);
        std::lock_guard<std::mutex> lk(mu_, std::adopt_lock);
        queue_.push_back_ranked(ready.begin(), ready.end(), sec.ready_ranks().data());
        n = spawn_locked();
    }
    ready.clear();
    post_workers(n);
}

void Executor::release_slot(std::vector<Slot *> &ready) {
    std::size_t n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.push_back(ready.begin(), ready.end());
        --in_flight_;
        n = spawn_locked();
    }
    ready.clear();
    post_workers(n);
}

void Executor::worker() {
    const InsideScope working(current_executor, this);
    std::vector<Slot *> local, ready;
    std::unique_lock<std::mutex> lk(mu_);
    // spawn_locked() never runs more workers than there are flags.
    const std::size_t flag = free_flags_.back();
    free_flags_.pop_back();
    Section sec(*this, flags_[flag]);
    take_list(spare_.ready, ready);
    take_list(spare_.ranks, sec.ready_ranks());
    while (!queue_.empty() && in_flight_ < parallelism_) {
        ++in_flight_;
        std::size_t take =
            queue_.ranked() ? ranked_take(sec.ranked_batch()) : std::clamp<std::size_t>(queue_.size() / (2 * max_workers_), 1, max_batch);
        // The batch runs from the back of `local`; keep queue order.
        local.resize(take);
        queue_.pop_front_reversed(local.data(), take);
        lk.unlock();
        bool holding = drain(sec, local, ready);
        lk.lock();
        if (holding) --in_flight_;
    }
    give_back_list(spare_.ready, ready);
    give_back_list(spare_.ranks, sec.ready_ranks());
    free_flags_.push_back(flag);
    --active_;
}

void Executor::pull(std::vector<ReadyVertex> &out, std::size_t capacity,
                    std::optional<std::chrono::steady_clock::time_point> deadline) {
    std::unique_lock<std::mutex> lk(mu_);
    const auto can_go = [&] { return pulls_ended_ || (!pulling_ && !queue_.empty() && in_flight_ < parallelism_); };
    for (;;) {
        if (capacity == 0) {
            // Settling only (settle_stopped), which a cancel does and which
            // must not wait (the puller's turn includes its observer calls,
            // which may wait for the cancelling thread): a puller in its
            // turn settles what is queued itself, since it reads the stop
            // again under this lock after each batch.
            if (!can_go()) return;
        } else if (!deadline) {
            pull_cv_.wait(lk, can_go);
        } else if (!can_go() && !wait_until(pull_cv_, lk, *deadline, can_go)) {
            return;
        }
        if (pulls_ended_) return;
        pulling_ = true;
        pull_out_ = &out;
        struct Turn {
            Executor &ex;
            std::unique_lock<std::mutex> &lk;
            ~Turn() {
                if (!lk.owns_lock()) lk.lock();
                ex.pull_out_ = nullptr;
                ex.pulling_ = false;
                ex.pull_cv_.notify_all();
            }
        } turn{*this, lk};
        // Only the puller whose turn it is uses them.
        std::vector<Slot *> &local = pull_local_, &ready = pull_ready_;
        const InsideScope pulling(current_puller, this);
        Section sec(*this, flags_[0]);
        // A stopping walk hands nothing out: what is queued is only settled,
        // however little room the caller has.
        const auto room = [&] { return stop_reason() != VertexStatus::ok ? queue_.size() : capacity - out.size(); };
        for (;;) {
            while (!queue_.empty() && in_flight_ < parallelism_ && room() > 0) {
                ++in_flight_;
                // No more than the free slots can start: the rest would go
                // back to the queue's front one by one, and at parallelism 1
                // a pull of one vertex would move up to `capacity` entries
                // twice. Stale entries start nothing; the loop then takes
                // again.
                const std::size_t slots =
                    stop_reason() != VertexStatus::ok ? queue_.size() : parallelism_ - in_flight_ + 1;
                const std::size_t take = std::min({queue_.size(), room(), slots});
                local.resize(take);
                queue_.pop_front_reversed(local.data(), take);
                lk.unlock();
                const bool holding = drain(sec, local, ready);
                lk.lock();
                if (holding) --in_flight_;
            }
            // Stopped during this turn (by its observer, or fail fast): the
            // retries waiting out a back-off are settled in this turn too,
            // once queued (without the lock, which a retry being queued
            // takes). Not in a new turn: that would wait for a slot, which
            // what this turn handed out may hold, and keep it from the host.
            if (stop_reason() == VertexStatus::ok || !retries_ || !retries_->holds_flushed()) break;
            lk.unlock();
            queue_flushed_retries();
            lk.lock();
        }
        // Only stale entries and skipped vertices: wait for real work.
        if (!out.empty() || capacity == 0) return;
    }
}

void Executor::settle_stopped() {
    // On the puller's own thread (its observer), the puller's loop settles.
    if (pull_ && stop_reason() != VertexStatus::ok && !inside(current_puller, this)) {
        queue_flushed_retries();
        std::vector<ReadyVertex> none;
        pull(none, 0, std::nullopt);
    }
}

bool Executor::pulling_here() const noexcept { return inside(current_puller, this); }

void Executor::end_pulls() {
    std::lock_guard<std::mutex> lk(mu_);
    pulls_ended_ = true;
    pull_cv_.notify_all();
}

void Executor::count_done(Section &sec, Walk &w, std::size_t n) {
    std::size_t done = w.done_.fetch_add(n, std::memory_order_acq_rel) + n;
    if (done == w.total_.load(std::memory_order_acquire)) w.maybe_finish(&sec);
}

DAG_FLATTEN bool Executor::drain(Section &sec, std::vector<Slot *> &local, std::vector<Slot *> &ready) {
    sec.enter();
    struct Exit {
        Section &sec;
        ~Exit() {
            if (sec.inside()) sec.leave();
        }
    } exit{sec};
    // One clock read per vertex where possible: a start time may be an end
    // time already read, when everything the vertex waited for had finished
    // by then. `clock` is such a time for `next` (start_after); `batch_clock`
    // for the rest of `local`, whose vertices were ready when the batch was
    // taken: any end read in order after that will do.
    std::int64_t clock = -1, batch_clock = -1;
    Slot *next = nullptr;
    while (next || !local.empty() || (solo_ && !solo_->empty())) {
        Slot *s = next;
        next = nullptr;
        if (!s && local.empty()) {
            // Only solo_ holds work (a ranked walk's one worker), and
            // something queued outranked it as the last vertex ended.
            if (!(s = take_solo(false))) {
                exchange_best(sec, ready, local);
                clock = batch_clock = -1;
                // The hint was stale: nothing was queued after all.
                if (local.empty()) next = take_solo(true);
                continue;
            }
            clock = -1;
        } else if (!s) {
            s = local.back();
            local.pop_back();
            // An update may have made it wait for a vertex that ended after
            // batch_clock, and released it since: then read the clock.
            clock = s->walk->updated_.load(std::memory_order_acquire) ? -1 : batch_clock;
            if (!claim(s)) continue;  // stale queue entry: started, removed or held back by an update
        }
        const bool order_end = !local.empty();
        if (run(sec, s, ready, clock, next, order_end)) {
            if (order_end && clock >= 0) batch_clock = clock;
            // The first waiter released runs next on this worker (a chain
            // never leaves it nor touches the queue lock; it is the first
            // dependent connected, which for a grid built row by row is the
            // next cell of the row, walked through adjacent slots); the
            // others go to the queue. With one slot nobody else can take
            // them before this worker would, so they wait here until it
            // needs the queue: the queue's order is what it would have been,
            // for one lock instead of one per vertex (a binary tree releases
            // two waiters each time). With more slots they wait here too,
            // up to a batch, while the queue holds enough for every other
            // worker: nobody starves for them, and the lock is taken once a
            // batch instead of once a vertex.
            if (solo_ranked_) {
                // As below, with the queue's part kept here: the released
                // vertices wait in solo_, and the lock is taken only when
                // something queued (from another thread) outranks them all.
                const bool wanted = !next && local.empty();
                if (Slot *best = keep_solo(ready, wanted))
                    next = best;
                else if (wanted)
                    next = take_solo(false);
                else if (next && !keeps_turn(next, local))
                    next = nullptr;
            } else if (queue_.ranked()) {
                // Several workers: the best-ranked vertex it released runs
                // here when nothing queued outranks it, so a chain, or a
                // tree's best branch, takes no lock. (A pull walk's pullers
                // take every vertex from the queue.)
                if (!next && !pull_ && !ready.empty() && local.empty()) next = take_best(ready);
                if (!next && !pull_ && local.empty()) {
                    // Whatever comes next comes from the queue: one lock
                    // hands it the released vertices and takes the best.
                    exchange_best(sec, ready, local);
                    clock = batch_clock = -1;
                    continue;
                }
                // With one worker the rest are queued at once, so that the
                // next choice sees them; with more, they wait here like an
                // unranked walk's while the others have enough.
                if (!ready.empty() && (max_workers_ == 1 || ready.size() >= max_batch ||
                                       queue_.size_hint() < 2 * max_workers_))
                    push_ranked(sec, ready);
            } else if (!hold_ready_ && !ready.empty() &&
                       (ready.size() >= max_batch || queue_.size_hint() < 2 * max_workers_)) {
                push_nonempty(ready);
            }
            if (next && clock >= 0) clock = start_after(*s, *next, clock);
            continue;
        }
        clock = -1;
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (in_flight_ < parallelism_) {
                ++in_flight_;
                continue;
            }
            if (solo_)
                while (!solo_->empty()) ready.push_back(solo_->pop());
            queue_.push_back(ready.begin(), ready.end());
            ready.clear();
            queue_.push_front(local.rbegin(), local.rend());
            local.clear();
        }
        leave_queue_work(sec, ready);
        return false;
    }
    push(ready);
    leave_queue_work(sec, ready);
    return true;
}

void Executor::leave_queue_work(Section &sec, std::vector<Slot *> &ready) {
    // Outside the lock: finishing a sub-walk here settles its parent vertex,
    // which queues what that releases (taking the lock) and may free the
    // parent's pool slots into the kept one, given back after.
    sec.flush_done();
    if (pools_)
        if (std::uint32_t *kept = sec.kept_pool_slot()) pools_->give_back(*kept, ready);
    push(ready);
}

void Executor::exchange_best(Section &sec, std::vector<Slot *> &ready, std::vector<Slot *> &local) {
    RankedBatch &batch = sec.ranked_batch();
    if (max_workers_ > 1) batch.taken(std::chrono::steady_clock::now());
    read_ranks(sec, ready);
    std::size_t n;
    {
        lock_spinning(mu_);
        std::lock_guard<std::mutex> lk(mu_, std::adopt_lock);
        queue_.push_back_ranked(ready.begin(), ready.end(), sec.ready_ranks().data());
        local.resize(ranked_take(batch));
        queue_.pop_front_reversed(local.data(), local.size());
        n = spawn_locked();
    }
    ready.clear();
    post_workers(n);
}

Slot *Executor::keep_solo(std::vector<Slot *> &ready, bool take) {
    // The best of `ready` is set aside while the rest go to solo_: a chain's
    // next vertex, or a row's next cell in name order, then never passes
    // through it.
    Slot *best = nullptr;
    std::uint32_t best_rank = RankedSlots<Slot>::none;
    auto unranked = ready.begin();
    for (Slot *s : ready) {
        const std::uint32_t r = rank_of(s);
        if (!queue_.has_rank(r)) {
            *unranked++ = s;
        } else if (take && r < best_rank) {
            if (best) solo_->push(best_rank, best);
            best = s;
            best_rank = r;
        } else {
            solo_->push(r, s);
        }
    }
    ready.erase(unranked, ready.end());
    push(ready);
    if (!best) return nullptr;
    // Another thread may queue a better one meanwhile, racing as it would
    // with a pop.
    if (best_rank < solo_->min_rank() && best_rank < queue_.best_hint()) return claim(best) ? best : nullptr;
    solo_->push(best_rank, best);
    return nullptr;
}

bool Executor::keeps_turn(Slot *next, const std::vector<Slot *> &local) {
    const std::uint32_t rank = rank_of(next);
    if (local.empty() && rank < solo_->min_rank() && rank < queue_.best_hint()) return true;
    // Given back: it waits for its turn as if never claimed. A host that
    // completes or expands it meanwhile, from another thread, before it
    // started (a misuse), finds it started, as in a walk without a
    // priority, and it runs next as there.
    Word word = next->word.load(std::memory_order_relaxed);
    if (phase_of(word) != Phase::running ||
        !next->word.compare_exchange_strong(word, with_phase(word, Phase::waiting), std::memory_order_acq_rel,
                                            std::memory_order_relaxed))
        return true;
    solo_->push(rank, next);
    return false;
}

Slot *Executor::take_solo(bool anyway) noexcept {
    while (!solo_->empty()) {
        // Another thread may queue a better one meanwhile, racing as it
        // would with a pop.
        if (!anyway && solo_->min_rank() >= queue_.best_hint()) return nullptr;
        Slot *s = solo_->pop();
        if (claim(s)) return s;  // else a stale entry: started, removed or held back by an update
    }
    return nullptr;
}

std::size_t Executor::ranked_take(const RankedBatch &batch) const noexcept {
    // One with one worker: the next choice must see what this one
    // releases. With several, the order is their race anyway, and each
    // takes up to its share of the queue: a grid's anti-diagonal is then
    // split in as many runs as there are workers, not cut in small batches
    // they trade (with the larger batches of RankedBatch::most, 15-25%
    // faster at 2 threads, bench/README.md).
    const std::size_t size = queue_.size();
    if (max_workers_ == 1) return std::min<std::size_t>(size, 1);
    return std::min(size, std::clamp<std::size_t>(size / max_workers_, 1, batch.size()));
}

Slot *Executor::take_best(std::vector<Slot *> &ready) noexcept {
    auto best = ready.begin();
    std::uint32_t rank = rank_of(*best);
    for (auto it = best + 1; it != ready.end(); ++it)
        if (const std::uint32_t r = rank_of(*it); r < rank) {
            best = it;
            rank = r;
        }
    // The queue's other workers may change its best meanwhile; with one
    // slot only an outside completion or update can, racing as it would
    // with a pop.
    if (rank >= queue_.best_hint() || !claim(*best)) return nullptr;
    Slot *s = *best;
    // Erased rather than swapped: unranked vertices keep their order.
    ready.erase(best);
    return s;
}

std::int64_t Executor::start_after(const Slot &s, const Slot &d, std::int64_t end) noexcept {
    const Walk &w = *d.walk;
    if (w.updated_.load(std::memory_order_acquire)) return -1;
    if (d.word.load(std::memory_order_relaxed) & sole) return end;
    // Reading the other dependencies' end times pays where they are likely
    // still cached: in a graph whose edges join neighbouring indices (a
    // grid's next cell), not a random one, where each is a cache miss dearer
    // than the clock read it saves.
    const Snapshot::Index i = w.index_of(d), from = w.index_of(s);
    if (i == Snapshot::npos || from == Snapshot::npos || i - from + 1 > 2) return -1;
    // Each of them published its end time before the release that led to
    // this claim.
    for (auto p = w.waited_begin(i), e = w.waited_end(i); p != e; ++p) end = std::max(end, w.times(w.slot_at(*p)).end_ns);
    return end;
}

bool Executor::run(Section &sec, Slot *s, std::vector<Slot *> &ready, std::int64_t &clock, Slot *&next,
                   bool order_end) {
    const std::int64_t given = clock;
    clock = -1;
    Walk &w = *s->walk;
    Word word = s->word.load(std::memory_order_relaxed);
    if ((word & dep_failed) && !(word & always)) {
        settle(sec, s, VertexStatus::upstream_failed, false, nullptr, ready, &next);
        return true;
    }
    // A stopped walk (fail fast, cancel) starts nothing: the vertex is
    // settled instead, and one that failed and was to be tried again ends
    // failed.
    const auto settled_stopped = [&] {
        const VertexStatus reason = stop_reason();
        if (reason == VertexStatus::ok) return false;
        if (retries_)
            if (std::optional<std::string> last = retries_->take_waiting(s)) {
                // retry() counted it out of the running when it failed.
                settle(sec, s, VertexStatus::failed, true, std::make_unique<std::string>(std::move(*last)), ready, &next,
                       false);
                return true;
            }
        settle(sec, s, reason, false, nullptr, ready, &next);
        return true;
    };
    if (settled_stopped()) return true;
    // Parked until its pools have room: the worker goes on with its slot.
    if (pools_) {
        const std::size_t had = ready.size();
        const bool may_start = pools_->acquire(s, sec.kept_pool_slot(), ready);
        // Vertices handed the slot it gave back hold it: queued now, not
        // after this vertex's callback.
        if (ready.size() != had) push_nonempty(ready);
        if (!may_start) return true;
        // Again once it holds its slots: a vertex that fails stops the walk
        // before it frees them (finish_one), so one that took a slot it freed
        // sees the stop here, though the check above came before it. Settling
        // frees the slots.
        if (settled_stopped()) return true;
    }
    const VertexId id = w.id_of(*s);
    const std::int64_t start = timestamps_ ? (given >= 0 ? given : now_ordered()) : 0;
    // The callback and the observer run outside the section: they may take
    // long, and may apply updates.
    sec.leave();
    if (observer_.call) observe(w, Event::started, id, VertexStatus::not_run, +1, false);
    if (timestamps_) w.times(*s).start_ns = start;
    const char *msg = nullptr;
    Outcome outcome;
    if (pull_) {
        // Room was made for it (pull()); the vertex waits for its host.
        pull_out_->push_back(ReadyVertex{w.tag(), id});
        outcome = Outcome::pending;
    } else {
        outcome = w.visitor_.call(w.visitor_.context, w, id, &msg);
    }
    const std::int64_t end = timestamps_ ? (order_end ? now_ordered() : now()) : 0;
    // Copied before entering: entering may wait for an update to finish.
    // Only a failure keeps a message (the header says OK ignores it; a
    // pending vertex gets its message when it completes).
    std::unique_ptr<std::string> message;
    if (msg && outcome == Outcome::failed) message = copy_message(msg);
    if (timestamps_) w.times(*s).end_ns = end;
    sec.enter();

    word = s->word.load(std::memory_order_acquire);
    if (phase_of(word) == Phase::expanded) {
        // Its callback has returned and its slot goes back: it no longer
        // counts as running (finish_one does not count it out again).
        if (observer_.call) w.running_.fetch_sub(1, std::memory_order_acq_rel);
        w.start_expansion(sec, s);
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
            // A pull walk's vertex is handed out by now, to be completed
            // by its host whatever a cancel says, unless the walk was freed
            // from its observer and has no host left (abandon()).
            if ((pull_ && !abandoned_.load(std::memory_order_seq_cst)) || !cancel_requested()) return false;
            word = s->word.load(std::memory_order_seq_cst);
            bool reclaimed = false;
            while (phase_of(word) == Phase::pending && !reclaimed)
                reclaimed = s->word.compare_exchange_weak(word, with_phase(word, Phase::finishing));
            if (!reclaimed) return false;  // cancel or dag_walk_complete got it first
            w.note_cancelled_pending(*s);
            if (timestamps_) w.times(*s).end_ns = now();
            settle(sec, s, VertexStatus::cancelled, true, std::make_unique<std::string>("cancelled while pending"),
                   ready, &next);
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
        settle(sec, s, status_after(early.first), true,
               early.second.empty() ? nullptr : std::make_unique<std::string>(std::move(early.second)), ready, &next);
        return true;
    }
    settle(sec, s, status_after(outcome), true, std::move(message), ready,
           &next);
    if (timestamps_) clock = end;
    return true;
}

void Executor::settle(Section &sec, Slot *s, VertexStatus status, bool ran, std::unique_ptr<std::string> message,
                      std::vector<Slot *> &ready, Slot **next, bool running) {
    // Ranked with several workers, what it releases waits its turn in the
    // queue. With one, the first waiter released is claimed as in an
    // unranked walk, for no atomic read-modify-write (a chain's next link),
    // and drain() hands it back if something outranks it.
    if (queue_.ranked() && !solo_ranked_) next = nullptr;
    if (retries_ && ran) {
        if (status == VertexStatus::failed && retry(s, message.get(), ready)) return;
        retries_->finished(s, message.get());
    }
    // Waiters claimed for skipping, finished in turn.
    std::vector<Slot *> skips;
    finish_one(sec, s, status, ran, std::move(message), ready, skips, next, running);
    // Iterative, so skipping a 10^6 chain after its first vertex failed does
    // not recurse.
    while (!skips.empty()) {
        Slot *d = skips.back();
        skips.pop_back();
        finish_one(sec, d, skip_status(*d), false, nullptr, ready, skips, next);
    }
}

void Executor::release_waiter(Slot *d, bool ok, std::vector<Slot *> &ready, std::vector<Slot *> &skips) {
    if (!ok) d->word.fetch_or(dep_failed, std::memory_order_acq_rel);
    Word prev = d->word.fetch_sub(1, std::memory_order_acq_rel);
    if (count_of(prev) == 1) became_ready(d, prev - 1, ready, skips);
}

void Executor::became_ready(Slot *d, Word word, std::vector<Slot *> &ready, std::vector<Slot *> &skips) {
    if (phase_of(word) != Phase::waiting) return;
    if (!will_skip(word)) {
        d->walk->prefetch_for_run(*d);
        ready.push_back(d);
    } else if (claim(d)) {
        skips.push_back(d);
    }
}

VertexStatus Executor::skip_status(const Slot &d) const noexcept {
    Word w = d.word.load(std::memory_order_acquire);
    return (w & dep_failed) && !(w & always) ? VertexStatus::upstream_failed : stop_reason();
}

void Executor::settle_skipped(Section &sec, std::vector<Slot *> &skips, std::vector<Slot *> &ready) {
    for (Slot *d : skips) settle(sec, d, skip_status(*d), false, nullptr, ready);
    skips.clear();
}

void Executor::finish_one(Section &sec, Slot *s, VertexStatus status, bool ran, std::unique_ptr<std::string> message,
                          std::vector<Slot *> &ready, std::vector<Slot *> &skips,
                          Slot **next, bool running) {
    Walk &w = *s->walk;
    if (message) w.set_message(*s, std::move(*message));
    // Before the pool slots go: freeing them hands them to vertices waiting
    // for them, which must find the walk stopped by fail fast.
    if (status == VertexStatus::failed) {
        w.record_failure(*s);
        if (policy_ == FailurePolicy::fail_fast) stop(VertexStatus::not_run);
    }
    // An observer is user code that may take long or wait for others: no
    // slot is kept while it runs.
    if (pools_) free_pools(s, ready, observer_.call ? nullptr : sec.kept_pool_slot());
    // A store, not a read-modify-write: inside a section no update changes
    // the word, and a dag_walk_complete racing with the callback's own
    // result loses to it either way.
    const Word old = s->word.load(std::memory_order_acquire);
    s->word.store((old & ~status_mask) | phase_mask | status_bits(status) | (ran ? ran_bit : 0),
                  std::memory_order_release);
    if (phase_of(old) == Phase::completed_early) {
        std::lock_guard<std::mutex> lk(w.mu_);
        w.early_.erase(s);
    }

    // Only a failure holds its waiters back; a vertex that was cancelled or
    // never ran releases them, and the stopping walk then skips them too,
    // with the same status.
    const bool ok = status != VertexStatus::failed && status != VertexStatus::upstream_failed;
    const Word failed_bit = ok ? 0 : dep_failed;
    // The first waiter that becomes ready is claimed for the caller with the
    // same operation that releases it, where `inline_ok` allows. A ranked
    // walk's one worker claims only a waiter with a rank, a frozen one of a
    // walk with ranks: one without (a sub-walk's, an update's) keeps its
    // place among the unranked ones. Nor does it with an observer: an
    // update the observer applies, or another thread while it runs, may
    // hold back or remove a waiter it releases, and a claimed one, which
    // may yet be handed back, would refuse that as started.
    const bool claims_any = !queue_.ranked();
    auto release = [&](Slot *d, bool frozen, bool inline_ok) {
        inline_ok = inline_ok && next && !*next;
        Word dw = d->word.load(std::memory_order_acquire);
        if (frozen && (dw & sole) && count_of(dw) == 1 && phase_of(dw) == Phase::waiting) {
            // Its only releaser: nobody else writes the word now.
            const Word nw = (dw - 1) | failed_bit;
            if (inline_ok && !will_skip(nw)) {
                d->word.store(with_phase(nw, Phase::running), std::memory_order_relaxed);
                w.prefetch_for_run(*d);
                *next = d;
            } else {
                d->word.store(nw, std::memory_order_release);
                became_ready(d, nw, ready, skips);
            }
            return;
        }
        if (failed_bit) dw = d->word.fetch_or(failed_bit, std::memory_order_acq_rel) | failed_bit;
        for (;;) {
            const bool last = count_of(dw) == 1 && phase_of(dw) == Phase::waiting;
            const bool take = last && inline_ok && !will_skip(dw - 1);
            const Word nw = take ? with_phase(dw - 1, Phase::running) : dw - 1;
            if (d->word.compare_exchange_weak(dw, nw, std::memory_order_acq_rel, std::memory_order_acquire)) {
                if (take) {
                    w.prefetch_for_run(*d);
                    *next = d;
                }
                else if (count_of(dw) == 1)
                    became_ready(d, nw, ready, skips);
                return;
            }
        }
    };
    if (old & overlay) {
        std::vector<Slot *> waiters;
        w.overlay_waiters(*s, waiters);
        for (Slot *d : waiters) release(d, false, claims_any);
    } else if (const Snapshot::Index i = w.index_of(*s); i != Snapshot::npos) {
        // The frozen in-degree is exact until an update changes a count;
        // none can run while this section lasts.
        const bool frozen = !w.updated_.load(std::memory_order_acquire);
        // Every waiter's word is asked for before the first is released, so
        // their cache misses overlap instead of following one another.
        const Snapshot::Index *first = w.waiters_begin(i), *last = w.waiters_end(i);
        for (auto p = first; p != last; ++p) __builtin_prefetch(&w.slot_at(*p));
        // Running a released waiter here, depth first, pays when it is the
        // only one (a chain) or the next slot (a grid's next cell): its
        // arrays' lines are hot. Among several waiters elsewhere (a tree's
        // children, a random graph's dependents) the queue's order, about
        // that of the indices, reads the arrays in sequence where depth
        // first would miss the cache in each of them per vertex.
        const bool single = last - first == 1, claims = claims_any || (w.has_ranks() && !observer_.call);
        for (auto p = first; p != last; ++p) release(&w.slot_at(*p), frozen, claims && (single || *p == i + 1));
    }

    if (observer_.call) {
        // Exact counts for the observer: no batching.
        std::size_t done;
        {
            Section::Pause pause(sec);
            done = observe(w, ran ? Event::finished : Event::skipped, w.id_of(*s), status,
                           running && ran && phase_of(old) != Phase::expanded ? -1 : 0, true);
        }
        if (done == w.total_.load(std::memory_order_acquire)) w.maybe_finish(&sec);
    } else {
        sec.count_done(w);
    }
}

}  // namespace dag::walk_detail
