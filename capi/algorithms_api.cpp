// C entry points for the algorithms of lib/: argument checks and
// translation only.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "callback_error.hpp"
#include "guard.hpp"
#include "sized_options.hpp"
#include "algorithms/reachability.hpp"
#include "algorithms/tarjan.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/transitive_reduction.hpp"
#include "algorithms/traversal.hpp"
#include "algorithms/validate.hpp"

using dag::capi::ApiError;
using dag::capi::CallbackRead;
using dag::capi::GraphRead;
using dag::capi::guard;
using dag::capi::require;

struct dag_validation {
    dag_status status;
    std::string text;
    std::vector<std::string> messages;
    std::vector<std::vector<std::uint64_t>> cycles;
    std::vector<std::uint64_t> self_references;
};

// Compressed: list i is ids[offsets[i], offsets[i + 1]), so that the
// components of a large DAG (one per vertex) are not one allocation each.
struct dag_id_lists {
    std::vector<dag::Snapshot::Index> offsets{0};
    std::vector<std::uint64_t> ids;
};

namespace {

// The 1.0 layout of dag_validate_options ended with single_root.
constexpr std::size_t validate_options_1_0 = offsetof(dag_validate_options, single_root) + sizeof(int);

}  // namespace

namespace {

// require() for function pointers, which do not convert to const void *.
template <class Fn>
void require_callback(Fn fn, const char *what) {
    if (!fn) throw ApiError{DAG_E_NULL_ARGUMENT, std::string("argument '") + what + "' is NULL"};
}

std::vector<dag::VertexId> id_set(const uint64_t *ids, size_t count) {
    if (count > 0) require(ids, "ids");
    dag::capi::require_id_count(count, "count");
    return std::vector<dag::VertexId>(ids, ids + count);
}

dag::VertexPredicate predicate(dag_predicate_fn match, void *user_data) {
    return [match, user_data](dag::VertexId id) {
        return dag::capi::call_user("the predicate", [&] { return match(id, user_data); }) != 0;
    };
}

const uint64_t *list_at(const std::vector<std::vector<std::uint64_t>> &lists, size_t index, size_t *out_count) {
    const bool ok = index < lists.size() && !lists[index].empty();
    if (out_count) *out_count = ok ? lists[index].size() : 0;
    return ok ? lists[index].data() : nullptr;
}

}  // namespace

extern "C" {

dag_status dag_root(const dag_graph *g, uint64_t *out_root, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out_root, "out_root");
        *out_root = dag::root(g->graph);
    });
}

dag_status dag_validate_options_init(dag_validate_options *opts, size_t size, dag_error **err) {
    return guard(__func__, err, [&] {
        require(opts, "opts");
        dag::capi::init_sized(opts, size, validate_options_1_0, dag_validate_options DAG_VALIDATE_OPTIONS_INIT, "size");
    });
}

dag_status dag_validate(const dag_graph *g, const dag_validate_options *opts, dag_validation **out,
                        dag_error **err) {
    std::unique_ptr<dag_validation> result;
    const dag_status st = guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        const dag_validate_options o =
            opts ? dag::capi::read_sized(opts, validate_options_1_0, dag_validate_options DAG_VALIDATE_OPTIONS_INIT,
                                         "opts->size")
                 : dag_validate_options DAG_VALIDATE_OPTIONS_INIT;
        const bool single_root = o.single_root != 0;
        dag::Validation v = dag::validate(g->graph, single_root);
        result = std::make_unique<dag_validation>();
        result->status = v.ok() ? DAG_OK : dag::capi::to_status(v.errc());
        result->text = v.text();
        result->messages = std::move(v.messages);
        result->cycles = std::move(v.cycles);
        result->self_references = std::move(v.self_references);
        if (result->status != DAG_OK) throw ApiError{result->status, result->text};
    });
    // The result goes out with the validation's own verdict, not with an
    // unrelated failure (out of memory while reporting it).
    if (out && result && st == result->status) *out = result.release();
    return st;
}

dag_status dag_validation_status(const dag_validation *v) { return v ? v->status : DAG_E_NULL_ARGUMENT; }

const char *dag_validation_text(const dag_validation *v) { return v ? v->text.c_str() : ""; }

size_t dag_validation_message_count(const dag_validation *v) { return v ? v->messages.size() : 0; }

const char *dag_validation_message(const dag_validation *v, size_t index) {
    return v && index < v->messages.size() ? v->messages[index].c_str() : nullptr;
}

size_t dag_validation_cycle_count(const dag_validation *v) { return v ? v->cycles.size() : 0; }

const uint64_t *dag_validation_cycle(const dag_validation *v, size_t index, size_t *out_count) {
    if (!v) {
        if (out_count) *out_count = 0;
        return nullptr;
    }
    return list_at(v->cycles, index, out_count);
}

const uint64_t *dag_validation_self_references(const dag_validation *v, size_t *out_count) {
    const bool any = v && !v->self_references.empty();
    if (out_count) *out_count = any ? v->self_references.size() : 0;
    return any ? v->self_references.data() : nullptr;
}

void dag_validation_free(dag_validation *v) { delete v; }

size_t dag_id_lists_count(const dag_id_lists *lists) { return lists ? lists->offsets.size() - 1 : 0; }

const uint64_t *dag_id_lists_get(const dag_id_lists *lists, size_t index, size_t *out_count) {
    if (!lists) {
        if (out_count) *out_count = 0;
        return nullptr;
    }
    // index < count, not index + 1 < offsets.size(): SIZE_MAX + 1 wraps to 0.
    const bool ok = index < lists->offsets.size() - 1 && lists->offsets[index] != lists->offsets[index + 1];
    if (out_count) *out_count = ok ? lists->offsets[index + 1] - lists->offsets[index] : 0;
    return ok ? lists->ids.data() + lists->offsets[index] : nullptr;
}

void dag_id_lists_free(dag_id_lists *lists) { delete lists; }

dag_status dag_strongly_connected(const dag_graph *g, dag_id_lists **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        dag::ComponentIds c = dag::strongly_connected_components(g->graph);
        *out = new dag_id_lists{std::move(c.offsets), std::move(c.ids)};
    });
}

dag_status dag_cycles(const dag_graph *g, dag_id_lists **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        auto lists = std::make_unique<dag_id_lists>();
        for (const auto &cycle : dag::validate(g->graph, false).cycles) {
            lists->ids.insert(lists->ids.end(), cycle.begin(), cycle.end());
            lists->offsets.push_back(static_cast<dag::Snapshot::Index>(lists->ids.size()));
        }
        *out = lists.release();
    });
}

dag_status dag_transitive_reduction(dag_graph *g, size_t *out_removed, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        const std::size_t removed = dag::transitive_reduction(g->graph);
        if (out_removed) *out_removed = removed;
    });
}

dag_status dag_topological_order(const dag_graph *g, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::copy_ids(*dag::kept_order(g->graph, dag::TopoDirection::dependents_first));
    });
}

dag_status dag_reverse_topological_order(const dag_graph *g, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::copy_ids(*dag::kept_order(g->graph, dag::TopoDirection::dependencies_first));
    });
}

dag_status dag_traverse(const dag_graph *g, const uint64_t *start, size_t start_count, unsigned flags,
                        dag_visit_fn visit, void *user_data, dag_error **err) {
    return guard(__func__, err, [&] {
        const CallbackRead reading(g, "g");
        require_callback(visit, "visit");
        if (start_count > 0) require(start, "start");
        dag::capi::require_id_count(start_count, "start_count");
        constexpr unsigned known = DAG_TRAVERSE_BREADTH_FIRST | DAG_TRAVERSE_REVERSE | DAG_TRAVERSE_SORTED;
        if (flags & ~known)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "unknown flag bits " + std::to_string(flags & ~known)};
        dag::TraversalOptions opts;
        opts.breadth_first = flags & DAG_TRAVERSE_BREADTH_FIRST;
        opts.reverse = flags & DAG_TRAVERSE_REVERSE;
        opts.sorted = flags & DAG_TRAVERSE_SORTED;
        dag::traverse(g->graph, std::vector<dag::VertexId>(start, start + start_count), opts,
                      [&](dag::VertexId id, std::size_t depth) {
                          const int what =
                              dag::capi::call_user("the visitor", [&] { return visit(id, depth, user_data); });
                          switch (what) {
                              case DAG_VISIT_CONTINUE: return dag::Visit::proceed;
                              case DAG_VISIT_SKIP: return dag::Visit::skip;
                              case DAG_VISIT_STOP: return dag::Visit::stop;
                          }
                          throw ApiError{DAG_E_INVALID_ARGUMENT,
                                         "the visitor returned " + std::to_string(what) + ", not a dag_visit value"};
                      });
    });
}

dag_status dag_ancestors(const dag_graph *g, const uint64_t *ids, size_t count, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(dag::ancestors(g->graph, id_set(ids, count)));
    });
}

dag_status dag_descendants(const dag_graph *g, const uint64_t *ids, size_t count, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(dag::descendants(g->graph, id_set(ids, count)));
    });
}

dag_status dag_first_ancestors_with(const dag_graph *g, const uint64_t *ids, size_t count, dag_predicate_fn match,
                                    void *user_data, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const CallbackRead reading(g, "g");
        require_callback(match, "match");
        require(out, "out");
        *out = dag::capi::make_ids(
            dag::first_ancestors_with(g->graph, id_set(ids, count), predicate(match, user_data)));
    });
}

dag_status dag_first_descendants_with(const dag_graph *g, const uint64_t *ids, size_t count, dag_predicate_fn match,
                                      void *user_data, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const CallbackRead reading(g, "g");
        require_callback(match, "match");
        require(out, "out");
        *out = dag::capi::make_ids(
            dag::first_descendants_with(g->graph, id_set(ids, count), predicate(match, user_data)));
    });
}

dag_status dag_match_ancestor(const dag_graph *g, const uint64_t *ids, size_t count, dag_predicate_fn match,
                              void *user_data, int *out_found, dag_error **err) {
    return guard(__func__, err, [&] {
        const CallbackRead reading(g, "g");
        require_callback(match, "match");
        require(out_found, "out_found");
        *out_found = dag::match_ancestor(g->graph, id_set(ids, count), predicate(match, user_data)) ? 1 : 0;
    });
}

dag_status dag_match_descendant(const dag_graph *g, const uint64_t *ids, size_t count, dag_predicate_fn match,
                                void *user_data, int *out_found, dag_error **err) {
    return guard(__func__, err, [&] {
        const CallbackRead reading(g, "g");
        require_callback(match, "match");
        require(out_found, "out_found");
        *out_found = dag::match_descendant(g->graph, id_set(ids, count), predicate(match, user_data)) ? 1 : 0;
    });
}

}  // extern "C"
