#include "strict_json.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
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

namespace {

// The repeated keys, found by a SAX reading that builds nothing; the text is
// then parsed without a callback, as nlohmann's callback parser scans the
// whole enclosing array at the end of each object (13.7 s for a plan of
// 10^5 vertices). A syntax error stops this reading quietly: the parse
// that follows reports it, before any repeated key met ahead of it (the
// file needs fixing there first).
class RepeatedKeys final : public nlohmann::json::json_sax_t {
public:
    RepeatedKeys(const std::vector<std::string> &checked, const char *const &read) : checked_(checked), read_(read) {}

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override {
        open_.emplace_back();
        return true;
    }
    bool key(string_t &key) override {
        if (!checked_.empty() && std::find(checked_.begin(), checked_.end(), key) == checked_.end()) return true;
        if (!open_.back().insert(key).second && !first_repeat) {
            first_repeat = key;
            // The reader stands just past the key's closing quote.
            repeat_at = read_;
        }
        return true;
    }
    bool end_object() override {
        open_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::json::exception &) override {
        stop = position;
        return false;
    }

    // Where the reading stopped (a byte count), for a number overflow: the
    // exception the parse throws for it (out_of_range.406) gives no place.
    std::size_t stop = 0;
    std::optional<std::string> first_repeat;
    const char *repeat_at = nullptr;

private:
    const std::vector<std::string> &checked_;
    // How far the parser has read, kept up to date by Reading.
    const char *const &read_;
    // The keys met so far in each object open around the reader.
    std::vector<std::set<std::string>> open_;
};

// A pointer into the text that tells how far nlohmann's reading got: the
// SAX interface says which key, not where.
class Reading {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;

    Reading(const char *at, const char **latest) : at_(at), latest_(latest) {}
    const char &operator*() const { return *at_; }
    Reading &operator++() {
        *latest_ = ++at_;
        return *this;
    }
    Reading operator++(int) {
        Reading before = *this;
        ++*this;
        return before;
    }
    bool operator==(const Reading &other) const { return at_ == other.at_; }
    bool operator!=(const Reading &other) const { return at_ != other.at_; }

private:
    const char *at_;
    const char **latest_;
};

// The length of the well-formed UTF-8 character at `at`, or 0.
std::size_t character_at(const std::string &text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const unsigned char c = byte(0);
    if (c < 0x80) return 1;
    const std::size_t length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (length == 0 || text.size() - at < length) return 0;
    // No overlong form, surrogate or code point past U+10FFFF.
    const unsigned char low = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned char high = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (byte(1) < low || byte(1) > high) return 0;
    for (std::size_t i = 2; i < length; ++i)
        if ((byte(i) & 0xC0) != 0x80) return 0;
    return length;
}

// nlohmann's message quotes the bytes it read last as they were: at a byte
// no UTF-8 has, or in a character cut short, the message was no longer
// UTF-8. Such a byte is shown as \xNN, as libdag shows one in its messages.
std::string printable(const std::string &message) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t at = 0; at < message.size();) {
        if (const std::size_t length = character_at(message, at); length > 0) {
            out.append(message, at, length);
            at += length;
        } else {
            const auto c = static_cast<unsigned char>(message[at++]);
            out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
        }
    }
    return out;
}

std::size_t line_at(const std::string &text, std::size_t bytes) {
    const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(bytes, text.size()));
    return 1 + static_cast<std::size_t>(std::count(text.begin(), end, '\n'));
}

}  // namespace

nlohmann::json parse_strict_json(const std::string &text, const std::vector<std::string> &checked) {
    using nlohmann::json;
    // Graph files are transcoded before this (text_decoding.hpp); plans and
    // reports are read as UTF-8 only.
    if (text.rfind(std::string("\xFF\xFE\0\0", 4), 0) == 0 || text.rfind(std::string("\0\0\xFE\xFF", 4), 0) == 0)
        throw JsonProblem{1, "the text is UTF-32 (it begins with a byte-order mark); only UTF-8 is read here"};
    if (text.rfind("\xFF\xFE", 0) == 0 || text.rfind("\xFE\xFF", 0) == 0)
        throw JsonProblem{1, "the text is UTF-16 (it begins with a byte-order mark); only UTF-8 is read here"};
    // nlohmann's reader stops at a NUL as at the end of the text, and would
    // take whatever follows it unread.
    if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
        throw JsonProblem{line_at(text, nul), "NUL character at offset " + std::to_string(nul)};
    const char *read = text.data();
    RepeatedKeys repeated(checked, read);
    const char *end = text.data() + text.size();
    json::sax_parse(Reading(text.data(), &read), Reading(end, &read), &repeated);
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception &e) {
        // A parse_error's byte is 1-based, the byte where reading stopped.
        const auto *syntax = dynamic_cast<const json::parse_error *>(&e);
        const std::size_t at = syntax ? syntax->byte : repeated.stop;
        std::string what = e.what();
        if (const auto tag = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag != std::string::npos)
            what.erase(0, tag + 2);
        throw JsonProblem{line_at(text, at == 0 ? 0 : at - 1), printable(what)};
    }
    if (repeated.first_repeat)
        throw JsonProblem{line_at(text, static_cast<std::size_t>(repeated.repeat_at - text.data())),
                          "\"" + *repeated.first_repeat + "\" is given twice in one object", false};
    return doc;
}

}  // namespace dagcli
