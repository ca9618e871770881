#include "exported_pools.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "libdag.hpp"
#include "names.hpp"

namespace dagcli {
namespace {

using Needs = std::map<uint64_t, const std::vector<std::string> *>;

Needs needs_of(const dag_graph *g, const FilePools &file) {
    Needs needs;
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(dag_vertices(g, &raw, &err), &err);
    for (uint64_t id : take(raw)) {
        const char *name = nullptr;
        check(dag_vertex_name(g, id, &name, &err), &err);
        // An empty list needs nothing, which DOT says by leaving it out.
        if (const std::vector<std::string> *pools = file.of(id, name); pools && !pools->empty()) needs[id] = pools;
    }
    return needs;
}

// DOT's quoted string, as libdag quotes a name: a quote escaped, nothing else.
std::string dot_quoted(const std::string &text) {
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '\\';
        quoted += c;
    }
    return quoted + '"';
}

// ` [pools="aws,rds"]`, the attribute as DOT writes `pools`, checked by
// reading it back as a walk reads it: a pool name with a comma, spaces
// around it or a backslash before a quote would come back changed, and one
// ending in a backslash would leave the quote open.
std::string dot_attribute(const std::string &vertex, const std::vector<std::string> &pools, const FilePools &file) {
    std::string list;
    for (const std::string &pool : pools) list += (list.empty() ? "" : ",") + pool;
    const std::string attribute = " [pools=" + dot_quoted(list) + "]";
    bool read_back = false;
    try {
        const FilePools back = file_pools("digraph { v" + attribute + " }", DAG_FORMAT_DOT, file.shown);
        read_back = back.by_name.count("v") == 1 && back.by_name.at("v") == pools;
    } catch (const Failure &) {
        // Not DOT at all: not read back either.
    }
    if (!read_back)
        throw Failure(file.shown + ": vertex '" + vertex + "': its pools cannot be written in DOT's pools=\"...\" " +
                          "(a pool name with a comma, spaces around it, or a backslash DOT reads as an escape); "
                          "write JSON instead",
                      bad_input);
    return attribute;
}

// Each vertex's node statement, `\t\t"name"` at the start of a line and
// ending it, before the edges, gets the attribute. A quote inside a quoted
// name is escaped, and a name may hold line breaks: the text is read string
// by string, so that a statement is found only where one begins, and whole.
// One pass, each distinct list checked once: a graph of 10^5 vertices in
// pools is written in about the time it takes without them.
std::string dot_with_pools(const dag_graph *g, const std::string &dot, const Needs &needs, const FilePools &file) {
    std::unordered_map<std::string, std::pair<std::string, const std::vector<std::string> *>> by_statement;
    for (const auto &[id, pools] : needs) {
        std::string name = vertex_name(g, id);
        std::string statement = "\t\t" + dot_quoted(name);
        by_statement.emplace(std::move(statement), std::make_pair(std::move(name), pools));
    }
    // One past the quote that closes the string opened at `open`.
    const auto string_end = [&dot](std::size_t open) {
        std::size_t i = open + 1;
        while (i < dot.size() && dot[i] != '"') i += dot[i] == '\\' ? 2 : 1;
        return std::min(i + 1, dot.size());
    };
    std::map<std::vector<std::string>, std::string> attributes;
    std::string out;
    out.reserve(dot.size() + needs.size() * 16);
    bool line_start = true;
    for (std::size_t at = 0; at < dot.size();) {
        if (line_start && dot.compare(at, 3, "\t\t\"") == 0) {
            const std::size_t end = string_end(at + 2);
            out.append(dot, at, end - at);
            if (end < dot.size() && dot[end] == '\n')
                if (const auto found = by_statement.find(dot.substr(at, end - at)); found != by_statement.end()) {
                    const auto &[name, pools] = found->second;
                    auto attribute = attributes.find(*pools);
                    if (attribute == attributes.end())
                        attribute = attributes.emplace(*pools, dot_attribute(name, *pools, file)).first;
                    out += attribute->second;
                }
            at = end;
            line_start = false;
        } else if (dot[at] == '"') {
            const std::size_t end = string_end(at);
            out.append(dot, at, end - at);
            at = end;
            line_start = false;
        } else {
            line_start = dot[at] == '\n';
            out += dot[at++];
        }
    }
    return out;
}

// Each vertex is a line of libdag's JSON, `    {"id": 1, "name": "a"},`,
// which gets the list before its closing brace.
std::string json_with_pools(const std::string &json, const Needs &needs) {
    static constexpr std::string_view vertex = "    {\"id\": ";
    std::string out;
    for (size_t at = 0; at < json.size();) {
        const size_t end = std::min(json.find('\n', at), json.size() - 1) + 1;
        const std::string_view line(json.data() + at, end - at);
        uint64_t id = 0;
        const bool is_vertex = line.substr(0, vertex.size()) == vertex &&
                               std::from_chars(line.data() + vertex.size(), line.data() + line.size(), id).ec ==
                                   std::errc();
        const auto needed = is_vertex ? needs.find(id) : needs.end();
        if (needed == needs.end()) {
            out += line;
        } else {
            const size_t close = line.rfind('}');
            std::string list;
            // UTF-8 throughout: file_pools.cpp refuses a DOT list that is not.
            for (const std::string &pool : *needed->second)
                list += (list.empty() ? "" : ", ") + nlohmann::json(pool).dump();
            out.append(line.substr(0, close)).append(", \"pools\": [" + list + "]").append(line.substr(close));
        }
        at = end;
    }
    return out;
}

}  // namespace

bool carries_pools(dag_format format) { return format == DAG_FORMAT_DOT || format == DAG_FORMAT_JSON; }

std::string with_pools(const dag_graph *g, const std::string &exported, dag_format format, const FilePools &file) {
    const Needs needs = needs_of(g, file);
    if (needs.empty()) return exported;
    return format == DAG_FORMAT_DOT ? dot_with_pools(g, exported, needs, file)
                                     : json_with_pools(exported, needs);
}

}  // namespace dagcli
