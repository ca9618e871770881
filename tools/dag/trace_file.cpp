#include "trace_file.hpp"
#include "output_file.hpp"

#include <set>

#include <nlohmann/json.hpp>

namespace dagcli {

namespace {

// A span is the vertex's last attempt (libdag keeps its times only); a
// vertex tried again says how many there were, and what each said.
nlohmann::ordered_json trace_args(const VertexResult &v) {
    nlohmann::ordered_json args = {{"status", status_key(v.status)}, {"message", v.message}};
    if (v.attempts > 1) {
        args["attempts"] = v.attempts;
        args["attempt_messages"] = v.attempt_messages;
    }
    return args;
}

}  // namespace

void write_trace_file(const std::string &path, const WalkResult &result, const std::function<bool()> &give_up) {
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
                          {"args", trace_args(v)}});
    }
    // Metadata events give the tracks their names in the viewers.
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid},
                      {"args", {{"name", "dag walk"}}}});
    for (int worker : workers)
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", worker},
                          {"args", {{"name", "worker " + std::to_string(worker)}}}});
    nlohmann::ordered_json document = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
    write_file(path, document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n", give_up);
}

}  // namespace dagcli
