#include "formats/json_fast_reader.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/json_format.hpp"
#include "formats/text_encoding.hpp"
#include "graph/error.hpp"

namespace dag {
namespace {

namespace od = simdjson::ondemand;

static_assert(text_padding >= simdjson::SIMDJSON_PADDING, "decoded text is padded for simdjson");

// As the checking reader: ids stay below 2^32 - 1, and gaps in the ids are
// bounded by the number of vertices.
constexpr std::uint64_t max_id = json_max_id;
std::uint64_t id_bound(std::size_t vertices) { return json_id_bound(vertices); }

// An id: a JSON integer from 1 to max_id. A number written any other way
// (1.0, 1e0, -0) fails get_uint64 and goes to the checking reader.
template <class Value>
bool read_id(Value &&value, std::uint64_t &id) {
    return !value.get_uint64().get(id) && id >= 1 && id <= max_id;
}

// Keys are compared as written: one spelled with an escape ("\u0069d") or
// repeated leaves the document to the checking reader.
bool key_is(const od::raw_json_string &key, std::string_view name) { return key.is_equal(name); }

// A value under a key this reader does not use, read to its end: simdjson
// skips what it is not asked for without checking it, and the checking
// reader refuses a malformed value wherever it is.
//
// Recursive, so a value nested deeper than `max_nesting` declines the
// document (the checking reader reads any depth without recursing): 70,000
// levels of brackets overflowed the stack.
constexpr int max_nesting = 256;

bool consume_field(od::field &field, std::initializer_list<std::string_view> known = {}, int depth = 0);

bool consume(od::value value, int depth) {
    if (depth > max_nesting) return false;
    od::json_type type;
    if (value.type().get(type)) return false;
    switch (type) {
    case od::json_type::object: {
        od::object object;
        if (value.get_object().get(object)) return false;
        for (auto field_result : object) {
            od::field field;
            if (std::move(field_result).get(field) || !consume_field(field, {}, depth + 1)) return false;
        }
        return true;
    }
    case od::json_type::array: {
        od::array array;
        if (value.get_array().get(array)) return false;
        for (auto element : array) {
            od::value item;
            if (std::move(element).get(item) || !consume(item, depth + 1)) return false;
        }
        return true;
    }
    case od::json_type::string: {
        std::string_view text;
        return !value.get_string().get(text);
    }
    case od::json_type::number: {
        od::number number;
        return !value.get_number().get(number);
    }
    case od::json_type::boolean: {
        bool b = false;
        return !value.get_bool().get(b);
    }
    case od::json_type::null: {
        bool null = false;
        return !value.is_null().get(null) && null;
    }
    }
    return false;
}

// A field under a key this reader does not use: its key unescaped (which
// checks its escapes) and its value read to its end. A key that spells one
// of the `known` ones with an escape ("\u0069d") declines the document: the
// checking reader would read it as that key.
bool consume_field(od::field &field, std::initializer_list<std::string_view> known, int depth) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    for (std::string_view k : known)
        if (key == k) return false;
    return consume(field.value(), depth);
}

struct Listed {
    std::uint64_t id;
    std::uint32_t name_at;  // offset in the names' bytes, or none
};
constexpr std::uint32_t no_name = ~std::uint32_t{0};

// The document as read: vertices (ids, names copied with a NUL after each,
// which add_vertices wants and simdjson's strings lack), edges as ids.
struct Document {
    bool have_vertices = false, have_edges = false, have_format = false, have_version = false;
    std::optional<std::uint64_t> next_id;
    std::vector<Listed> listed;
    std::string names;
    std::vector<VertexId> pairs;
};

bool read_vertex(od::value v, Document &d) {
    od::object object;
    if (v.get_object().get(object)) return false;
    bool have_id = false, have_name = false;
    Listed entry{0, no_name};
    for (auto field_result : object) {
        od::field field;
        if (std::move(field_result).get(field)) return false;
        const od::raw_json_string key = field.key();
        if (key_is(key, "id")) {
            if (have_id || !read_id(field.value(), entry.id)) return false;
            have_id = true;
        } else if (key_is(key, "name")) {
            std::string_view text;
            if (have_name || field.value().get_string().get(text) || text.empty() ||
                text.find('\0') != std::string_view::npos)
                return false;
            have_name = true;
            if (d.names.size() + text.size() + 1 > no_name) return false;
            entry.name_at = static_cast<std::uint32_t>(d.names.size());
            d.names.append(text);
            d.names.push_back('\0');
        } else if (!consume_field(field, {"id", "name"})) {
            return false;
        }
    }
    if (!have_id) return false;
    d.listed.push_back(entry);
    return true;
}

bool read_vertices(od::value v, Document &d) {
    od::array array;
    if (v.get_array().get(array)) return false;
    for (auto element : array) {
        od::value vertex;
        if (std::move(element).get(vertex) || !read_vertex(vertex, d)) return false;
    }
    return true;
}

bool read_edges(od::value v, Document &d) {
    od::array array;
    if (v.get_array().get(array)) return false;
    for (auto element : array) {
        od::array pair;
        if (element.get_array().get(pair)) return false;
        int ends = 0;
        for (auto end : pair) {
            std::uint64_t id = 0;
            if (++ends > 2 || !read_id(end, id)) return false;
            d.pairs.push_back(id);
        }
        if (ends != 2) return false;
    }
    return true;
}

bool read_document(od::document &doc, Document &d) {
    od::object top;
    if (doc.get_object().get(top)) return false;
    for (auto field_result : top) {
        od::field field;
        if (std::move(field_result).get(field)) return false;
        const od::raw_json_string key = field.key();
        if (key_is(key, "format")) {
            std::string_view name;
            if (d.have_format || field.value().get_string().get(name) || name != "libdag") return false;
            d.have_format = true;
        } else if (key_is(key, "version")) {
            std::uint64_t version = 0;
            if (d.have_version || !read_id(field.value(), version) || version != 1) return false;
            d.have_version = true;
        } else if (key_is(key, "next_id")) {
            std::uint64_t next = 0;
            if (d.next_id || !read_id(field.value(), next)) return false;
            d.next_id = next;
        } else if (key_is(key, "vertices")) {
            if (d.have_vertices || !read_vertices(field.value(), d)) return false;
            d.have_vertices = true;
        } else if (key_is(key, "edges")) {
            if (d.have_edges || !read_edges(field.value(), d)) return false;
            d.have_edges = true;
        } else if (!consume_field(field, {"format", "version", "next_id", "vertices", "edges"})) {
            return false;
        }
    }
    // Nothing may follow the object: at the end, simdjson has no location.
    return d.have_vertices && doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

bool is_listed(const std::vector<Listed> &listed, std::uint64_t id) {
    auto it = std::lower_bound(listed.begin(), listed.end(), id,
                               [](const Listed &l, std::uint64_t wanted) { return l.id < wanted; });
    return it != listed.end() && it->id == id;
}

}  // namespace

bool read_json_fast(const std::string &text, Graph &out) {
    od::parser parser;
    od::document doc;
    // simdjson reads a string in place when its spare capacity holds the
    // padding (decoded text always has it), and a padded copy otherwise.
    const bool padded = text.capacity() - text.size() >= simdjson::SIMDJSON_PADDING;
    simdjson::padded_string copy;
    if (!padded) copy = simdjson::padded_string(text);
    if ((padded ? parser.iterate(text) : parser.iterate(copy)).get(doc)) return false;
    Document d;
    if (!read_document(doc, d)) return false;

    std::vector<Listed> &listed = d.listed;
    // Listed in id order already (what dag_export_graph writes) needs no sort.
    if (!std::is_sorted(listed.begin(), listed.end(), [](const Listed &a, const Listed &b) { return a.id < b.id; }))
        std::sort(listed.begin(), listed.end(), [](const Listed &a, const Listed &b) { return a.id < b.id; });
    for (std::size_t i = 1; i < listed.size(); ++i)
        if (listed[i].id == listed[i - 1].id) return false;
    if (!listed.empty() && listed.back().id > id_bound(listed.size())) return false;
    const std::uint64_t largest = listed.empty() ? 0 : listed.back().id;
    std::uint64_t next = largest + 1;
    if (d.next_id) {
        if (*d.next_id <= largest || *d.next_id - 1 > id_bound(listed.size())) return false;
        next = *d.next_id;
    }
    // Ids listed densely from 1 (what dag_export_graph writes of a graph
    // without removals) are checked by range, not by search.
    const bool dense = largest == listed.size();
    for (VertexId id : d.pairs)
        if (dense ? id > listed.size() : !is_listed(listed, id)) return false;

    auto name_of = [&](const Listed &v) { return v.name_at == no_name ? nullptr : d.names.data() + v.name_at; };
    // From here on the document is known good: the graph is built as the
    // checking reader builds it, gaps in the ids as removed vertices.
    // Ids 1..n without gaps take one batch add. Its error messages name the
    // batch position; on any refusal (a repeated name) the graph is
    // unchanged and the vertex-by-vertex build below gives the checking
    // reader's message.
    if (dense && next == largest + 1) {
        std::vector<const char *> names(listed.size());
        for (std::size_t i = 0; i < listed.size(); ++i) names[i] = name_of(listed[i]);
        bool added = false;
        try {
            out.add_vertices(names.data(), nullptr, names.size());
            added = true;
        } catch (const Error &) {
        }
        if (added) {
            out.connect_many(d.pairs.data(), d.pairs.size() / 2);
            return true;
        }
    }
    std::vector<VertexId> gaps;
    VertexId id = 1;
    for (const Listed &v : listed) {
        for (; id < v.id; ++id) gaps.push_back(out.add_vertex(std::nullopt, nullptr));
        const char *name = name_of(v);
        out.add_vertex(name ? std::optional<std::string_view>(name) : std::nullopt, nullptr);
        ++id;
    }
    for (; id < next; ++id) gaps.push_back(out.add_vertex(std::nullopt, nullptr));
    for (VertexId gap : gaps) out.remove_vertex(gap);
    out.connect_many(d.pairs.data(), d.pairs.size() / 2);
    return true;
}

}  // namespace dag
