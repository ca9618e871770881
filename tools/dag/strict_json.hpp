// JSON as dag reads its own files (a build plan, a walk's report): a key
// given twice in one object is refused, where nlohmann keeps the last and
// would drop the first one's data (an edge, a list of vertices) unseen.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dagcli {

struct JsonProblem {
    // 1-based.
    std::size_t line = 0;
    std::string what;
    // False for a key given twice in text that is otherwise valid JSON.
    bool syntax = true;
};

// `text` parsed, or a JsonProblem saying why not and on which line: the
// parser's reason (without nlohmann's "[json.exception...]" tag), or the
// first key given twice when the text is otherwise valid. `checked`
// lists the keys that may not repeat; empty, none may.
nlohmann::json parse_strict_json(const std::string &text, const std::vector<std::string> &checked = {});

// `value` as an error message quotes it: its JSON text, as dump() writes
// it, cut short ("...") past three levels of nesting and past 200 bytes.
// dump() itself recurses as deep as the file nests (it crashed dag at
// 200,000 levels) and quotes a value whole, however large.
std::string shown_json(const nlohmann::json &value);

}  // namespace dagcli
