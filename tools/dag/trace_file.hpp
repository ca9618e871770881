// --trace FILE: the walk as Chrome trace-event JSON, which Perfetto and
// chrome://tracing draw as one track per worker thread.
#pragma once

#include <string>

#include "walk_result.hpp"

namespace dagcli {

// One complete event ("ph": "X", microseconds) per vertex that ran, named by
// the vertex, on its worker's track (tid), its status and message in args.
void write_trace_file(const std::string &path, const WalkResult &result);

}  // namespace dagcli
