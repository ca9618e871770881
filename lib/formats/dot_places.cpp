#include "formats/dot_places.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace dag::dot_places {
namespace {

struct Token {
    enum Kind { end, id, keyword, punct } kind = end;
    std::string text;  // an ID as cgraph keeps it; the punctuation itself
    std::size_t line = 0;
};

bool is_id_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool is_id_byte(unsigned char c) { return is_id_start(c) || std::isdigit(c); }

bool is_keyword(const std::string &word) {
    std::string lower;
    for (const char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower == "node" || lower == "edge" || lower == "graph" || lower == "digraph" || lower == "subgraph" ||
           lower == "strict";
}

// DOT's tokens as cgraph's lexer makes them, far enough to tell which are
// node IDs and on which line each begins.
class Scanner {
public:
    explicit Scanner(std::string_view text) : text_(text) {}

    Token next() {
        skip_blanks();
        Token token;
        token.line = line_;
        if (pos_ >= text_.size()) return token;
        const unsigned char c = static_cast<unsigned char>(text_[pos_]);
        const char after = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
        if (c == '"') {
            token.kind = Token::id;
            quoted(token.text);
            joined(token.text);
        } else if (c == '<') {
            token.kind = Token::id;
            html(token.text);
        } else if (c == '-' && (after == '>' || after == '-')) {
            token.kind = Token::punct;
            token.text = text_.substr(pos_, 2);
            pos_ += 2;
        } else if (is_id_start(c)) {
            while (pos_ < text_.size() && is_id_byte(static_cast<unsigned char>(text_[pos_]))) token.text += text_[pos_++];
            token.kind = is_keyword(token.text) ? Token::keyword : Token::id;
        } else if (c == '-' || c == '.' || std::isdigit(c)) {
            token.kind = Token::id;
            numeral(token.text);
        } else {
            token.kind = Token::punct;
            token.text = text_.substr(pos_++, 1);
        }
        return token;
    }

private:
    void newline_at(std::size_t i) { line_ += text_[i] == '\n'; }

    void skip_blanks() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            const char after = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
            if (std::isspace(static_cast<unsigned char>(c))) {
                newline_at(pos_++);
            } else if (c == '/' && after == '*') {
                for (pos_ += 2; pos_ < text_.size() && text_.compare(pos_, 2, "*/") != 0; ++pos_) newline_at(pos_);
                pos_ = std::min(pos_ + 2, text_.size());
            } else if ((c == '/' && after == '/') || c == '#') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else {
                return;
            }
        }
    }

    // cgraph drops a backslash before a quote and a backslash-newline, and
    // keeps every other backslash.
    void quoted(std::string &out) {
        for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
            const char after = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
            if (text_[pos_] == '\\' && (after == '"' || after == '\n')) {
                newline_at(++pos_);
                if (after == '"') out += '"';
                continue;
            }
            newline_at(pos_);
            out += text_[pos_];
        }
        if (pos_ < text_.size()) ++pos_;
    }

    // "a" + "b" is the one ID "ab".
    void joined(std::string &out) {
        for (;;) {
            const std::size_t pos = pos_, line = line_;
            skip_blanks();
            if (pos_ < text_.size() && text_[pos_] == '+') {
                ++pos_;
                skip_blanks();
                if (pos_ < text_.size() && text_[pos_] == '"') {
                    quoted(out);
                    continue;
                }
            }
            pos_ = pos, line_ = line;
            return;
        }
    }

    void html(std::string &out) {
        std::size_t depth = 1;
        for (++pos_; pos_ < text_.size(); ++pos_) {
            const char c = text_[pos_];
            if (c == '<') ++depth;
            if (c == '>' && --depth == 0) break;
            newline_at(pos_);
            out += c;
        }
        if (pos_ < text_.size()) ++pos_;
    }

    void numeral(std::string &out) {
        if (text_[pos_] == '-') out += text_[pos_++];
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) out += text_[pos_++];
        if (pos_ < text_.size() && text_[pos_] == '.') out += text_[pos_++];
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) out += text_[pos_++];
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
};

bool is(const Token &token, const char *punct) { return token.kind == Token::punct && token.text == punct; }

}  // namespace

std::size_t line_of_node(std::string_view text, const std::function<bool(std::string_view)> &wanted) {
    Scanner scanner(text);
    Token before, token = scanner.next();
    std::size_t in_attributes = 0;  // depth of '['
    while (token.kind != Token::end) {
        Token after = scanner.next();
        if (is(token, "[")) ++in_attributes;
        if (is(token, "]") && in_attributes > 0) --in_attributes;
        // Not a node: an attribute's name or value, a port, a graph's name.
        const bool node = token.kind == Token::id && in_attributes == 0 && !is(before, "=") && !is(before, ":") &&
                          before.kind != Token::keyword && !is(after, "=");
        if (node && wanted(token.text)) return token.line;
        before = std::move(token);
        token = std::move(after);
    }
    return 0;
}

std::size_t line_after_first_graph(std::string_view text) {
    Scanner scanner(text);
    std::size_t depth = 0;
    for (Token token = scanner.next(); token.kind != Token::end; token = scanner.next()) {
        if (is(token, "{")) ++depth;
        if (is(token, "}") && depth > 0 && --depth == 0) {
            const Token after = scanner.next();
            return after.kind == Token::end ? 0 : after.line;
        }
    }
    return 0;
}

}  // namespace dag::dot_places
