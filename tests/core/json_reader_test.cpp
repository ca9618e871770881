// JSON import has two readers: simdjson's fast path and the checking reader
// behind it. Whatever the fast path takes must give the graph the checking
// reader gives; whatever it declines must leave the graph untouched, so the
// checking reader's answer (a graph or its message) is the only one users see.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "formats/json_fast_reader.hpp"
#include "formats/json_format.hpp"
#include "graph/error.hpp"

namespace {

struct Outcome {
    std::optional<std::string> graph;  // write_json of what was read
    std::string message;
    int code = -1;
};

template <class Read>
Outcome outcome_of(const std::string &text, Read read) {
    Outcome o;
    try {
        dag::Graph g;
        read(text, g);
        o.graph = dag::write_json(g);
    } catch (const dag::Error &e) {
        o.message = e.what();
        o.code = static_cast<int>(e.code());
    }
    return o;
}

void expect_same_as_checking_reader(const std::string &text, bool fast_takes_it) {
    SCOPED_TRACE(text.substr(0, 300));
    dag::Graph fast;
    bool took = false;
    std::optional<std::string> fast_error;
    try {
        took = dag::read_json_fast(text, fast);
    } catch (const dag::Error &e) {
        fast_error = e.what();
    }
    EXPECT_EQ(took || fast_error.has_value(), fast_takes_it);
    if (!took && !fast_error) {
        EXPECT_EQ(fast.index_bound(), 0u);
        EXPECT_EQ(fast.vertex_count(), 0u);
    }
    const Outcome checked = outcome_of(text, dag::read_json_checked);
    const Outcome both = outcome_of(text, dag::read_json);
    EXPECT_EQ(both.graph, checked.graph);
    EXPECT_EQ(both.message, checked.message);
    EXPECT_EQ(both.code, checked.code);
    if (took) { EXPECT_EQ(checked.graph, dag::write_json(fast)); }
    if (fast_error) { EXPECT_EQ(*fast_error, checked.message); }
}

std::string random_name(std::mt19937 &rng, std::size_t i) {
    static const std::vector<std::string> parts = {"module.", "aws_instance", "[\\\"a\\\\\\\"b\\\"]", "\\\\", "\\n",
                                                   "\\u00e9", "\xc3\xa9", "\\ud83d\\ude00", "\\/", "x"};
    std::string name = "n" + std::to_string(i);
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) name += parts[rng() % parts.size()];
    return name;
}

// A document as a user might write it: ids in any order and with gaps,
// optional keys left out or extra ones added, spacing of any kind.
std::string random_document(std::mt19937 &rng) {
    const std::size_t n = rng() % 40;
    std::vector<std::uint64_t> ids;
    std::uint64_t id = 0;
    for (std::size_t i = 0; i < n; ++i) ids.push_back(id += 1 + (rng() % 4 == 0 ? rng() % 5 : 0));
    std::vector<std::uint64_t> shuffled = ids;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const char *space = rng() % 2 ? " " : "\n\t ";
    std::string doc = "{";
    if (rng() % 2) doc += "\"format\":\"libdag\",";
    if (rng() % 2) doc += std::string("\"version\":") + space + "1,";
    if (rng() % 3 == 0) doc += "\"comment\": {\"id\": 5, \"nested\": [1, 2, {}]},";
    if (rng() % 2) doc += "\"next_id\": " + std::to_string(id + 1 + rng() % 3) + ",";
    doc += "\"vertices\": [";
    for (std::size_t i = 0; i < shuffled.size(); ++i) {
        doc += i ? "," : "";
        doc += std::string("{") + space + "\"id\": " + std::to_string(shuffled[i]);
        if (rng() % 4) doc += ", \"name\": \"" + random_name(rng, shuffled[i]) + "\"";
        if (rng() % 5 == 0) doc += ", \"extra\": null";
        doc += "}";
    }
    doc += "]";
    if (rng() % 4) {
        doc += ", \"edges\": [";
        for (std::size_t e = 0; n > 0 && e < 3 * n; ++e) {
            doc += e ? ", " : "";
            doc += "[" + std::to_string(ids[rng() % n]) + "," + space + std::to_string(ids[rng() % n]) + "]";
        }
        doc += "]";
    }
    return doc + "}";
}

TEST(JsonReaders, TheFastPathBuildsWhatTheCheckingReaderBuilds) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 300; ++trial) expect_same_as_checking_reader(random_document(rng), true);
}

TEST(JsonReaders, WhatLibdagWritesIsTakenByTheFastPath) {
    dag::Graph g;
    for (int i = 0; i < 50; ++i) g.add_vertex(i % 3 ? std::optional<std::string_view>("v" + std::to_string(i)) : std::nullopt, nullptr);
    for (dag::VertexId v = 2; v <= 50; ++v) g.connect(v, v / 2);
    g.remove_vertex(7);
    g.remove_vertex(50);
    expect_same_as_checking_reader(dag::write_json(g), true);
}

TEST(JsonReaders, EveryRefusalKeepsTheCheckingReadersMessage) {
    const std::vector<std::string> declined = {
        "",
        "   ",
        "{\"vertices\": [{\"id\": 1}]",
        "{\"vertices\": [{\"id\": 1}]} trailing",
        "[1, 2]",
        "{}",
        "{\"vertices\": {}}",
        "{\"vertices\": [1]}",
        "{\"vertices\": [{\"name\": \"a\"}]}",
        "{\"vertices\": [{\"id\": 0}]}",
        "{\"vertices\": [{\"id\": -1}]}",
        "{\"vertices\": [{\"id\": 1.0}]}",
        "{\"vertices\": [{\"id\": 1e2}]}",
        "{\"vertices\": [{\"id\": \"1\"}]}",
        "{\"vertices\": [{\"id\": 4294967295}]}",
        "{\"vertices\": [{\"id\": 18446744073709551616}]}",
        "{\"vertices\": [{\"id\": 1, \"id\": 2}]}",
        "{\"vertices\": [{\"id\": 1, \"name\": \"a\", \"name\": \"b\"}]}",
        "{\"vertices\": [{\"id\": 1}], \"vertices\": [{\"id\": 2}]}",
        "{\"vertices\": [{\"id\": 1, \"name\": 5}]}",
        "{\"vertices\": [{\"id\": 1, \"name\": \"a\\u0000b\"}]}",
        "{\"vertices\": [{\"id\": 1, \"name\": \"\xff\"}]}",
        "{\"vertices\": [{\"id\": 1, \"name\": \"\\ud800\"}]}",
        "{\"vertices\": [{\"id\": 1}, {\"id\": 1}]}",
        "{\"vertices\": [{\"id\": 1}, {\"id\": 70000000}]}",
        "{\"vertices\": [{\"id\": 3}], \"next_id\": 2}",
        "{\"vertices\": [{\"id\": 3}], \"next_id\": 99999999}",
        "{\"vertices\": [{\"id\": 3}], \"next_id\": \"4\"}",
        "{\"vertices\": [{\"id\": 1}], \"edges\": {}}",
        "{\"vertices\": [{\"id\": 1}], \"edges\": [[1]]}",
        "{\"vertices\": [{\"id\": 1}], \"edges\": [[1, 1, 1]]}",
        "{\"vertices\": [{\"id\": 1}], \"edges\": [[1, 2]]}",
        "{\"vertices\": [{\"id\": 1}, {\"id\": 3}], \"edges\": [[1, 2]]}",
        "{\"vertices\": [{\"id\": 1}], \"edges\": [[1, \"1\"]]}",
        "{\"format\": \"other\", \"vertices\": []}",
        "{\"format\": 1, \"vertices\": []}",
        "{\"version\": 2, \"vertices\": []}",
        // A malformed value under a key the fast path does not use: simdjson
        // would skip it unread.
        "{\"comment\": [1 2], \"vertices\": []}",
        "{\"vertices\": [{\"id\": 1, \"extra\": {\"a\" 1}}]}",
        "{\"vertices\": [], \"extra\": tru}",
        "{\"vertices\": [], \"extra\": [1,]}",
        "{\"vertices\": [], \"extra\": 1.2.3}",
        // A malformed escape in a key the fast path does not use (found by
        // json_readers_fuzzer).
        "{\"format\": \"libdag\", \"format\\version\": 1, \"vertices\": []}",
        "{\"vertices\": [{\"id\": 1, \"x\\q\": 1}]}",
        "{\"vertices\": [], \"x\": {\"\\u12\": 1}}",
        // A key the fast path uses, spelled with an escape after the plain
        // one: the checking reader keeps the last.
        "{\"vertices\": [{\"id\": 1}], \"\\u0076ertices\": [{\"id\": 2}]}",
        "{\"vertices\": [{\"id\": 1, \"\\u0069d\": 2}]}",
        // Taken by the checking reader, left to it by the fast path.
        "{\"version\": 1.0, \"vertices\": [{\"id\": 1}]}",
        "{\"vertices\": [{\"\\u0069d\": 1}]}",
        "\xef\xbb\xbf{\"vertices\": [{\"id\": 1}]}",
    };
    for (const std::string &text : declined) expect_same_as_checking_reader(text, false);
}

TEST(JsonReaders, TheFastPathTakesKeysInAnyOrderAndValuesItDoesNotUse) {
    for (const std::string text :
         {"{\"edges\": [[2, 1]], \"vertices\": [{\"name\": \"b\", \"id\": 2}, {\"id\": 1}], \"next_id\": 3}",
          "{\"x\": {\"y\": [true, false, null, -1.5e3, \"s\\n\", {}, []]}, \"vertices\": [{\"id\": 1, \"z\": [[]]}]}"})
        expect_same_as_checking_reader(text, true);
}

TEST(JsonReaders, ValuesNestedDeeperThanTheFastPathRecursesGoToTheCheckingReader) {
    // 70,000 levels overflowed the fast path's stack; a few levels it reads.
    const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
    expect_same_as_checking_reader("{\"vertices\": [{\"id\": 1, \"x\": " + nested(70000) + "}]}", false);
    expect_same_as_checking_reader("{\"x\": " + nested(70000) + ", \"vertices\": [{\"id\": 1}]}", false);
    expect_same_as_checking_reader("{\"x\": " + nested(200) + ", \"vertices\": [{\"id\": 1}]}", true);
}

TEST(JsonReaders, TheGraphsOwnErrorsComeFromTheFastPathAsFromTheCheckingReader) {
    expect_same_as_checking_reader("{\"vertices\": [{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, \"name\": \"a\"}]}", true);
    // An empty name is the checking reader's to tell: its message names the
    // vertex, where the graph's speaks to C callers.
    expect_same_as_checking_reader("{\"vertices\": [{\"id\": 1, \"name\": \"\"}]}", false);
}

}  // namespace
