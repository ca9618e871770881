// --trace FILE: the walk as Chrome trace-event JSON, which Perfetto and
// chrome://tracing draw as one track per worker thread.
#pragma once

#include <functional>
#include <string>

#include "walk_result.hpp"

namespace dagcli {

// One complete event ("ph": "X", microseconds) per vertex that ran, named by
// the vertex, on its worker's track (tid), its status and message in args.
// `give_up`: as write_file's, for a FIFO without a reader yet.
void write_trace_file(const std::string &path, const WalkResult &result, const std::function<bool()> &give_up = {});

}  // namespace dagcli
