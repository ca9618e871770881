// `dag build`'s plan (tools/dag/plan_file.cpp). A plan read_plan takes is
// the graph its JSON says: a vertex for each plan vertex, by its name and in
// the plan's numbering, an edge for each depends_on, the root's name; the
// build `dag build` runs on it either fails or leaves a graph dag_validate
// accepts.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "cli_refusal.hpp"
#include "plan_file.hpp"

namespace fuzz {

inline void check_plan_graph(const dagcli::Plan &plan, const std::string &text) {
    // The strict reader took it, so nlohmann's plain one does, and no key
    // is given twice for it to drop.
    const nlohmann::json doc = nlohmann::json::parse(text);
    const nlohmann::json &listed = doc.at("vertices");
    const dag_graph *g = plan.graph.get();
    require(plan.ids.size() == listed.size() && plan.names.size() == listed.size() &&
                dag_vertex_count(g) == listed.size(),
            "the plan's graph has another vertex count");
    std::map<std::string, uint64_t> by_name;
    for (size_t i = 0; i < listed.size(); ++i) {
        const std::string &name = listed[i].at("name").get_ref<const std::string &>();
        const char *given = name_of(g, plan.ids[i]);
        require(plan.names[i] == name && given != nullptr && name == given, "a plan vertex's name differs", name);
        by_name[name] = plan.ids[i];
    }
    std::set<std::pair<uint64_t, uint64_t>> expected;
    for (size_t i = 0; i < listed.size(); ++i)
        if (const auto deps = listed[i].find("depends_on"); deps != listed[i].end())
            for (const auto &dep : *deps) expected.emplace(plan.ids[i], by_name.at(dep.get<std::string>()));
    const auto pairs = edges(g);
    std::set<std::pair<uint64_t, uint64_t>> built;
    for (size_t k = 0; k + 1 < pairs.size(); k += 2) built.emplace(pairs[k], pairs[k + 1]);
    require(built == expected && built.size() * 2 == pairs.size(), "the plan's edges are not its depends_on");
    require(plan.root == doc.value("root", std::string("root")), "the plan's root name differs", plan.root);
    require(plan.root_taken.empty() == (by_name.count(plan.root) == 0), "the root's name taken, or not, unseen");
}

// The steps `dag build` adds (build_command.cpp), with unresolved references
// as warnings (--warn-unresolved), which lets more plans through them all.
inline void check_plan_build(const dagcli::Plan &plan) {
    dag_builder *b = plan.builder.get();
    require(FUZZ_CALL(dag_builder_add_references(b, DAG_REFERENCES_WARN, &e)) == DAG_OK &&
                FUZZ_CALL(dag_builder_add_destroy_order(b, &e)) == DAG_OK &&
                FUZZ_CALL(dag_builder_add_shared(b, DAG_SHARED_CLOSE, &e)) == DAG_OK &&
                FUZZ_CALL(dag_builder_add_root(b, plan.root.c_str(), &e)) == DAG_OK &&
                FUZZ_CALL(dag_builder_add_transitive_reduction(b, &e)) == DAG_OK,
            "a build step refused");
    if (FUZZ_CALL(dag_build(b, nullptr, &e)) == DAG_OK)
        require(FUZZ_CALL(dag_validate(plan.graph.get(), nullptr, nullptr, &e)) == DAG_OK,
                "a built plan is not a valid graph");
    char *warnings = nullptr;
    require(FUZZ_CALL(dag_builder_warnings(b, &warnings, &e)) == DAG_OK, "dag_builder_warnings");
    const dagcli::String owned(warnings);
    require(is_utf8(warnings), "the build's warnings are not UTF-8", warnings);
}

inline void check_plan(const std::string &text) {
    dagcli::Plan plan;
    try {
        plan = dagcli::read_plan(text, "plan.json");
    } catch (const dagcli::Failure &refusal) {
        check_refusal(refusal, "plan");
        return;
    }
    check_plan_graph(plan, text);
    check_plan_build(plan);
}

}  // namespace fuzz
