#include "file_pools.hpp"

#include <nlohmann/json.hpp>

#include "dot_node_attribute.hpp"
#include "libdag.hpp"
#include "strict_json.hpp"
#include "text_decoding.hpp"

namespace dagcli {
namespace {

bool is_json(const std::string &utf8, dag_format format) {
    if (format != DAG_FORMAT_AUTO) return format == DAG_FORMAT_JSON;
    const size_t first = utf8.find_first_not_of(" \t\r\n");
    return first != std::string::npos && utf8[first] == '{';
}

std::string trimmed(const std::string &s) {
    const size_t begin = s.find_first_not_of(" \t");
    if (begin == std::string::npos) return "";
    return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// "aws, rds" as {"aws", "rds"}.
std::vector<std::string> split_list(const std::string &value, const std::string &where) {
    std::vector<std::string> pools;
    size_t begin = 0;
    for (;;) {
        const size_t comma = value.find(',', begin);
        std::string pool = trimmed(value.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
        if (pool.empty())
            throw Failure(where + ": pools=\"" + value + "\" has an empty pool name", bad_input);
        pools.push_back(std::move(pool));
        if (comma == std::string::npos) return pools;
        begin = comma + 1;
    }
}

FilePools from_dot(const std::string &text, const std::string &shown) {
    FilePools found;
    for (auto &[name, value] : dot_node_attribute(text, "pools")) {
        // DOT's attribute values are not checked as its names are; JSON's
        // are, so a list that JSON could not hold is refused here for every
        // output alike (DOT written with it would not convert to JSON).
        try {
            (void)nlohmann::json(value).dump();
        } catch (const nlohmann::json::type_error &) {
            throw Failure(shown + ": vertex '" + name + "': its pools are not UTF-8", bad_input);
        }
        // cgraph reads pools="" as no attribute at all; blanks are the same empty list.
        if (trimmed(value).empty()) continue;
        found.by_name[name] = split_list(value, shown + ": vertex '" + name + "'");
    }
    return found;
}

FilePools from_json(const std::string &text, const std::string &shown) {
    // libdag read the same text, so it parses; only "pools" is checked here,
    // given twice in a vertex too (the first list would be dropped unseen).
    nlohmann::json doc;
    try {
        doc = parse_strict_json(decode_text(text).utf8, {"pools"});
    } catch (const JsonProblem &e) {
        throw Failure(shown + ": line " + std::to_string(e.line) + ": " + e.what, bad_input);
    }
    FilePools found;
    const auto vertices = doc.find("vertices");
    if (vertices == doc.end()) return found;
    for (const auto &vertex : *vertices) {
        const auto pools = vertex.find("pools");
        if (pools == vertex.end()) continue;
        const auto name = vertex.find("name");
        const bool named = name != vertex.end() && name->is_string();
        const std::string where = shown + ": vertex " +
                                  (named ? "'" + name->get<std::string>() + "'" : shown_json(vertex.at("id")));
        if (!pools->is_array())
            throw Failure(where + ": \"pools\" must be an array of pool names", bad_input);
        std::vector<std::string> list;
        for (const auto &pool : *pools) {
            if (!pool.is_string() || pool.get<std::string>().empty())
                throw Failure(where + ": \"pools\" must be an array of pool names, not " + shown_json(pool), bad_input);
            list.push_back(pool.get<std::string>());
        }
        if (named)
            found.by_name[name->get<std::string>()] = std::move(list);
        else
            found.by_id[vertex.at("id").get<uint64_t>()] = std::move(list);
    }
    return found;
}

}  // namespace

const std::vector<std::string> *FilePools::of(uint64_t id, const char *name) const {
    if (name) {
        const auto named = by_name.find(name);
        return named == by_name.end() ? nullptr : &named->second;
    }
    const auto unnamed = by_id.find(id);
    return unnamed == by_id.end() ? nullptr : &unnamed->second;
}

FilePools file_pools(const std::string &text, dag_format format, const std::string &shown) {
    const std::string utf8 = decode_text(text).utf8;
    // No "pools" anywhere, nor an escape that could spell it (JSON's \u,
    // DOT's backslash before a line break; `terraform graph`'s \" cannot):
    // nothing to find, and the file is not parsed a second time (convert
    // --to dot of a 32 MB DOT file took 12.8 s, where validate's one parse
    // takes 6).
    if (utf8.find("pools") == std::string::npos && utf8.find("\\u") == std::string::npos &&
        utf8.find("\\\n") == std::string::npos && utf8.find("\\\r") == std::string::npos) {
        FilePools none;
        none.shown = shown;
        return none;
    }
    FilePools found = is_json(utf8, format) ? from_json(text, shown) : from_dot(text, shown);
    found.shown = shown;
    return found;
}

}  // namespace dagcli
