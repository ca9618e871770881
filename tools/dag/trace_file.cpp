#include "trace_file.hpp"
#include "output_file.hpp"

#include <set>
#include <string>

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
    // Each event is written out as it is made, the bytes a document of them
    // all would dump: that document held about 1.4 KB a vertex (a walk of
    // 10^5 vertices peaked at 336 MB with --trace, 87 MB without).
    std::string text = "{\"traceEvents\":[";
    bool first = true;
    auto append = [&](const nlohmann::ordered_json &event) {
        if (!first) text += ',';
        first = false;
        text += event.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    };
    std::set<int> workers;
    for (const VertexResult &v : result.vertices) {
        if (!v.ran) continue;
        workers.insert(v.worker);
        append({{"name", v.name},
                {"cat", "vertex"},
                {"ph", "X"},
                {"ts", static_cast<double>(v.start_ns) / 1e3},
                {"dur", static_cast<double>(v.end_ns - v.start_ns) / 1e3},
                {"pid", pid},
                {"tid", v.worker},
                {"args", trace_args(v)}});
    }
    // Metadata events give the tracks their names in the viewers.
    append({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", "dag walk"}}}});
    for (int worker : workers)
        append({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", worker},
                {"args", {{"name", "worker " + std::to_string(worker)}}}});
    text += "],\"displayTimeUnit\":\"ms\"}\n";
    write_file(path, text, give_up);
}

}  // namespace dagcli
