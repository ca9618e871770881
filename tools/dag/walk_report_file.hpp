// --report FILE: the walk's outcome as one JSON document, for scripts.
#pragma once

#include <string>

#include "walk_result.hpp"

namespace dagcli {

// {"vertices": [{"name", "status", "message", "start_ms", "end_ms"}...],
//  "ok", "failed", "upstream_failed", "cancelled", "not_run", "elapsed_ms"};
// a vertex that did not run has null times.
void write_report_file(const std::string &path, const WalkResult &result);

}  // namespace dagcli
