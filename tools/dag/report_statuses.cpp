#include "report_statuses.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "input.hpp"
#include "libdag.hpp"
#include "names.hpp"
#include "strict_json.hpp"

namespace dagcli {

std::unordered_map<uint64_t, std::string> read_statuses(const std::string &file, const dag_graph *g) {
    const std::string path = file == "-" ? "standard input" : file;
    const std::string text = read_text(file);
    nlohmann::json report;
    try {
        report = parse_strict_json(text);
    } catch (const JsonProblem &e) {
        // As a graph file's: where in the file.
        throw Failure(path + ": line " + std::to_string(e.line) + ": " + (e.syntax ? "not JSON: " : "") + e.what,
                      bad_input);
    }
    auto malformed = [&](const std::string &why) {
        return Failure(path + ": not a report of `dag walk --report`: " + why, bad_input);
    };
    if (!report.is_object() || !report.contains("vertices") || !report["vertices"].is_array())
        throw malformed("no \"vertices\" list");
    static const std::set<std::string> known = {"ok", "failed", "upstream_failed", "cancelled", "not_run"};
    std::unordered_map<uint64_t, std::string> statuses;
    for (const nlohmann::json &vertex : report["vertices"]) {
        // A name is a string; an unnamed vertex is its id, a number (earlier
        // reports wrote it as a string, which is still read as its id where
        // no vertex has that name).
        if (!vertex.is_object() || !vertex.contains("name") ||
            !(vertex["name"].is_string() || vertex["name"].is_number_unsigned()) || !vertex.contains("status") ||
            !vertex["status"].is_string())
            throw malformed("a vertex without a name or status: " + shown_json(vertex));
        const std::string status = vertex["status"];
        if (!known.count(status)) throw malformed("unknown status \"" + status + "\"");
        const nlohmann::json &name = vertex["name"];
        uint64_t id = DAG_NO_VERTEX;
        try {
            if (!name.is_number())
                id = find_name(g, name.get<std::string>());
            if (id == DAG_NO_VERTEX)
                id = name.is_number() ? unnamed_vertex(g, name) : find_vertex(g, name);
        } catch (const Failure &e) {
            throw Failure(path + ": a report of another graph: " + e.what(), bad_input);
        }
        if (!statuses.emplace(id, status).second) throw malformed(shown_json(name) + " is in it twice");
    }
    return statuses;
}

}  // namespace dagcli
