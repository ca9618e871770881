// `dag walk --pool NAME=N --pool-match GLOB=NAME`: named limits, with the
// vertices that need each pool picked by a glob on their names.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <dag/dag.h>

namespace dagcli {

struct PoolOptions {
    std::vector<std::string> pools;    // NAME=N
    std::vector<std::string> matches;  // GLOB=NAME
};

void add_pool_options(CLI::App &command, PoolOptions &options);

// The walk options' pool arrays for the vertices of `g`; keeps what they
// point to. Throws Failure (exit 2) for a malformed option or a match naming
// a pool no --pool declares.
class WalkPools {
public:
    WalkPools(const dag_graph *g, const PoolOptions &options);
    void apply(dag_walk_options &o) const;

private:
    std::vector<std::string> names_;
    std::vector<size_t> capacities_;
    std::vector<uint64_t> need_vertices_;
    std::vector<std::string> need_names_;
    std::vector<const char *> name_ptrs_, need_ptrs_;
};

}  // namespace dagcli
