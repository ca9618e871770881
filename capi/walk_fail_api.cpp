// dag_walk_fail(): a vertex failed with a message copied at once.
#include "callback_frame.hpp"
#include "guard.hpp"
#include "walk_handles.hpp"

using dag::capi::ApiError;
using dag::capi::CallbackFrame;
using dag::capi::guard;
using dag::capi::require;

extern "C" {

dag_status dag_walk_fail(dag_walker *walk, uint64_t vertex, const char *message, dag_error **err) {
    return guard(__func__, err, [&] {
        require(walk, "walk");
        dag::Walk *w = walk->walk.load(std::memory_order_acquire);
        if (!w) throw ApiError{DAG_E_STATE, "the sub-walk has not been handed over yet"};
        // Inside the vertex's own callback the vertex is running, so this is
        // an early completion, which holds the copied message until the
        // callback returns; the frame then makes that completion win. It
        // replaces one another thread made meanwhile (the callback's own
        // result wins over that), not the callback's own earlier one.
        CallbackFrame *frame = CallbackFrame::find(walk, vertex);
        w->complete(vertex, dag::Outcome::failed, message, frame && !frame->failed() && !frame->completed());
        if (frame) frame->mark_failed();
    });
}

}  // extern "C"
