#include "formats/json_format.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/json_fast_reader.hpp"
#include "graph/error.hpp"
#include "graph/utf8.hpp"

namespace dag {
namespace {

using nlohmann::json;

// Ids stay below 2^32 - 1: the algorithms number vertices in 32 bits.
constexpr std::uint64_t max_id = json_max_id;

[[noreturn]] void shape_error(const std::string &where, const std::string &what) {
    throw Error(Errc::parse, "JSON: " + where + ": " + what);
}

std::string counted_vertices(std::size_t n) { return std::to_string(n) + (n == 1 ? " vertex" : " vertices"); }

std::string cut_short(std::string text) {
    if (text.size() > 40) {
        std::size_t cut = 40;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text = text.substr(0, cut) + "...";
    }
    return text;
}

// A value as a message shows it: scalars as written, cut short; arrays and
// objects by kind only, since dumping a deeply nested one recurses as deep.
std::string describe(const json &value) {
    if (value.is_structured()) return std::string("an ") + value.type_name();
    return cut_short(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

// The ids written as integers too wide for 64 bits, which nlohmann reads as
// doubles, by where read_id finds them ("vertices[0].id", "edges[2][1]",
// "next_id"), as written.
using WideIds = std::map<std::string, std::string>;

// `written`: the id as the document wrote it, when WideIds holds it: an
// integer all the same, out of range as 2^64 - 1 is, not a float.
std::uint64_t read_id(const json &value, const std::string &where, const std::string *written = nullptr) {
    if (!value.is_number_integer() && !written)
        shape_error(where, "an id must be an integer, not " + describe(value));
    if (value.is_number_unsigned()) {
        auto id = value.get<std::uint64_t>();
        if (id >= 1 && id <= max_id) return id;
    }
    shape_error(where, "id " + (written ? cut_short(*written) : describe(value)) + " is out of range (1 to " +
                           std::to_string(max_id) + ")");
}

const std::string *wide_id(const WideIds &wide, const std::string &where) {
    const auto it = wide.find(where);
    return it == wide.end() ? nullptr : &it->second;
}

std::uint64_t id_bound(std::size_t vertices) { return json_id_bound(vertices); }

struct Listed {
    std::uint64_t id;
    std::optional<std::string> name;
};

// A key this format reads, given twice in one object: nlohmann keeps the
// last, which would drop the first's vertices or name without a word. Seen
// as a first reading meets the keys (unescaped: "\u0069d" is "id"); the fast
// reader declines such a document, so both readers refuse it. The same
// reading notes where a syntax error or a number overflow stopped it: the
// parser's exception for an overflow (out_of_range.406) gives no place.
// A SAX reading builds nothing, and the document is then parsed without a
// callback: nlohmann's callback parser scans the whole enclosing array at
// the end of each object, quadratic in the number of vertices.
class FirstReading final : public json::json_sax_t {
public:
    std::size_t stop_offset = 0;
    std::size_t stop_token = 0;
    WideIds wide_ids;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t &written) override {
        const std::size_t digits = written.rfind('-', 0) == 0 ? 1 : 0;
        if (written.size() > digits && written.find_first_not_of("0123456789", digits) == std::string::npos)
            if (const std::string where = id_place(); !where.empty()) wide_ids.emplace(where, written);
        return value();
    }
    bool string(string_t &) override { return value(); }
    bool binary(binary_t &) override { return value(); }
    bool start_object(std::size_t) override {
        value();
        if (open_ == 2 && top_key_ == "vertices") {
            vertex_keys_.clear();
            ++vertex_;
        }
        ++open_;
        return true;
    }
    bool key(string_t &key) override {
        if (open_ == 1) {
            top_key_ = key;
            once(top_keys_, key, {"format", "version", "next_id", "vertices", "edges"}, "top level");
        } else if (open_ == 3 && top_key_ == "vertices") {
            vertex_key_ = key;
            once(vertex_keys_, key, {"id", "name"}, "vertices[" + std::to_string(vertex_ - 1) + "]");
        }
        return true;
    }
    bool end_object() override {
        --open_;
        return true;
    }
    bool start_array(std::size_t) override {
        value();
        if (open_ == 2 && top_key_ == "edges") {
            ++edge_;
            end_ = 0;
        }
        ++open_;
        return true;
    }
    bool end_array() override {
        --open_;
        return true;
    }
    bool parse_error(std::size_t position, const std::string &last_token, const json::exception &) override {
        stop_offset = position;
        stop_token = last_token.size();
        return false;
    }

private:
    // Counts the values of an edge's array, as read_edges indexes them.
    bool value() {
        if (open_ == 3 && top_key_ == "edges") ++end_;
        return true;
    }

    // Where read_id would read the value now beginning, or "" where it reads
    // none. Counted by objects (arrays) begun, a vertex's (edge's) place is
    // its index wherever read_id gets that far: read_vertices (read_edges)
    // refuses an earlier element that is not one first.
    std::string id_place() const {
        if (open_ == 1 && top_key_ == "next_id") return "next_id";
        if (open_ == 3 && top_key_ == "vertices" && vertex_key_ == "id")
            return "vertices[" + std::to_string(vertex_ - 1) + "].id";
        if (open_ == 3 && top_key_ == "edges") return "edges[" + std::to_string(edge_ - 1) + "][" + std::to_string(end_) + "]";
        return "";
    }

    static void once(std::vector<std::string> &seen, const std::string &key, std::initializer_list<const char *> read,
                     const std::string &where) {
        if (std::none_of(read.begin(), read.end(), [&](const char *k) { return key == k; })) return;
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            shape_error(where, "key \"" + key + "\" is given twice in one object");
        seen.push_back(key);
    }

    std::size_t open_ = 0;  // objects and arrays open around the reader
    std::string top_key_;
    std::vector<std::string> top_keys_, vertex_keys_;
    std::size_t vertex_ = 0;  // objects begun in "vertices"
    std::string vertex_key_;  // the last key of the vertex object open
    std::size_t edge_ = 0;    // arrays begun in "edges"
    std::size_t end_ = 0;     // values begun in the edge's array open
};

std::vector<Listed> read_vertices(const json &doc, const WideIds &wide) {
    auto it = doc.find("vertices");
    if (it == doc.end()) shape_error("top level", "no \"vertices\" array");
    if (!it->is_array()) shape_error("vertices", "must be an array");
    std::vector<Listed> listed;
    listed.reserve(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json &v = (*it)[i];
        const std::string where = "vertices[" + std::to_string(i) + "]";
        if (!v.is_object()) shape_error(where, "must be an object");
        auto id = v.find("id");
        if (id == v.end()) shape_error(where, "no \"id\"");
        Listed entry{read_id(*id, where + ".id", wide_id(wide, where + ".id")), std::nullopt};
        if (auto name = v.find("name"); name != v.end()) {
            if (!name->is_string()) shape_error(where + ".name", "must be a string");
            entry.name = name->get<std::string>();
            // The graph's own message speaks to C callers, and names no vertex.
            if (entry.name->empty())
                throw Error(Errc::invalid_argument,
                            "JSON: " + where + ".name: is empty (leave \"name\" out for an unnamed vertex)");
            if (entry.name->find('\0') != std::string::npos)
                shape_error(where + ".name", "holds a NUL character, which no C string can carry");
        }
        listed.push_back(std::move(entry));
    }
    std::sort(listed.begin(), listed.end(), [](const Listed &a, const Listed &b) { return a.id < b.id; });
    for (std::size_t i = 1; i < listed.size(); ++i)
        if (listed[i].id == listed[i - 1].id)
            shape_error("vertices", "id " + std::to_string(listed[i].id) + " is listed twice");
    if (!listed.empty()) {
        const std::uint64_t bound = id_bound(listed.size());
        if (listed.back().id > bound)
            shape_error("vertices", "id " + std::to_string(listed.back().id) + " is too large for " +
                                        counted_vertices(listed.size()) + " (at most " + std::to_string(bound) + ")");
    }
    return listed;
}

std::vector<VertexId> read_edges(const json &doc, const Graph &g, const WideIds &wide) {
    std::vector<VertexId> pairs;
    auto it = doc.find("edges");
    if (it == doc.end()) return pairs;
    if (!it->is_array()) shape_error("edges", "must be an array");
    pairs.reserve(2 * it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json &e = (*it)[i];
        const std::string where = "edges[" + std::to_string(i) + "]";
        if (!e.is_array() || e.size() != 2) shape_error(where, "must be an array of two ids [from, to]");
        for (std::size_t end = 0; end < 2; ++end) {
            const VertexId id = read_id(e[end], where, wide_id(wide, where + "[" + std::to_string(end) + "]"));
            if (!g.has_vertex(id)) shape_error(where, "vertex id " + std::to_string(id) + " is not listed");
            pairs.push_back(id);
        }
    }
    return pairs;
}

}  // namespace

std::string json_quoted(const std::string &s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::strict);
}

// The id the graph issues next: removed ids at the end are used up too, and
// an exact copy must not hand them out again.
std::uint64_t read_next_id(const json &doc, std::uint64_t largest, std::size_t vertices, const WideIds &wide) {
    auto it = doc.find("next_id");
    if (it == doc.end()) return largest + 1;
    const std::uint64_t next = read_id(*it, "next_id", wide_id(wide, "next_id"));
    if (next <= largest)
        shape_error("next_id", std::to_string(next) + " is not above the largest id, " + std::to_string(largest));
    if (next - 1 > id_bound(vertices))
        shape_error("next_id", std::to_string(next) + " is too large for " + counted_vertices(vertices) + " (at most " +
                                   std::to_string(id_bound(vertices) + 1) + ")");
    return next;
}

std::string write_json(const Graph &g) {
    std::string out = "{\n  \"format\": \"libdag\",\n  \"version\": 1,\n  \"next_id\": " +
                      std::to_string(g.index_bound() + 1) + ",\n  \"vertices\": [";
    const char *sep = "\n    ";
    for (VertexId id : g.vertices()) {
        out += sep;
        out += "{\"id\": " + std::to_string(id);
        if (const std::optional<std::string_view> name = g.name(id)) out += ", \"name\": " + json_quoted(std::string(*name));
        out += '}';
        sep = ",\n    ";
    }
    out += g.vertex_count() ? "\n  ],\n  \"edges\": [" : "],\n  \"edges\": [";
    sep = "\n    ";
    for (auto [from, to] : g.edges()) {
        out += sep;
        out += '[' + std::to_string(from) + ", " + std::to_string(to) + ']';
        sep = ",\n    ";
    }
    out += g.edge_count() ? "\n  ]\n}\n" : "]\n}\n";
    return out;
}

void read_json(const std::string &text, Graph &out) {
    if (!read_json_fast(text, out)) read_json_checked(text, out);
}

namespace {

// "line L, column C" of the token that ends before `offset`, counted as
// nlohmann counts a syntax error's: lines from 1, columns in bytes from 1.
std::string place_before(std::string_view text, std::size_t offset, std::size_t token) {
    const std::size_t begin = std::min(text.size(), offset - std::min(offset, token));
    const std::string_view before = text.substr(0, begin);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t newline = before.rfind('\n');
    const std::size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(begin - line_start + 1);
}

}  // namespace

void read_json_checked(std::string_view text, Graph &out) {
    FirstReading first;
    json::sax_parse(text.begin(), text.end(), &first);
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception &e) {
        // A syntax error ("[json.exception.parse_error.101] parse error at
        // line 1, column 5: ..."), or a number too large for a double
        // ("[json.exception.out_of_range.406] number overflow parsing
        // '1e310'"), which is given its place in the same words. The
        // library's tag is dropped.
        std::string what = e.what();
        if (auto close = what.find("] "); what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
            what.erase(0, close + 2);
        if (e.id == 406) what = "parse error at " + place_before(text, first.stop_offset, first.stop_token) + ": " + what;
        throw Error(Errc::parse, "JSON: " + printable_utf8(what));
    }
    if (!doc.is_object()) shape_error("top level", "must be an object");
    if (auto f = doc.find("format"); f != doc.end() && *f != "libdag")
        shape_error("format", "must be \"libdag\", not " + describe(*f));
    if (auto v = doc.find("version"); v != doc.end() && !(v->is_number_integer() && *v == 1))
        shape_error("version", "this library reads version 1, not " + describe(*v));

    const std::vector<Listed> listed = read_vertices(doc, first.wide_ids);
    std::vector<VertexId> gaps;
    VertexId next = 1;
    for (const Listed &v : listed) {
        for (; next < v.id; ++next) gaps.push_back(out.add_vertex(std::nullopt, nullptr));
        out.add_vertex(v.name ? std::optional<std::string_view>(*v.name) : std::nullopt, nullptr);
        ++next;
    }
    const std::uint64_t next_id = read_next_id(doc, listed.empty() ? 0 : listed.back().id, listed.size(), first.wide_ids);
    for (; next < next_id; ++next) gaps.push_back(out.add_vertex(std::nullopt, nullptr));
    for (VertexId gap : gaps) out.remove_vertex(gap);
    const std::vector<VertexId> pairs = read_edges(doc, out, first.wide_ids);
    out.connect_many(pairs.data(), pairs.size() / 2);
}

}  // namespace dag
