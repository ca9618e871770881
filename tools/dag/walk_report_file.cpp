#include "walk_report_file.hpp"
#include "output_file.hpp"

#include <nlohmann/json.hpp>

namespace dagcli {

namespace {

nlohmann::ordered_json milliseconds(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

void write_report_file(const std::string &path, const WalkResult &result, const std::function<bool()> &give_up) {
    // ordered_json: the keys in the order the README lists them, for people reading the file.
    nlohmann::ordered_json document = {{"vertices", nlohmann::ordered_json::array()}};
    for (const char *key : {"ok", "failed", "upstream_failed", "cancelled", "not_run"})
        document[key] = 0;
    for (const VertexResult &v : result.vertices) {
        const bool timed = v.ran && v.end_ns > 0;
        nlohmann::ordered_json &entry = document["vertices"].emplace_back(
            nlohmann::ordered_json{{"name", v.name},
                                   {"status", status_key(v.status)},
                                   {"message", v.message},
                                   {"start_ms", timed ? milliseconds(v.start_ns) : nullptr},
                                   {"end_ms", timed ? milliseconds(v.end_ns) : nullptr},
                                   {"attempts", v.attempts}});
        if (v.attempts > 1) entry["attempt_messages"] = v.attempt_messages;
        document[status_key(v.status)] = document[status_key(v.status)].get<int>() + 1;
    }
    document["elapsed_ms"] = milliseconds(result.elapsed_ns);
    // Names are valid UTF-8 (libdag checks them), and so are dag's messages;
    // should a stray byte get in, it costs a character, not the whole file.
    write_file(path, document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n", give_up);
}

}  // namespace dagcli
