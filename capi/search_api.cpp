// C entry point of the search that can stop or abort (dag_search): argument
// checks and translation of the callback's answers.
#include <string>
#include <vector>

#include "callback_error.hpp"
#include "guard.hpp"
#include "algorithms/reachability.hpp"

using dag::capi::ApiError;
using dag::capi::CallbackRead;
using dag::capi::guard;
using dag::capi::require;

namespace {

dag::SearchAction action(int answer, dag::VertexId id) {
    switch (answer) {
        case DAG_SEARCH_NO_MATCH: return dag::SearchAction::no_match;
        case DAG_SEARCH_MATCH: return dag::SearchAction::match;
        case DAG_SEARCH_MATCH_AND_STOP: return dag::SearchAction::match_and_stop;
        case DAG_SEARCH_STOP: return dag::SearchAction::stop;
        case DAG_SEARCH_SKIP: return dag::SearchAction::skip;
        case DAG_SEARCH_ABORT:
            throw ApiError{DAG_E_CANCELLED, "the callback aborted the search at vertex " + std::to_string(id)};
        default: break;
    }
    throw ApiError{DAG_E_INVALID_ARGUMENT, "the callback returned " + std::to_string(answer) + " for vertex " +
                                               std::to_string(id) + ", not a dag_search_action"};
}

}  // namespace

extern "C" {

dag_status dag_search(const dag_graph *g, const uint64_t *ids, size_t count, unsigned flags, dag_search_fn fn,
                      void *user_data, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const CallbackRead reading(g, "g");
        if (!fn) throw ApiError{DAG_E_NULL_ARGUMENT, "argument 'fn' is NULL"};
        if (count > 0) require(ids, "ids");
        dag::capi::require_id_count(count, "count");
        constexpr unsigned known = DAG_SEARCH_DEPENDENTS | DAG_SEARCH_FIRST_MATCH;
        if (flags & ~known)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "unknown flag bits " + std::to_string(flags & ~known)};
        dag::SearchOptions options;
        options.reverse = flags & DAG_SEARCH_DEPENDENTS;
        options.first_match = flags & DAG_SEARCH_FIRST_MATCH;
        std::vector<dag::VertexId> found =
            dag::search(g->graph, std::vector<dag::VertexId>(ids, ids + count), options,
                        [&](dag::VertexId id) {
                            return action(dag::capi::call_user("the search callback", [&] { return fn(id, user_data); }),
                                          id);
                        });
        if (out) *out = dag::capi::make_ids(std::move(found));
    });
}

}  // extern "C"
