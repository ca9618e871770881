#include "strict_json.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace dagcli {

nlohmann::json parse_strict_json(const std::string &text, const std::vector<std::string> &checked) {
    using nlohmann::json;
    // The keys met so far in each object open around the parser.
    std::vector<std::set<std::string>> open;
    auto once = [&open, &checked](int, json::parse_event_t event, json &parsed) {
        if (event == json::parse_event_t::object_start) open.emplace_back();
        if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
        if (event != json::parse_event_t::key || open.empty()) return true;
        const auto &key = parsed.get_ref<const std::string &>();
        if (!checked.empty() && std::find(checked.begin(), checked.end(), key) == checked.end()) return true;
        if (!open.back().insert(key).second) throw JsonProblem{0, "\"" + key + "\" is given twice in one object"};
        return true;
    };
    try {
        return json::parse(text, once);
    } catch (const json::parse_error &e) {
        // e.byte is 1-based, the byte where reading stopped.
        const std::size_t stop = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(stop), '\n');
        std::string what = e.what();
        if (const auto tag = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag != std::string::npos)
            what.erase(0, tag + 2);
        throw JsonProblem{static_cast<std::size_t>(line), what};
    }
}

}  // namespace dagcli
