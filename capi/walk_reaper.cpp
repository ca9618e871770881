#include "walk_reaper.hpp"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "walk_handles.hpp"

namespace dag::capi {

namespace {

// Its thread runs only while walks are promised to it: a library should not
// keep an idle thread in its host.
class Reaper {
public:
    bool promise() noexcept {
        std::unique_lock<std::mutex> lk(mu_);
        if (closed_) return false;
        if (!running_) {
            // The previous thread has run out of walks and is exiting.
            std::thread old = std::move(thread_);
            if (old.joinable()) {
                lk.unlock();
                old.join();
                lk.lock();
            }
        }
        // drain() may have closed while the old thread was joined.
        if (closed_) return false;
        if (!running_) {
            try {
                thread_ = std::thread([this] { run(); });
            } catch (...) {  // std::system_error, or std::bad_alloc for its state
                return false;
            }
            running_ = true;
        }
        ++promised_;
        return true;
    }

    void hand_over(dag_walker *walk) noexcept {
        std::lock_guard<std::mutex> lk(mu_);
        walk->next_freed = head_;
        head_ = walk;
        cv_.notify_all();
    }

    // At unload or exit: waits until every promised walk is deleted.
    void drain() noexcept {
        // exit() called from a callback: the walk that callback belongs to
        // cannot finish while it waits here.
        std::unique_lock<std::mutex> lk(mu_);
        // A walk freed from its callback from now on is leaked: deleting it
        // later could run after the library's code is gone.
        closed_ = true;
        if (dag::Walk::on_walk_thread()) return;
        cv_.wait(lk, [&] { return !running_; });
        std::thread old = std::move(thread_);
        lk.unlock();
        if (old.joinable()) old.join();
    }

private:
    void run() {
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            cv_.wait(lk, [&] { return head_ || promised_ == 0; });
            if (!head_) {
                running_ = false;
                cv_.notify_all();
                return;
            }
            dag_walker *walk = head_;
            head_ = walk->next_freed;
            lk.unlock();
            delete walk;  // joins the walk's pool
            lk.lock();
            --promised_;
        }
    }

    std::mutex mu_;
    std::condition_variable cv_;
    dag_walker *head_ = nullptr;
    std::size_t promised_ = 0;
    bool running_ = false;
    bool closed_ = false;
    std::thread thread_;
};

// Never destroyed: when drain() cannot wait (exit from a callback), its
// thread may still be using it.
Reaper &reaper() {
    static Reaper *const r = new Reaper;
    return *r;
}

// Runs when the library is unloaded (dlclose) or the process exits.
struct DrainAtUnload {
    ~DrainAtUnload() { reaper().drain(); }
};

}  // namespace

bool promise_walk() noexcept {
    // Registered at the first promise, so it runs before the destructors of
    // every static constructed earlier, the walks' machinery included.
    static const DrainAtUnload drain;
    return reaper().promise();
}
void hand_over(dag_walker *walk) noexcept { reaper().hand_over(walk); }

}  // namespace dag::capi
