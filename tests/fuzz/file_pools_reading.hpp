// The `pools` attribute of a graph file (tools/dag/file_pools.cpp), which
// the program reads itself from a file libdag has imported, and then:
// written back by `dag convert --to dot|json` (exported_pools.cpp), where
// the written graph reads back with every vertex needing the same pools; and
// given to `dag walk --pool NAME=N` (walk_pools.cpp), which needs exactly
// the file's pools of each vertex once they are declared.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli_refusal.hpp"
#include "exported_pools.hpp"
#include "file_pools.hpp"
#include "round_trip.hpp"
#include "walk_pools.hpp"

namespace fuzz {

using PoolList = std::vector<std::string>;

// None and an empty list need the same: nothing.
inline PoolList pools_of(const dagcli::FilePools &file, const dag_graph *g, uint64_t id) {
    const PoolList *pools = file.of(id, name_of(g, id));
    return pools != nullptr ? *pools : PoolList{};
}

// A list the file gives a vertex the graph lacks would be dropped unseen.
inline void check_pools_have_vertices(const dagcli::FilePools &file, const dag_graph *g) {
    for (const auto &[name, pools] : file.by_name) {
        uint64_t id = 0;
        require(dag_find_vertex(g, name.c_str(), &id, nullptr) == DAG_OK && name.find('\0') == std::string::npos,
                "pools given to a name no vertex has", name);
    }
    for (const auto &[id, pools] : file.by_id)
        require(dag_has_vertex(g, id) == 1 && name_of(g, id) == nullptr, "pools given to no unnamed vertex",
                std::to_string(id));
}

// What `dag convert --to FORMAT` writes (format_commands.cpp), read again as a
// walk reads its file.
inline void check_written_pools(const dag_graph *g, const dagcli::FilePools &file, dag_format format) {
    Text exported;
    const dag_status st = export_as(g, format, exported);
    // DOT refuses a name it cannot carry, as round_trip.hpp says.
    if (st == DAG_E_INVALID_ARGUMENT && format == DAG_FORMAT_DOT) return;
    require(st == DAG_OK, "export refused", dag_format_name(format));
    std::string written;
    try {
        written = dagcli::with_pools(g, exported.s, format, file);
    } catch (const dagcli::Failure &refusal) {
        // JSON carries any list of strings. DOT's pools="..." carries every
        // list but one with a comma, a backslash or spaces around a name
        // (what its message names), or a NUL, which ends the C string cgraph
        // reads.
        require(format == DAG_FORMAT_DOT, "pools refused in JSON", refusal.what());
        bool unwritable = false;
        for (uint64_t id : vertices(g))
            for (const std::string &pool : pools_of(file, g, id))
                unwritable = unwritable || pool.find_first_of(std::string(",\\\0", 3)) != std::string::npos ||
                             pool.find_first_of(" \t") == 0 || pool.find_last_of(" \t") == pool.size() - 1;
        require(unwritable, "pools DOT can carry refused", refusal.what());
        check_refusal(refusal, "pools written as DOT");
        return;
    }
    dag_graph *raw = nullptr;
    require(FUZZ_CALL(dag_import_graph(format, written.data(), written.size(), &raw, &e)) == DAG_OK,
            "a graph written with its pools does not read back", written);
    const dagcli::Graph back(raw);
    dagcli::FilePools read;
    try {
        read = dagcli::file_pools(written, format, "written");
    } catch (const dagcli::Failure &refusal) {
        fail("pools written do not read back", std::string(refusal.what()) + "\n" + written);
    }
    for (uint64_t id : vertices(g)) {
        uint64_t there = id;
        if (format == DAG_FORMAT_DOT)
            require(FUZZ_CALL(dag_find_vertex(back.get(), dot_name(g, id).c_str(), &there, &e)) == DAG_OK,
                    "a vertex lost on the way", dot_name(g, id));
        require(pools_of(read, back.get(), there) == pools_of(file, g, id), "a vertex's pools changed on the way",
                dot_name(g, id) + "\n" + written);
    }
}

// Every pool the file names is declared that a command line can declare
// (--pool NAME=1: a name without '=' or NUL).
inline void check_walk_pools(const dag_graph *g, const dagcli::FilePools &file) {
    const auto declarable = [](const std::string &pool) {
        return pool.find('=') == std::string::npos && pool.find('\0') == std::string::npos;
    };
    std::set<std::string> named;
    for (const auto &[name, pools] : file.by_name) named.insert(pools.begin(), pools.end());
    for (const auto &[id, pools] : file.by_id) named.insert(pools.begin(), pools.end());
    dagcli::PoolOptions options;
    for (const std::string &pool : named)
        if (declarable(pool)) options.pools.push_back(pool + "=1");
    std::set<std::pair<uint64_t, std::string>> expected;
    bool undeclared = false;
    for (uint64_t id : vertices(g))
        for (const std::string &pool : pools_of(file, g, id)) {
            if (declarable(pool))
                expected.emplace(id, pool);
            else
                undeclared = true;
        }
    try {
        const dagcli::WalkPools walk(g, options, file);
        require(!undeclared, "a walk took a pool no --pool declares");
        dag_walk_options o{};
        walk.apply(o);
        std::set<std::pair<uint64_t, std::string>> needs;
        for (size_t k = 0; k < o.pool_need_count; ++k) needs.emplace(o.pool_need_vertices[k], o.pool_need_names[k]);
        require(needs == expected && o.pool_need_count == expected.size(), "a walk needs other pools than the file's");
    } catch (const dagcli::Failure &refusal) {
        require(undeclared, "a walk refused the pools it declares", refusal.what());
        check_refusal(refusal, "walk's pools");
    }
}

// Only for what libdag imports, as every command reads the file.
inline void check_file_pools(const std::string &text) {
    dag_graph *raw = nullptr;
    if (FUZZ_CALL(dag_import_graph(DAG_FORMAT_AUTO, text.data(), text.size(), &raw, &e)) != DAG_OK) return;
    const dagcli::Graph g(raw);
    dagcli::FilePools file;
    try {
        file = dagcli::file_pools(text, DAG_FORMAT_AUTO, "graph");
    } catch (const dagcli::Failure &refusal) {
        check_refusal(refusal, "pools");
        return;
    }
    // With none, what is written is libdag's own export, which the import
    // harnesses check.
    if (file.by_name.empty() && file.by_id.empty()) return;
    check_pools_have_vertices(file, g.get());
    for (dag_format format : {DAG_FORMAT_DOT, DAG_FORMAT_JSON}) check_written_pools(g.get(), file, format);
    check_walk_pools(g.get(), file);
}

}  // namespace fuzz
