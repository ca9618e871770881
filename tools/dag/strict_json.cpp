#include "strict_json.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace dagcli {
namespace {

constexpr std::size_t shown_bytes = 200;
constexpr int shown_levels = 3;

void show(const nlohmann::json &value, int level, std::string &out) {
    if (!value.is_structured()) {
        out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
    }
    const bool object = value.is_object();
    out += object ? '{' : '[';
    if (!value.empty() && level >= shown_levels) out += "...";
    bool first = true;
    for (auto it = value.begin(); level < shown_levels && it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        if (out.size() > shown_bytes) {
            out += "...";
            break;
        }
        if (object) out += nlohmann::json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ":";
        show(*it, level + 1, out);
    }
    out += object ? '}' : ']';
}

}  // namespace

std::string shown_json(const nlohmann::json &value) {
    std::string out;
    show(value, 0, out);
    if (out.size() > shown_bytes + 3) {
        std::size_t cut = shown_bytes;
        // Not inside a character's UTF-8 bytes.
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
        out.erase(cut);
        out += "...";
    }
    return out;
}

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
