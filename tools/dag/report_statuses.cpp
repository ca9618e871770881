#include "report_statuses.hpp"

#include <nlohmann/json.hpp>

#include <set>

#include "input.hpp"
#include "libdag.hpp"
#include "names.hpp"

namespace dagcli {

std::unordered_map<uint64_t, std::string> read_statuses(const std::string &path, const dag_graph *g) {
    const nlohmann::json report = nlohmann::json::parse(read_text(path), nullptr, false);
    if (report.is_discarded()) throw Failure(path + ": not JSON", bad_input);
    auto malformed = [&](const std::string &why) {
        return Failure(path + ": not a report of `dag walk --report`: " + why, bad_input);
    };
    if (!report.is_object() || !report.contains("vertices") || !report["vertices"].is_array())
        throw malformed("no \"vertices\" list");
    static const std::set<std::string> known = {"ok", "failed", "upstream_failed", "cancelled", "not_run"};
    std::unordered_map<uint64_t, std::string> statuses;
    for (const nlohmann::json &vertex : report["vertices"]) {
        if (!vertex.is_object() || !vertex.contains("name") || !vertex["name"].is_string() ||
            !vertex.contains("status") || !vertex["status"].is_string())
            throw malformed("a vertex without a name or status: " + vertex.dump());
        const std::string status = vertex["status"];
        if (!known.count(status)) throw malformed("unknown status \"" + status + "\"");
        uint64_t id = DAG_NO_VERTEX;
        try {
            id = find_vertex(g, vertex["name"]);
        } catch (const Failure &e) {
            throw Failure(path + ": a report of another graph: " + e.what(), bad_input);
        }
        statuses[id] = status;
    }
    return statuses;
}

}  // namespace dagcli
