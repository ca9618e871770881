// A C API program interpreter: the input's bytes are a program of graph
// operations on three graph slots (add, remove, rename, connect, disconnect,
// replace, subsume, clone, select, build), algorithms with their invariants, visitors
// and predicates that call back into the API, the text formats, and short
// walks (walk_program.hpp), with unknown and removed ids and NULL graphs mixed
// in. Each call's status is checked (fuzz_check.hpp); graphs stay small.
#include "graph_invariants.hpp"
#include "program_input.hpp"
#include "round_trip.hpp"
#include "walk_program.hpp"

#include <algorithm>

namespace {

using namespace fuzz;

constexpr size_t kMaxVertices = 24;
constexpr size_t kSlots = 3;
// A callback walk starts and joins a thread pool: the dearest step by far,
// so a program runs a few walks at most and executions stay quick.
constexpr int kMaxWalks = 4;

struct Program {
    ProgramInput in;
    dag_graph *slot[kSlots] = {};
    std::vector<uint64_t> seen;
    int walks = 0;

    Program(const uint8_t *d, size_t n) : in(d, n) {
        for (auto &g : slot) require(FUZZ_CALL(dag_new(&g, &e)) == DAG_OK, "dag_new");
    }
    ~Program() {
        for (auto *g : slot) dag_free(g);
    }

    // One graph in eight is NULL: every function must refuse it.
    dag_graph *graph() {
        const uint8_t b = in.byte();
        return b % 8 == 7 ? nullptr : slot[b % kSlots];
    }
    dag_graph *live_graph() { return slot[in.below(kSlots)]; }
    uint64_t id() { return in.id(seen); }
    void saw(uint64_t id) {
        if (seen.size() < 64) seen.push_back(id);
    }
    std::vector<uint64_t> ids() {
        std::vector<uint64_t> v(in.below(4));
        for (auto &x : v) x = id();
        return v;
    }
};

// A traversal's visitor and a search's predicate may read the graph; a
// change, or a walk, must be refused.
struct Visit {
    Program *p;
    dag_graph *g;
};

void must_be_busy(dag_graph *g) {
    uint64_t id = 0;
    require(FUZZ_CALL(dag_add_vertex(g, "busy", nullptr, &id, &e)) == DAG_E_BUSY, "added inside a read");
    require(FUZZ_CALL(dag_walk(g, walk_callback, nullptr, nullptr, nullptr, &e)) == DAG_E_BUSY,
            "walk started inside a read");
}

int visitor(uint64_t id, size_t, void *ud) {
    auto &v = *static_cast<Visit *>(ud);
    const uint8_t b = v.p->in.byte();
    if (b & 8) must_be_busy(v.g);
    if (b & 16) require(dag_has_vertex(v.g, id) == 1, "visited a vertex not in the graph");
    if (b & 32) FUZZ_CALL(dag_set_vertex_user_data(v.g, id, &v, &e));
    return b % 4;  // 3 is not a dag_visit: the traversal refuses it
}

int predicate(uint64_t id, void *ud) {
    auto &v = *static_cast<Visit *>(ud);
    const uint8_t b = v.p->in.byte();
    if (b & 8) must_be_busy(v.g);
    if (b & 16) require(FUZZ_CALL(dag_remove_vertex(v.g, id, &e)) == DAG_E_BUSY, "removed inside a read");
    return b % 7;  // 6 is not a dag_search_action
}

// A batch of up to three: all or nothing, and each name found again in one
// lookup call.
void add_vertices(Program &p, dag_graph *g) {
    const size_t count = p.in.below(4);
    std::string names[3];
    const char *given[3] = {};
    for (size_t i = 0; i < count; ++i) {
        names[i] = p.in.name();
        if (!p.in.chance(3)) given[i] = names[i].c_str();
    }
    const bool no_names = p.in.chance(8);
    const size_t before = dag_vertex_count(g);
    uint64_t ids[3] = {};
    if (FUZZ_CALL(dag_add_vertices(g, no_names ? nullptr : given, nullptr, count, ids, &e)) != DAG_OK) {
        require(dag_vertex_count(g) == before, "a refused batch added vertices");
        return;
    }
    require(dag_vertex_count(g) == before + count, "a batch added a different count");
    const char *asked[3];
    uint64_t expected[3], found[3];
    size_t named = 0;
    for (size_t i = 0; i < count; ++i) {
        require(dag_has_vertex(g, ids[i]) == 1 && (i == 0 || ids[i] == ids[i - 1] + 1), "batch ids");
        p.saw(ids[i]);
        if (!no_names && given[i]) {
            asked[named] = given[i];
            expected[named++] = ids[i];
        }
    }
    require(FUZZ_CALL(dag_find_vertices(g, asked, named, found, &e)) == DAG_OK, "batch names not looked up");
    for (size_t i = 0; i < named; ++i) require(found[i] == expected[i], "a batch name found elsewhere");
}

void add_vertex(Program &p) {
    dag_graph *g = p.graph();
    if (dag_vertex_count(g) >= kMaxVertices) return;
    if (p.in.chance(4)) return add_vertices(p, g);
    const std::string name = p.in.name();
    const bool unnamed = p.in.chance(3);
    uint64_t id = 0;
    if (FUZZ_CALL(dag_add_vertex(g, unnamed ? nullptr : name.c_str(), nullptr, &id, &e)) == DAG_OK) {
        require(dag_has_vertex(g, id) == 1, "added vertex missing");
        p.saw(id);
    }
}

void rename(Program &p) {
    dag_graph *g = p.graph();
    const uint64_t v = p.id();
    const std::string name = p.in.name();
    const bool to_null = p.in.chance(4);
    if (FUZZ_CALL(dag_set_vertex_name(g, v, to_null ? nullptr : name.c_str(), &e)) != DAG_OK) return;
    const char *now = name_of(g, v);
    if (to_null) {
        require(now == nullptr, "renamed to NULL but still named");
        return;
    }
    require(now != nullptr && name == now, "rename did not take");
    uint64_t found = 0;
    require(FUZZ_CALL(dag_find_vertex(g, name.c_str(), &found, &e)) == DAG_OK && found == v,
            "renamed vertex not found by its name");
}

void connect(Program &p, bool many) {
    dag_graph *g = p.graph();
    const uint64_t a = p.id(), b = p.id();
    if (!many) {
        if (FUZZ_CALL(dag_connect(g, a, b, &e)) == DAG_OK)
            require(dag_has_edge(g, a, b) == 1, "connected edge missing");
        return;
    }
    uint64_t pairs[6] = {a, b, p.id(), p.id(), p.id(), p.id()};
    FUZZ_CALL(dag_connect_many(g, p.in.chance(8) ? nullptr : pairs, p.in.below(4), &e));
}

void disconnect(Program &p) {
    dag_graph *g = p.graph();
    const uint64_t a = p.id(), b = p.id();
    if (FUZZ_CALL(dag_disconnect(g, a, b, &e)) == DAG_OK)
        require(dag_has_edge(g, a, b) == 0, "disconnected edge still there");
}

void copy_graph(Program &p, uint8_t how) {
    dag_graph *src = p.graph();
    const size_t to = p.in.below(kSlots);
    dag_graph *out = nullptr;
    dag_status st;
    if (how == 0) {
        st = FUZZ_CALL(dag_clone(src, &out, &e));
    } else {
        const auto targets = p.ids();
        const auto excludes = p.ids();
        st = FUZZ_CALL(dag_select(src, targets.data(), targets.size(), excludes.data(), excludes.size(),
                                  p.in.below(8), &out, &e));
    }
    if (st != DAG_OK) return;
    if (how == 0) require(vertices(src) == vertices(out) && edges(src) == edges(out), "clone differs");
    dag_free(p.slot[to]);
    p.slot[to] = out;
}

void subsume(Program &p) {
    dag_graph *g = p.graph();
    const dag_graph *other = p.graph();  // may be g itself
    if (dag_vertex_count(g) + dag_vertex_count(other) > 2 * kMaxVertices) return;
    FUZZ_CALL(dag_subsume(g, other, &e));
}

void read_graph(Program &p) {
    const dag_graph *g = p.graph();
    const uint64_t v = p.id();
    dag_ids *ids = nullptr;
    size_t n = 0;
    uint64_t root = 0;
    char *s = nullptr;
    switch (p.in.below(8)) {
    case 0: FUZZ_CALL(dag_roots(g, &ids, &e)); break;
    case 1: FUZZ_CALL(dag_leaves(g, &ids, &e)); break;
    case 2: FUZZ_CALL(dag_dependencies(g, v, &ids, &e)); break;
    case 3: FUZZ_CALL(dag_dependents(g, v, &ids, &e)); break;
    case 4:
        if (FUZZ_CALL(dag_dependency_count(g, v, &n, &e)) == DAG_OK) {
            dag_ids *deps = nullptr;
            require(FUZZ_CALL(dag_dependencies(g, v, &deps, &e)) == DAG_OK, "dependencies");
            require(dag_ids_count(deps) == n, "dependency count differs from the list");
            dag_ids_free(deps);
        }
        break;
    case 5: FUZZ_CALL(dag_dependent_count(g, v, &n, &e)); break;
    case 6: FUZZ_CALL(dag_root(g, &root, &e)); break;
    default:
        FUZZ_CALL(dag_to_string(g, &s, &e));
        dag_string_free(s);
        break;
    }
    dag_ids_free(ids);
}

void algorithms(Program &p) {
    dag_graph *g = p.live_graph();
    switch (p.in.below(5)) {
    case 0: {
        dag_validate_options o = DAG_VALIDATE_OPTIONS_INIT;
        o.single_root = p.in.byte() & 1;
        dag_validation *v = nullptr;
        const dag_status st = FUZZ_CALL(dag_validate(g, p.in.chance(4) ? nullptr : &o, &v, &e));
        // The result comes with DAG_OK and with each problem it reports, so
        // that its messages and cycles are checked where there are some.
        const bool reported = st == DAG_OK || st == DAG_E_CYCLE || st == DAG_E_NO_ROOT || st == DAG_E_MULTIPLE_ROOTS;
        require(reported == (v != nullptr), "validation result and status disagree", dag_status_string(st));
        if (v != nullptr) check_validation(g, st, v);
        dag_validation_free(v);
        break;
    }
    case 1: {
        dag_id_lists *l = nullptr;
        if (FUZZ_CALL(dag_strongly_connected(g, &l, &e)) == DAG_OK) {
            size_t total = 0;
            for (size_t i = 0; i < dag_id_lists_count(l); ++i) {
                size_t n = 0;
                dag_id_lists_get(l, i, &n);
                total += n;
            }
            require(total == dag_vertex_count(g), "components do not cover the vertices once");
        }
        dag_id_lists_free(l);
        break;
    }
    case 2: check_order(g, false); break;
    case 3: check_order(g, true); break;
    default: {
        dag_id_lists *l = nullptr;
        require(FUZZ_CALL(dag_cycles(g, &l, &e)) == DAG_OK, "dag_cycles");
        const bool acyclic = dag_id_lists_count(l) == 0 && !has_self_edge(g);
        dag_id_lists_free(l);
        if (acyclic) {
            check_reduction(g);
        } else {
            size_t removed = 0;
            FUZZ_CALL(dag_transitive_reduction(g, &removed, &e));
        }
        break;
    }
    }
}

void reads_with_callbacks(Program &p) {
    dag_graph *g = p.graph();
    Visit v{&p, g};
    const auto start = p.ids();
    const unsigned flags = p.in.byte() % 9;  // 8 is not a flag
    dag_ids *out = nullptr;
    int found = 0;
    switch (p.in.below(6)) {
    case 0: FUZZ_CALL(dag_traverse(g, start.data(), start.size(), flags, visitor, &v, &e)); break;
    case 1: FUZZ_CALL(dag_ancestors(g, start.data(), start.size(), &out, &e)); break;
    // Each search both ways, by the flags' low bit (the step reads the bytes it did).
    case 2: {
        const auto first_with = (flags & 1) ? dag_first_ancestors_with : dag_first_descendants_with;
        FUZZ_CALL(first_with(g, start.data(), start.size(), predicate, &v, &out, &e));
        break;
    }
    case 3: {
        const auto match = (flags & 1) ? dag_match_descendant : dag_match_ancestor;
        FUZZ_CALL(match(g, start.data(), start.size(), predicate, &v, &found, &e));
        break;
    }
    case 4: FUZZ_CALL(dag_search(g, start.data(), start.size(), flags % 5, predicate, &v, &out, &e)); break;
    default: FUZZ_CALL(dag_descendants(g, start.data(), start.size(), &out, &e)); break;
    }
    for (uint64_t id : take(out)) require(dag_has_vertex(g, id) == 1, "a result is not in the graph");
}

void formats(Program &p) {
    const uint8_t how = p.in.byte();
    if (how % 3 == 0) {
        if (dag_graph *g = p.live_graph()) check_round_trip(g);
        return;
    }
    const std::string text = p.in.text(64);
    const dag_format f = static_cast<dag_format>(how % 3 == 1 ? (how >> 2) % 6 : DAG_FORMAT_AUTO);
    dag_graph *g = nullptr;
    if (FUZZ_CALL(dag_import_graph(f, text.data(), text.size(), &g, &e)) != DAG_OK) return;
    const size_t to = p.in.below(kSlots);
    if (dag_vertex_count(g) > kMaxVertices) {
        dag_free(g);
        return;
    }
    for (uint64_t id : vertices(g)) p.saw(id);
    dag_free(p.slot[to]);
    p.slot[to] = g;
}

void odd_calls(Program &p) {
    const int value = static_cast<int8_t>(p.in.byte()) * 16;
    require(dag_status_string(static_cast<dag_status>(value)) != nullptr, "status string");
    require(dag_format_name(static_cast<dag_format>(value)) != nullptr, "format name");
    require(dag_vertex_status_string(static_cast<dag_vertex_status>(value)) != nullptr, "vertex status string");
    char *s = nullptr;
    FUZZ_CALL(dag_export_graph(p.graph(), static_cast<dag_format>(value), &s, &e));
    dag_string_free(s);
    dag_graph *g = nullptr;
    FUZZ_CALL(dag_import_graph(DAG_FORMAT_AUTO, nullptr, p.in.below(2), &g, &e));
    dag_free(g);
    require(dag_vertex_count(nullptr) == 0 && dag_edge_count(nullptr) == 0, "counts of NULL");
}

// The builder (dag_build, 1.3) on a live graph: declarations of a few
// vertices, then steps from the script (references, shared vertices, root,
// destroy order, reduction, prune, one of the harness's own that may change
// the graph or stop the build). A build that succeeds with validation leaves
// a graph dag_validate() accepts under the same rule.
struct BuildScript {
    Program *p;
    uint8_t act = 0;
};

int build_step(dag_graph *g, const char **message, void *ud) {
    auto &s = *static_cast<BuildScript *>(ud);
    if (s.act & 1) {
        uint64_t id = 0;
        if (dag_vertex_count(g) < kMaxVertices && FUZZ_CALL(dag_add_vertex(g, nullptr, nullptr, &id, &e)) == DAG_OK)
            s.p->saw(id);
    }
    if (s.act & 2) {
        *message = "the script stopped the build";
        return 1;
    }
    return 0;
}

int prune_predicate(uint64_t, void *ud) { return static_cast<BuildScript *>(ud)->p->in.byte() & 1; }

void build_graph(Program &p) {
    dag_graph *g = p.live_graph();
    dag_builder *b = nullptr;
    if (FUZZ_CALL(dag_builder_new(p.in.chance(16) ? nullptr : g, &b, &e)) != DAG_OK) return;
    BuildScript script{&p, p.in.byte()};
    for (size_t k = p.in.below(8); k-- > 0;) {
        const uint64_t v = p.id();
        const std::string text = p.in.name();
        switch (p.in.below(4)) {
        case 0: FUZZ_CALL(dag_builder_provide(b, v, text.c_str(), &e)); break;
        case 1: FUZZ_CALL(dag_builder_reference(b, v, text.c_str(), &e)); break;
        case 2: FUZZ_CALL(dag_builder_need(b, v, text.c_str(), &e)); break;
        default: FUZZ_CALL(dag_builder_set_action(b, v, static_cast<dag_action>(p.in.below(7)), &e)); break;
        }
    }
    for (size_t k = p.in.below(5); k-- > 0;) {
        switch (p.in.below(7)) {
        case 0: FUZZ_CALL(dag_builder_add_references(b, p.in.below(3), &e)); break;
        case 1: FUZZ_CALL(dag_builder_add_shared(b, p.in.below(3), &e)); break;
        case 2: FUZZ_CALL(dag_builder_add_root(b, p.in.chance(2) ? nullptr : "root", &e)); break;
        case 3: FUZZ_CALL(dag_builder_add_destroy_order(b, &e)); break;
        case 4: FUZZ_CALL(dag_builder_add_transitive_reduction(b, &e)); break;
        case 5: FUZZ_CALL(dag_builder_add_prune(b, prune_predicate, &script, &e)); break;
        default: FUZZ_CALL(dag_builder_add_step(b, "script", build_step, &script, &e)); break;
        }
    }
    dag_build_options o = DAG_BUILD_OPTIONS_INIT;
    const uint8_t how = p.in.byte();
    o.validate = how & 1;
    o.single_root = (how >> 1) & 1;
    if (FUZZ_CALL(dag_build(b, (how & 4) ? nullptr : &o, &e)) == DAG_OK) {
        for (uint64_t id : vertices(g)) p.saw(id);
        if ((how & 4) || o.validate) {
            dag_validate_options vo = DAG_VALIDATE_OPTIONS_INIT;
            vo.single_root = (how & 4) ? 1 : o.single_root;
            require(FUZZ_CALL(dag_validate(g, &vo, nullptr, &e)) == DAG_OK, "a validated build left an invalid graph");
        }
    }
    char *warnings = nullptr;
    require(FUZZ_CALL(dag_builder_warnings(b, &warnings, &e)) == DAG_OK && warnings != nullptr, "warnings");
    dag_string_free(warnings);
    dag_builder_free(b);
}

void step(Program &p) {
    switch (p.in.below(19)) {
    case 0: case 1: case 2: add_vertex(p); break;
    case 3: FUZZ_CALL(dag_remove_vertex(p.graph(), p.id(), &e)); break;
    case 4: rename(p); break;
    case 5: case 6: connect(p, false); break;
    case 7: connect(p, true); break;
    case 8: disconnect(p); break;
    case 9: FUZZ_CALL(dag_replace_vertex(p.graph(), p.id(), p.id(), &e)); break;
    case 10: subsume(p); break;
    case 11: copy_graph(p, p.in.byte() & 1); break;
    case 12: read_graph(p); break;
    case 13: algorithms(p); break;
    case 14: reads_with_callbacks(p); break;
    case 15: formats(p); break;
    case 16: odd_calls(p); break;
    case 18: build_graph(p); break;
    default: {
        dag_graph *g = p.live_graph();
        if (p.walks++ >= kMaxWalks) break;
        if (p.in.byte() & 1)
            run_callback_walk(g, p.in, p.seen);
        else
            run_pull_walk(g, p.in);
        break;
    }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Program p(data, size);
    for (int steps = 0; steps < 256 && !p.in.done(); ++steps) step(p);
    return 0;
}
