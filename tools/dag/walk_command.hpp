// The walk of a graph, as `dag walk` runs it, for the commands that walk a
// graph they made (`dag build --walk`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "file_pools.hpp"
#include "input.hpp"
#include "libdag.hpp"
#include "output_capture.hpp"
#include "selection.hpp"
#include "walk_pools.hpp"

namespace dagcli {

struct WalkOptions {
    Input input;
    size_t parallelism = 10;
    bool reverse = false;
    Selection selection;
    bool fail_fast = false;
    // auto, always or never.
    std::string progress = "auto";
    std::string exec;
    OutputMode output = OutputMode::grouped;
    double grace_seconds = 5;
    std::string report_file;
    std::string trace_file;
    PoolOptions pools;
    size_t retries = 0;
    uint64_t retry_delay_ms = 0;
    dag_walk_priority priority = DAG_PRIORITY_CRITICAL_PATH;
};

// --exec's check: an empty command is refused rather than taken for no
// --exec, a dry run that would report success.
std::string refuse_empty_command(const std::string &command);

// Walks `g` (less what options.selection leaves out) as `dag walk` does and
// returns the exit status; options.input names the graph in messages,
// `file_pools` holds the pools its file's vertices say they need.
int walk_graph(Graph g, const WalkOptions &options, const FilePools &file_pools = {});

}  // namespace dagcli
