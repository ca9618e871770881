#include "walk_report_file.hpp"
#include "output_file.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace dagcli {

namespace {

nlohmann::ordered_json milliseconds(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

void write_report_file(const std::string &path, const WalkResult &result, const std::function<bool()> &give_up) {
    // The bytes dump(2) of the whole document would write, the keys in the
    // order the README lists them, for people reading the file; written
    // entry by entry, as a document of them all held about 1 KB a vertex
    // (a 10^5-vertex walk peaked at 186 MB with --report, 87 MB without).
    // Names are valid UTF-8 (libdag checks them), and so are dag's messages;
    // should a stray byte get in, it costs a character, not the whole file.
    const auto dumped = [](const nlohmann::ordered_json &value, int indent) {
        return value.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    };
    std::vector<std::pair<const char *, int>> counts = {
        {"ok", 0}, {"failed", 0}, {"upstream_failed", 0}, {"cancelled", 0}, {"not_run", 0}};
    std::string text = "{\n  \"vertices\": [";
    for (std::size_t i = 0; i < result.vertices.size(); ++i) {
        const VertexResult &v = result.vertices[i];
        const bool timed = v.ran && v.end_ns > 0;
        // JSON tells an unnamed vertex's id (a number) from a name, as text cannot.
        nlohmann::ordered_json name = v.name;
        if (!v.named) name = v.id;
        nlohmann::ordered_json entry = {{"name", name},
                                        {"status", status_key(v.status)},
                                        {"message", v.message},
                                        {"start_ms", timed ? milliseconds(v.start_ns) : nullptr},
                                        {"end_ms", timed ? milliseconds(v.end_ns) : nullptr},
                                        {"attempts", v.attempts}};
        if (v.attempts > 1) entry["attempt_messages"] = v.attempt_messages;
        for (auto &[key, count] : counts)
            if (std::string_view(status_key(v.status)) == key) ++count;
        // Two levels in: every line of the entry indented by four more
        // spaces (strings hold no raw line break: dump escapes them).
        text += i == 0 ? "\n    " : ",\n    ";
        for (char c : dumped(entry, 2)) {
            text += c;
            if (c == '\n') text += "    ";
        }
    }
    text += result.vertices.empty() ? "]" : "\n  ]";
    for (const auto &[key, count] : counts) text += ",\n  \"" + std::string(key) + "\": " + std::to_string(count);
    text += ",\n  \"elapsed_ms\": " + dumped(milliseconds(result.elapsed_ns), -1) + "\n}\n";
    write_file(path, text, give_up);
}

}  // namespace dagcli
