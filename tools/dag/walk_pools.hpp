// `dag walk --pool NAME=N --pool-match GLOB=NAME`: named limits, with the
// vertices that need each pool picked by a glob on their names and by the
// graph file's `pools` attribute.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <dag/dag.h>

#include "file_pools.hpp"

namespace dagcli {

struct PoolOptions {
    std::vector<std::string> pools;    // NAME=N
    std::vector<std::string> matches;  // GLOB=NAME
};

void add_pool_options(CLI::App &command, PoolOptions &options);

// The walk options' pool arrays for the vertices of `g`, the graph as the
// file gives it; keeps what they point to. A vertex needs the pools of its
// `pools` attribute in `file` and of every pattern it matches, together.
// Throws Failure (exit 2) for a malformed option, or a match or attribute
// naming a pool no --pool declares, on any vertex of the file, walked or not.
class WalkPools {
public:
    WalkPools(const dag_graph *g, const PoolOptions &options, const FilePools &file);
    // Only the needs of `walked`'s vertices (--target, --exclude; the
    // selection keeps the file's ids).
    void keep_only(const dag_graph *walked);
    void apply(dag_walk_options &o) const;

private:
    std::vector<std::string> names_;
    std::vector<size_t> capacities_;
    std::vector<uint64_t> need_vertices_;
    std::vector<std::string> need_names_;
    std::vector<const char *> name_ptrs_, need_ptrs_;
};

}  // namespace dagcli
