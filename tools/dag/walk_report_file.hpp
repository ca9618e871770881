// --report FILE: the walk's outcome as one JSON document, for scripts.
#pragma once

#include <functional>
#include <string>

#include "walk_result.hpp"

namespace dagcli {

// {"vertices": [{"name", "status", "message", "start_ms", "end_ms"}...],
//  "ok", "failed", "upstream_failed", "cancelled", "not_run", "elapsed_ms"};
// a vertex that did not run has null times.
// `give_up`: as write_file's, for a FIFO without a reader yet.
void write_report_file(const std::string &path, const WalkResult &result, const std::function<bool()> &give_up = {});

}  // namespace dagcli
