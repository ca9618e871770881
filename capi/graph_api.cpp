// C entry points for building and reading graphs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "guard.hpp"

using dag::capi::GraphRead;
using dag::capi::guard;
using dag::capi::require;

namespace {

std::optional<std::string_view> opt_name(const char *name) {
    return name ? std::optional<std::string_view>(name) : std::nullopt;
}

}  // namespace

extern "C" {

dag_status dag_new(dag_graph **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(out, "out");
        *out = new dag_graph{};
    });
}

void dag_free(dag_graph *g) { dag::capi::release_graph(g); }

dag_status dag_clone(const dag_graph *g, dag_graph **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = new dag_graph{g->graph};
    });
}

dag_status dag_add_vertex(dag_graph *g, const char *name, void *user_data, uint64_t *out_id, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        uint64_t id = g->graph.add_vertex(opt_name(name), user_data);
        if (out_id) *out_id = id;
    });
}

dag_status dag_add_vertices(dag_graph *g, const char *const *names, void *const *user_data, size_t count,
                            uint64_t *out_ids, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        dag::capi::require_id_count(count, "count");
        const uint64_t first = g->graph.add_vertices(names, user_data, count);
        for (size_t i = 0; out_ids && i < count; ++i) out_ids[i] = first + i;
    });
}

dag_status dag_remove_vertex(dag_graph *g, uint64_t id, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        g->graph.remove_vertex(id);
    });
}

dag_status dag_replace_vertex(dag_graph *g, uint64_t original, uint64_t replacement, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        g->graph.replace_vertex(original, replacement);
    });
}

int dag_has_vertex(const dag_graph *g, uint64_t id) {
    if (!g) return 0;
    const dag::ReadScope reading(g->graph);
    return g->graph.has_vertex(id);
}

size_t dag_vertex_count(const dag_graph *g) {
    if (!g) return 0;
    const dag::ReadScope reading(g->graph);
    return g->graph.vertex_count();
}

dag_status dag_find_vertex(const dag_graph *g, const char *name, uint64_t *out_id, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(name, "name");
        require(out_id, "out_id");
        dag::check_name(name);
        *out_id = g->graph.find(name);
    });
}

dag_status dag_find_vertices(const dag_graph *g, const char *const *names, size_t count, uint64_t *out_ids,
                             dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        if (count == 0) return;
        require(names, "names");
        require(out_ids, "out_ids");
        dag::capi::require_id_count(count, "count");
        // In groups: the views are checked, then looked up together.
        constexpr size_t group = 256;
        std::string_view views[group];
        for (size_t begin = 0; begin < count; begin += group) {
            const size_t n = std::min(group, count - begin);
            // The caller's strings are anywhere in memory: fetch them together.
            for (size_t j = 0; j < n; ++j)
                if (names[begin + j]) __builtin_prefetch(names[begin + j]);
            for (size_t j = 0; j < n; ++j) {
                const char *name = names[begin + j];
                const auto at = [&] { return "names[" + std::to_string(begin + j) + "]"; };
                if (!name) throw dag::capi::ApiError{DAG_E_NULL_ARGUMENT, "argument '" + at() + "' is NULL"};
                views[j] = name;
                try {
                    dag::check_name(views[j]);
                } catch (const dag::Error &e) {
                    throw dag::Error(e.code(), at() + ": " + e.what());
                }
            }
            g->graph.find_many(views, n, out_ids + begin);
        }
    });
}

dag_status dag_vertex_name(const dag_graph *g, uint64_t id, const char **out_name, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out_name, "out_name");
        // Stored names end in a NUL (name_table.hpp).
        const std::optional<std::string_view> n = g->graph.name(id);
        *out_name = n ? n->data() : nullptr;
    });
}

dag_status dag_set_vertex_name(dag_graph *g, uint64_t id, const char *name, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        g->graph.set_name(id, opt_name(name));
    });
}

dag_status dag_vertex_user_data(const dag_graph *g, uint64_t id, void **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = g->graph.user(id);
    });
}

dag_status dag_set_vertex_user_data(dag_graph *g, uint64_t id, void *user_data, dag_error **err) {
    return guard(__func__, err, [&] {
        // Allowed during a walk, whose updates may move the vertex records:
        // they wait for readers, and this is one as far as they are concerned.
        const GraphRead reading(g, "g");
        g->graph.set_user(id, user_data);
    });
}

dag_status dag_connect(dag_graph *g, uint64_t from, uint64_t to, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        g->graph.connect(from, to);
    });
}

dag_status dag_connect_many(dag_graph *g, const uint64_t *pairs, size_t count, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        if (count > 0) require(pairs, "pairs");
        // Two ids a pair: half the ids an array can hold.
        if (count > static_cast<std::size_t>(PTRDIFF_MAX) / (2 * sizeof(std::uint64_t)))
            throw dag::capi::ApiError{DAG_E_INVALID_ARGUMENT,
                                      "count " + std::to_string(count) + " is too large: no array holds that many pairs"};
        g->graph.connect_many(pairs, count);
    });
}

dag_status dag_disconnect(dag_graph *g, uint64_t from, uint64_t to, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        g->graph.disconnect(from, to);
    });
}

int dag_has_edge(const dag_graph *g, uint64_t from, uint64_t to) {
    if (!g) return 0;
    const dag::ReadScope reading(g->graph);
    return g->graph.has_edge(from, to);
}

size_t dag_edge_count(const dag_graph *g) {
    if (!g) return 0;
    const dag::ReadScope reading(g->graph);
    return g->graph.edge_count();
}

dag_status dag_vertices(const dag_graph *g, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(g->graph.vertices());
    });
}

dag_status dag_edges(const dag_graph *g, dag_ids **out_pairs, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out_pairs, "out_pairs");
        auto edges = g->graph.edges();
        std::vector<uint64_t> flat;
        flat.reserve(edges.size() * 2);
        for (auto [a, b] : edges) {
            flat.push_back(a);
            flat.push_back(b);
        }
        *out_pairs = dag::capi::make_ids(std::move(flat));
    });
}

dag_status dag_dependencies(const dag_graph *g, uint64_t id, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(g->graph.dependencies(id));
    });
}

dag_status dag_dependents(const dag_graph *g, uint64_t id, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(g->graph.dependents(id));
    });
}

dag_status dag_subsume(dag_graph *g, const dag_graph *other, dag_error **err) {
    return guard(__func__, err, [&] {
        require(g, "g");
        const GraphRead reading(other, "other");
        g->graph.subsume(other->graph);
    });
}

dag_status dag_to_string(const dag_graph *g, char **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_string(g->graph.to_string());
    });
}

}  // extern "C"
