#include "trace_file.hpp"

#include <set>

#include <nlohmann/json.hpp>

namespace dagcli {

void write_trace_file(const std::string &path, const WalkResult &result) {
    constexpr int pid = 1;  // one process: the walk
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    std::set<int> workers;
    for (const VertexResult &v : result.vertices) {
        if (!v.ran) continue;
        workers.insert(v.worker);
        events.push_back({{"name", v.name},
                          {"cat", "vertex"},
                          {"ph", "X"},
                          {"ts", static_cast<double>(v.start_ns) / 1e3},
                          {"dur", static_cast<double>(v.end_ns - v.start_ns) / 1e3},
                          {"pid", pid},
                          {"tid", v.worker},
                          {"args", {{"status", status_key(v.status)}, {"message", v.message}}}});
    }
    // Metadata events give the tracks their names in the viewers.
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid},
                      {"args", {{"name", "dag walk"}}}});
    for (int worker : workers)
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", worker},
                          {"args", {{"name", "worker " + std::to_string(worker)}}}});
    nlohmann::ordered_json document = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
    write_file(path, document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace dagcli
