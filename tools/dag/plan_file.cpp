#include "plan_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "strict_json.hpp"

namespace dagcli {
namespace {

using nlohmann::json;

const std::map<std::string, dag_action> actions = {
    {"none", DAG_ACTION_NONE},       {"create", DAG_ACTION_CREATE},   {"update", DAG_ACTION_UPDATE},
    {"delete", DAG_ACTION_DELETE},   {"replace", DAG_ACTION_REPLACE},
    {"create_before_destroy", DAG_ACTION_CREATE_BEFORE_DESTROY}};

const std::set<std::string> vertex_fields = {"name", "provides", "references", "needs", "depends_on", "action"};

class Reader {
public:
    explicit Reader(std::string shown) : shown_(std::move(shown)) {}

    [[noreturn]] void fail(const std::string &where, const std::string &what) const {
        throw Failure(shown_ + ": " + where + ": " + what, bad_input);
    }

    // A string value as libdag takes it: a C string, so without a NUL, which
    // would cut it short there (two names alike up to a NUL read as one).
    std::string text(const json &value, const std::string &where, const std::string &what) const {
        std::string out = value.get<std::string>();
        if (out.find('\0') != std::string::npos) fail(where, what + " holds a NUL character, which no C string can carry");
        return out;
    }

    std::vector<std::string> strings(const json &vertex, const char *key, const std::string &where) const {
        std::vector<std::string> out;
        auto it = vertex.find(key);
        if (it == vertex.end()) return out;
        if (!it->is_array()) fail(where, std::string("\"") + key + "\" is not an array of strings");
        for (const json &s : *it) {
            if (!s.is_string()) fail(where, std::string("\"") + key + "\" is not an array of strings");
            out.push_back(text(s, where, std::string("\"") + key + "\""));
            // Told in the plan's terms: libdag's own message names its C
            // argument ('address' is empty).
            if (out.back().empty()) fail(where, std::string("\"") + key + "\" holds an empty string");
        }
        return out;
    }

    // Runs a libdag call, naming the vertex when it fails.
    void call(const std::string &where, dag_status status, dag_error **err) const {
        try {
            check(status, err, bad_input);
        } catch (const Failure &e) {
            fail(where, e.what());
        }
    }

private:
    std::string shown_;
};

}  // namespace

Plan read_plan(const std::string &text, const std::string &shown) {
    const Reader r(shown);
    json doc;
    try {
        doc = parse_strict_json(text);
    } catch (const JsonProblem &e) {
        r.fail("line " + std::to_string(e.line), e.syntax ? "not valid JSON: " + e.what : e.what);
    }
    if (!doc.is_object() || !doc.contains("vertices") || !doc["vertices"].is_array())
        r.fail("top level", "a plan is an object with a \"vertices\" array");
    for (const auto &field : doc.items())
        if (field.key() != "vertices" && field.key() != "root")
            r.fail("top level", "unknown field \"" + field.key() + "\"");
    Plan plan;
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    check(dag_new(&g, &err), &err);
    plan.graph.reset(g);
    dag_builder *b = nullptr;
    check(dag_builder_new(g, &b, &err), &err);
    plan.builder.reset(b);
    if (auto root = doc.find("root"); root != doc.end()) {
        if (!root->is_string() || root->get<std::string>().empty())
            r.fail("\"root\"", "not a vertex name (a non-empty string); leave \"root\" out for the default name \"root\"");
        plan.root = r.text(*root, "\"root\"", "the name");
    }
    const json &vertices = doc["vertices"];
    std::vector<uint64_t> ids;
    // By the plan's own numbering: libdag's ids would read as a second one.
    std::map<std::string, std::size_t> named;
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        const json &v = vertices[i];
        const std::string where = "vertex " + std::to_string(i);
        if (!v.is_object() || !v.contains("name") || !v["name"].is_string())
            r.fail(where, "a vertex is an object with a \"name\" string");
        // Before libdag's refusal, whose advice (no name) a plan cannot take.
        if (v["name"].get_ref<const std::string &>().empty())
            r.fail(where, "the name is empty; every vertex of a plan has a non-empty name of its own");
        if (const auto [first, added] = named.emplace(r.text(v["name"], where, "\"name\""), i); !added)
            r.fail(where, "the name \"" + first->first + "\" is taken by vertex " + std::to_string(first->second));
        for (const auto &field : v.items())
            if (!vertex_fields.count(field.key())) r.fail(where, "unknown field \"" + field.key() + "\"");
        uint64_t id = 0;
        r.call(where, dag_add_vertex(g, v["name"].get<std::string>().c_str(), nullptr, &id, &err), &err);
        ids.push_back(id);
        plan.names.push_back(v["name"].get<std::string>());
    }
    // The build adds a root vertex by this name unless the graph has one
    // root already (which may be this vertex): only then is a plan vertex
    // taking it the plan's mistake, told by the plan's numbering.
    if (const auto taken = named.find(plan.root); taken != named.end())
        plan.root_taken = shown + ": \"root\": the name \"" + plan.root + "\" is taken by vertex " +
                          std::to_string(taken->second) + ", and the graph has more than one root";
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        const json &v = vertices[i];
        const std::string where = v["name"].get<std::string>();
        const uint64_t id = ids[i];
        for (const std::string &a : r.strings(v, "provides", where))
            r.call(where, dag_builder_provide(b, id, a.c_str(), &err), &err);
        for (const std::string &a : r.strings(v, "references", where))
            r.call(where, dag_builder_reference(b, id, a.c_str(), &err), &err);
        for (const std::string &k : r.strings(v, "needs", where))
            r.call(where, dag_builder_need(b, id, k.c_str(), &err), &err);
        for (const std::string &name : r.strings(v, "depends_on", where)) {
            uint64_t dependency = 0;
            if (dag_find_vertex(g, name.c_str(), &dependency, nullptr) != DAG_OK)
                r.fail(where, "depends_on names \"" + name + "\", which is not a vertex of the plan");
            r.call(where, dag_connect(g, id, dependency, &err), &err);
        }
        if (auto action = v.find("action"); action != v.end()) {
            auto known = action->is_string() ? actions.find(action->get<std::string>()) : actions.end();
            if (known == actions.end())
                r.fail(where, "\"action\" is none, create, update, delete, replace or create_before_destroy");
            r.call(where, dag_builder_set_action(b, id, known->second, &err), &err);
        }
    }
    plan.ids = std::move(ids);
    return plan;
}

}  // namespace dagcli
