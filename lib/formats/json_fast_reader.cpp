#include "formats/json_fast_reader.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "formats/text_encoding.hpp"
#include "graph/error.hpp"

namespace dag {
namespace {

namespace dom = simdjson::dom;

static_assert(text_padding >= simdjson::SIMDJSON_PADDING, "decoded text is padded for simdjson");

// As the checking reader: ids stay below 2^32 - 1, and gaps in the ids are
// bounded by the number of vertices.
constexpr std::uint64_t max_id = 0xFFFFFFFEull;
std::uint64_t id_bound(std::size_t vertices) { return 16 * static_cast<std::uint64_t>(vertices) + 65536; }

std::optional<std::uint64_t> id_of(dom::element e) {
    std::uint64_t id = 0;
    const auto type = e.type();
    if (type != dom::element_type::UINT64 && type != dom::element_type::INT64) return std::nullopt;
    if (e.get_uint64().get(id) != simdjson::SUCCESS || id < 1 || id > max_id) return std::nullopt;
    return id;
}

// The checking reader keeps the last of two equal keys, simdjson finds the
// first: a document that repeats a key this reader looks at goes there.
bool find_once(dom::object object, std::string_view key, std::optional<dom::element> &out) {
    out.reset();
    for (dom::key_value_pair field : object) {
        if (field.key != key) continue;
        if (out) return false;
        out = field.value;
    }
    return true;
}

struct Listed {
    std::uint64_t id;
    std::optional<std::string_view> name;
};

bool read_vertices(dom::element vertices, std::vector<Listed> &listed) {
    dom::array array;
    if (vertices.get_array().get(array) != simdjson::SUCCESS) return false;
    listed.reserve(array.size());
    for (dom::element v : array) {
        dom::object object;
        if (v.get_object().get(object) != simdjson::SUCCESS) return false;
        std::optional<dom::element> id, name;
        if (!find_once(object, "id", id) || !find_once(object, "name", name) || !id) return false;
        const std::optional<std::uint64_t> value = id_of(*id);
        if (!value) return false;
        Listed entry{*value, std::nullopt};
        if (name) {
            std::string_view text;
            if (name->get_string().get(text) != simdjson::SUCCESS || text.find('\0') != std::string_view::npos)
                return false;
            entry.name = text;
        }
        listed.push_back(entry);
    }
    std::sort(listed.begin(), listed.end(), [](const Listed &a, const Listed &b) { return a.id < b.id; });
    for (std::size_t i = 1; i < listed.size(); ++i)
        if (listed[i].id == listed[i - 1].id) return false;
    return listed.empty() || listed.back().id <= id_bound(listed.size());
}

bool is_listed(const std::vector<Listed> &listed, std::uint64_t id) {
    auto it = std::lower_bound(listed.begin(), listed.end(), id,
                               [](const Listed &l, std::uint64_t wanted) { return l.id < wanted; });
    return it != listed.end() && it->id == id;
}

bool read_edges(dom::element edges, const std::vector<Listed> &listed, std::vector<VertexId> &pairs) {
    dom::array array;
    if (edges.get_array().get(array) != simdjson::SUCCESS) return false;
    pairs.reserve(2 * array.size());
    // Ids listed densely from 1 (what dag_export_graph writes of a graph
    // without removals) are checked by range, not by search.
    const bool dense = listed.empty() || listed.back().id == listed.size();
    for (dom::element e : array) {
        dom::array pair;
        if (e.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2) return false;
        for (dom::element end : pair) {
            const std::optional<std::uint64_t> id = id_of(end);
            if (!id || (dense ? *id > listed.size() : !is_listed(listed, *id))) return false;
            pairs.push_back(*id);
        }
    }
    return true;
}

}  // namespace

bool read_json_fast(const std::string &text, Graph &out) {
    // simdjson reads a string in place when its spare capacity holds the
    // padding, and copies it otherwise.
    dom::parser parser;
    dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) return false;
    dom::object top;
    if (doc.get_object().get(top) != simdjson::SUCCESS) return false;
    std::optional<dom::element> format, version, vertices, next_id, edges;
    if (!find_once(top, "format", format) || !find_once(top, "version", version) ||
        !find_once(top, "vertices", vertices) || !find_once(top, "next_id", next_id) || !find_once(top, "edges", edges))
        return false;
    std::string_view format_name;
    if (format && (format->get_string().get(format_name) != simdjson::SUCCESS || format_name != "libdag")) return false;
    if (version && id_of(*version) != std::optional<std::uint64_t>(1)) return false;
    if (!vertices) return false;

    std::vector<Listed> listed;
    if (!read_vertices(*vertices, listed)) return false;
    const std::uint64_t largest = listed.empty() ? 0 : listed.back().id;
    std::uint64_t next = largest + 1;
    if (next_id) {
        const std::optional<std::uint64_t> value = id_of(*next_id);
        if (!value || *value <= largest || *value - 1 > id_bound(listed.size())) return false;
        next = *value;
    }
    std::vector<VertexId> pairs;
    if (edges && !read_edges(*edges, listed, pairs)) return false;

    // From here on the document is known good: the graph is built as the
    // checking reader builds it, gaps in the ids as removed vertices.
    // Ids 1..n without gaps (what dag_export_graph writes of a graph with
    // no removals) take one batch add. Its error messages name the batch
    // position; on any refusal (a repeated name) the graph is unchanged and
    // the vertex-by-vertex build below gives the checking reader's message.
    if (largest == listed.size() && next == largest + 1) {
        std::vector<const char *> names(listed.size());
        // simdjson's strings end in a NUL (dom::element::get_c_str).
        for (std::size_t i = 0; i < listed.size(); ++i) names[i] = listed[i].name ? listed[i].name->data() : nullptr;
        bool added = false;
        try {
            out.add_vertices(names.data(), nullptr, names.size());
            added = true;
        } catch (const Error &) {
        }
        if (added) {
            out.connect_many(pairs.data(), pairs.size() / 2);
            return true;
        }
    }
    std::vector<VertexId> gaps;
    VertexId id = 1;
    for (const Listed &v : listed) {
        for (; id < v.id; ++id) gaps.push_back(out.add_vertex(std::nullopt, nullptr));
        out.add_vertex(v.name, nullptr);
        ++id;
    }
    for (; id < next; ++id) gaps.push_back(out.add_vertex(std::nullopt, nullptr));
    for (VertexId gap : gaps) out.remove_vertex(gap);
    out.connect_many(pairs.data(), pairs.size() / 2);
    return true;
}

}  // namespace dag
