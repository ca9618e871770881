#include "walk/walk_retries.hpp"

#include <algorithm>
#include <utility>
#include "walk/thread_name.hpp"

namespace dag::walk_detail {

namespace {

constexpr std::chrono::nanoseconds longest_delay = std::chrono::hours(24 * 365);

}  // namespace

Retries::Retries(const RetryPolicy &policy, std::unordered_map<const Slot *, std::size_t> counts,
                 std::function<void(Slot *)> due, bool keep_flushed)
    : policy_(policy), counts_(std::move(counts)), due_(std::move(due)), keep_flushed_(keep_flushed) {}

Retries::~Retries() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        ending_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool Retries::failed(const Slot *s, const std::string *message, std::chrono::nanoseconds &delay) {
    auto c = counts_.find(s);
    const std::size_t allowed = c != counts_.end() ? c->second : policy_.retries;
    std::lock_guard<std::mutex> lk(mu_);
    if (allowed == 0 && records_.find(s) == records_.end()) return false;
    Record &r = records_[s];
    r.messages.push_back(message ? *message : std::string());
    const std::size_t retried = r.messages.size() - 1;
    if (retried >= allowed || flushing_) {
        // This was its last attempt, recorded here.
        r.closed = true;
        return false;
    }
    // Doubling from the first delay, never past the cap (0: no cap) nor
    // past a year (the longest delay the C API takes; the timer adds the
    // delay to the clock, which must not overflow): at most 55 doublings of
    // a delay of at least a nanosecond reach it, however many attempts
    // came before.
    delay = policy_.delay;
    const std::chrono::nanoseconds cap = policy_.max_delay.count() > 0
                                             ? std::min<std::chrono::nanoseconds>(policy_.max_delay, longest_delay)
                                             : longest_delay;
    if (policy_.doubling && delay.count() > 0)
        for (std::size_t i = 0; i < retried && delay < cap; ++i) delay = delay > cap / 2 ? cap : delay * 2;
    delay = std::min(delay, cap);
    r.waiting = true;
    return true;
}

void Retries::finished(const Slot *s, const std::string *message) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = records_.find(s);
    if (it == records_.end() || it->second.closed) return;
    it->second.closed = true;
    it->second.messages.push_back(message ? *message : std::string());
}

std::optional<std::string> Retries::take_waiting(const Slot *s) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = records_.find(s);
    if (it == records_.end() || !it->second.waiting) return std::nullopt;
    it->second.waiting = false;
    it->second.closed = true;
    return it->second.messages.back();
}

bool Retries::schedule(Slot *s, std::chrono::nanoseconds delay) {
    std::lock_guard<std::mutex> lk(mu_);
    // Flushed already: the stop's settling may have taken the others.
    if (flushing_ && keep_flushed_) return false;
    timers_.emplace(std::chrono::steady_clock::now() + delay, s);
    if (!thread_.joinable()) thread_ = std::thread([this] {
            name_this_thread("dag-retry");
            run();
        });
    cv_.notify_all();
    return true;
}

void Retries::flush() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        flushing_ = true;
    }
    cv_.notify_all();
}

bool Retries::holds_flushed() const {
    std::lock_guard<std::mutex> lk(mu_);
    return flushing_ && keep_flushed_ && (!timers_.empty() || due_calls_ > 0);
}

void Retries::take_flushed(std::vector<Slot *> &out) {
    std::unique_lock<std::mutex> lk(mu_);
    if (!flushing_ || !keep_flushed_) return;
    cv_.wait(lk, [&] { return due_calls_ == 0; });
    out.reserve(out.size() + timers_.size());
    for (const auto &timer : timers_) out.push_back(timer.second);
    timers_.clear();
}

std::vector<std::string> Retries::attempts(const Slot *s) const {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = records_.find(s);
    return it == records_.end() ? std::vector<std::string>{} : it->second.messages;
}

std::vector<std::pair<const Slot *, std::vector<std::string>>> Retries::all() const {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<std::pair<const Slot *, std::vector<std::string>>> out;
    for (const auto &[slot, record] : records_)
        if (record.messages.size() > 1) out.emplace_back(slot, record.messages);
    return out;
}

void Retries::run() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        if (ending_) return;
        if (timers_.empty() || (flushing_ && keep_flushed_)) {
            cv_.wait(lk);
            continue;
        }
        auto first = timers_.begin();
        if (!flushing_ && first->first > std::chrono::steady_clock::now()) {
            cv_.wait_until(lk, first->first);
            continue;
        }
        Slot *s = first->second;
        timers_.erase(first);
        ++due_calls_;
        lk.unlock();
        due_(s);
        lk.lock();
        if (--due_calls_ == 0) cv_.notify_all();
    }
}

}  // namespace dag::walk_detail
