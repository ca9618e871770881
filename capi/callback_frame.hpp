// Which vertex's callback the current thread is inside, for dag_walk_fail():
// failing a vertex from inside its own callback completes it early (message
// copied then) and makes the callback's return value give way, which only
// the thread running the callback can arrange.
#pragma once

#include <cstdint>

#include "dag/dag.h"

namespace dag::capi {

// Lives on the stack of the C layer's callback trampoline for the length of
// one callback; frames nest, innermost first.
class CallbackFrame {
public:
    CallbackFrame(const dag_walker *walk, std::uint64_t vertex) noexcept
        : walk_(walk), vertex_(vertex), outer_(current_) {
        current_ = this;
    }
    ~CallbackFrame() { current_ = outer_; }
    CallbackFrame(const CallbackFrame &) = delete;
    CallbackFrame &operator=(const CallbackFrame &) = delete;

    // The frame of `vertex` of `walk` if this thread is inside its callback.
    static CallbackFrame *find(const dag_walker *walk, std::uint64_t vertex) noexcept {
        for (CallbackFrame *f = current_; f; f = f->outer_)
            if (f->walk_ == walk && f->vertex_ == vertex) return f;
        return nullptr;
    }

    // dag_walk_fail() completed the vertex as failed from inside: the
    // callback's own result must not override that completion.
    void mark_failed() noexcept { failed_ = true; }
    bool failed() const noexcept { return failed_; }
    // dag_walk_complete() completed it from inside: a dag_walk_fail() after
    // it finds the vertex completed already, as anywhere else.
    void mark_completed() noexcept { completed_ = true; }
    bool completed() const noexcept { return completed_; }

private:
    // Initial-exec: one pointer of static TLS, read without a call into the
    // dynamic loader on every vertex.
    static inline thread_local CallbackFrame *current_ __attribute__((tls_model("initial-exec"))) = nullptr;

    const dag_walker *walk_;
    std::uint64_t vertex_;
    CallbackFrame *outer_;
    bool failed_ = false;
    bool completed_ = false;
};

}  // namespace dag::capi
