// C entry points of graph building (dag_builder, dag_build): argument checks,
// the C callbacks as core steps, and the failing step's name in errors.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "callback_error.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "sized_options.hpp"
#include "algorithms/transitive_reduction.hpp"
#include "build/builder.hpp"
#include "build/destroy_order.hpp"
#include "build/prune.hpp"
#include "build/references.hpp"
#include "build/root_step.hpp"
#include "build/shared_vertices.hpp"
#include "graph/utf8.hpp"

struct dag_builder {
    dag_graph *graph = nullptr;
    dag::capi::GraphHold hold;
    dag::Declarations declarations;
    dag::Builder builder;
    std::vector<std::string> warnings;
    // In dag_build(): the steps, the prune predicate and the observer are
    // user code on this builder's thread, and a change they made to the
    // builder would move what the build is running.
    bool building = false;
    bool free_when_built = false;  // dag_builder_free() from inside the build
};

using dag::capi::ApiError;
using dag::capi::guard;
using dag::capi::require;

namespace {

constexpr std::size_t build_options_1_3 = offsetof(dag_build_options, observer_data) + sizeof(void *);

// A declared address or step name: copied into a std::string, so it must be
// text a C string holds.
std::string text(const char *s, const char *what) {
    require(s, what);
    const std::string t(s);
    if (t.empty()) throw ApiError{DAG_E_INVALID_ARGUMENT, std::string("'") + what + "' is empty"};
    if (!dag::is_valid_utf8(t)) throw ApiError{DAG_E_BAD_UTF8, std::string("'") + what + "' is not valid UTF-8"};
    return t;
}

// The builder, for a change: refused while it runs its steps.
dag_builder *idle(dag_builder *b) {
    require(b, "b");
    if (b->building)
        throw ApiError{DAG_E_STATE, "the builder is running its steps (dag_build); it cannot be changed from "
                                    "inside a step, the prune predicate or the observer"};
    return b;
}

dag::VertexDeclarations &declared(dag_builder *b, uint64_t vertex) {
    idle(b);
    // A walk of the graph may be applying an update meanwhile.
    const dag::ReadScope reading(b->graph->graph);
    if (!b->graph->graph.has_vertex(vertex))
        throw ApiError{DAG_E_UNKNOWN_VERTEX, "vertex " + std::to_string(vertex) + " is not in the graph"};
    return b->declarations.of(vertex);
}

void check_flags(unsigned flags, unsigned known) {
    if (flags & ~known) throw ApiError{DAG_E_INVALID_ARGUMENT, "unknown flag bits " + std::to_string(flags & ~known)};
}

}  // namespace

extern "C" {

dag_status dag_builder_new(dag_graph *g, dag_builder **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        require(out, "out");
        auto b = std::make_unique<dag_builder>();
        b->graph = g;
        b->hold.take(g);
        *out = b.release();
    });
}

void dag_builder_free(dag_builder *b) {
    if (b && b->building)
        b->free_when_built = true;
    else
        delete b;
}

dag_status dag_builder_provide(dag_builder *b, uint64_t vertex, const char *address, dag_error **err) {
    return guard(__func__, err, [&] { declared(b, vertex).provides.push_back(text(address, "address")); });
}

dag_status dag_builder_reference(dag_builder *b, uint64_t vertex, const char *address, dag_error **err) {
    return guard(__func__, err, [&] { declared(b, vertex).references.push_back(text(address, "address")); });
}

dag_status dag_builder_need(dag_builder *b, uint64_t vertex, const char *key, dag_error **err) {
    return guard(__func__, err, [&] { declared(b, vertex).needs.push_back(text(key, "key")); });
}

dag_status dag_builder_set_action(dag_builder *b, uint64_t vertex, dag_action action, dag_error **err) {
    return guard(__func__, err, [&] {
        require(b, "b");
        const auto value = dag::capi::raw(action);
        if (value < DAG_ACTION_NONE || value > DAG_ACTION_CREATE_BEFORE_DESTROY)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "action " + dag::capi::raw_text(action) + " is not a dag_action"};
        declared(b, vertex).action = static_cast<dag::Action>(value);
    });
}

dag_status dag_builder_add_step(dag_builder *b, const char *name, dag_build_step_fn fn, void *user_data,
                                dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        std::string step = text(name, "name");
        require(reinterpret_cast<const void *>(fn), "fn");
        dag_graph *g = b->graph;
        b->builder.add_step(std::move(step), [g, fn, user_data](dag::BuildContext &) {
            const char *message = nullptr;
            const int result = dag::capi::call_user("the build step", [&] { return fn(g, &message, user_data); });
            if (result != 0)
                throw dag::Error(dag::Errc::cancelled,
                                 message ? dag::printable_utf8(message) : "returned " + std::to_string(result));
        });
    });
}

dag_status dag_builder_add_references(dag_builder *b, unsigned flags, dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        check_flags(flags, DAG_REFERENCES_WARN);
        const auto policy = flags & DAG_REFERENCES_WARN ? dag::UnresolvedPolicy::warn : dag::UnresolvedPolicy::error;
        b->builder.add_step("references", [policy](dag::BuildContext &c) {
            dag::resolve_references(c.graph, c.declarations, policy, c.warnings);
        });
    });
}

dag_status dag_builder_add_shared(dag_builder *b, unsigned flags, dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        check_flags(flags, DAG_SHARED_CLOSE);
        dag::SharedOptions options;
        options.close = flags & DAG_SHARED_CLOSE;
        b->builder.add_step("shared", [options](dag::BuildContext &c) {
            dag::attach_shared(c.graph, c.declarations, options);
        });
    });
}

dag_status dag_builder_add_root(dag_builder *b, const char *name, dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        std::string root = name ? text(name, "name") : std::string("root");
        // The root a run made, for the next run to keep (see add_root).
        auto made = std::make_shared<dag::VertexId>(dag::no_vertex);
        b->builder.add_step("root", [root, made](dag::BuildContext &c) {
            const std::size_t vertices = c.graph.vertex_count();
            const dag::VertexId got = dag::add_root(c.graph, root, *made);
            if (c.graph.vertex_count() > vertices) *made = got;
        });
    });
}

dag_status dag_builder_add_destroy_order(dag_builder *b, dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        b->builder.add_step("destroy order",
                            [](dag::BuildContext &c) { dag::order_destroys(c.graph, c.declarations); });
    });
}

dag_status dag_builder_add_transitive_reduction(dag_builder *b, dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        b->builder.add_step("transitive reduction",
                            [](dag::BuildContext &c) { dag::transitive_reduction(c.graph); });
    });
}

dag_status dag_builder_add_prune(dag_builder *b, dag_predicate_fn fn, void *user_data, dag_error **err) {
    return guard(__func__, err, [&] {
        idle(b);
        require(reinterpret_cast<const void *>(fn), "fn");
        b->builder.add_step("prune", [fn, user_data](dag::BuildContext &c) {
            dag::prune(c.graph, [&](dag::VertexId v) {
                return dag::capi::call_user("the prune predicate", [&] { return fn(v, user_data); }) != 0;
            });
        });
    });
}

dag_status dag_build_options_init(dag_build_options *opts, size_t size, dag_error **err) {
    return guard(__func__, err, [&] {
        require(opts, "opts");
        dag::capi::init_sized(opts, size, build_options_1_3, dag_build_options DAG_BUILD_OPTIONS_INIT, "size");
    });
}

dag_status dag_build(dag_builder *b, const dag_build_options *opts, dag_error **err) {
    // Whether this call ran the build: a nested one, refused, must leave a
    // deferred free to the build under way.
    bool owner = false;
    const dag_status st = guard(__func__, err, [&] {
        idle(b);
        const dag_build_options o =
            opts ? dag::capi::read_sized(opts, build_options_1_3, dag_build_options DAG_BUILD_OPTIONS_INIT,
                                         "opts->size")
                 : dag_build_options DAG_BUILD_OPTIONS_INIT;
        dag::BuildOptions options;
        options.validate = o.validate != 0;
        options.single_root = o.single_root != 0;
        if (o.observer) {
            const dag_graph *g = b->graph;
            options.observer = [&o, g](const dag::StepReport &r) {
                const dag_build_step_info info{sizeof(dag_build_step_info),
                                               r.name.c_str(),
                                               r.index,
                                               static_cast<uint64_t>(r.duration.count()),
                                               r.vertices_before,
                                               r.edges_before,
                                               r.vertices_after,
                                               r.edges_after,
                                               g};
                const std::string who = "the build observer (after step '" + r.name + "')";
                dag::capi::call_user(who.c_str(), [&] { o.observer(&info, o.observer_data); });
            };
        }
        dag::Graph &graph = b->graph->graph;
        if (!graph.try_begin_build())
            throw ApiError{DAG_E_BUSY, "the graph is being built by another builder"};
        struct Claim {
            dag::Graph &g;
            ~Claim() { g.end_build(); }
        } claim{graph};
        graph.check_changeable();
        const dag::Graph::BuildingHere here(graph);
        b->warnings.clear();
        dag::BuildContext context{graph, b->declarations, b->warnings};
        struct Building {
            dag_builder &b;
            explicit Building(dag_builder &builder) : b(builder) { b.building = true; }
            ~Building() { b.building = false; }
        } building(*b);
        owner = true;
        try {
            b->builder.run(context, options);
        } catch (const ApiError &e) {
            if (b->builder.failed_step().empty()) throw;
            throw ApiError{e.status, "step '" + b->builder.failed_step() + "': " + e.message};
        }
    });
    if (owner && b->free_when_built) delete b;
    return st;
}

dag_status dag_builder_warnings(const dag_builder *b, char **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(b, "b");
        require(out, "out");
        std::string joined;
        for (const std::string &w : b->warnings) {
            if (!joined.empty()) joined += '\n';
            joined += w;
        }
        *out = dag::capi::make_string(joined);
    });
}

}  // extern "C"
