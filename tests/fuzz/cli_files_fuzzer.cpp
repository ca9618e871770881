// The files the dag program reads itself, beside the graphs libdag reads:
// `dag build`'s plan, the `pools` attribute of a graph file (read by walk,
// convert and reduce) and the report `dag render --report` reads back. The
// readers are the program's own sources (tools/dag/), linked in, not the
// program run. Each input goes to every reader: all three are JSON, and the
// pools come from DOT too.
#include "file_pools_reading.hpp"
#include "plan_reading.hpp"
#include "report_reading.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    fuzz::check_plan(text);
    fuzz::check_file_pools(text);
    fuzz::check_report(text);
    return 0;
}
