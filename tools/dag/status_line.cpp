#include "status_line.hpp"

#include <locale.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>

namespace dagcli {
namespace {

constexpr auto redraw_interval = std::chrono::milliseconds(100);
constexpr char clear_to_end[] = "\x1b[K";

size_t columns(int fd) {
    winsize size{};
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 80;
}

void write_all(int fd, const std::string &text) {
    size_t written = 0;
    while (written < text.size()) {
        ssize_t n = write(fd, text.data() + written, text.size() - written);
        if (n > 0)
            written += static_cast<size_t>(n);
        else if (n < 0 && errno != EINTR)
            return;  // the status line is best effort
    }
}

}  // namespace

bool can_redraw(int fd) {
    const char *term = std::getenv("TERM");
    return isatty(fd) && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

StatusLine::StatusLine(int fd) : fd_(fd), began_(std::chrono::steady_clock::now()) {}

void StatusLine::started(uint64_t vertex, std::string name, size_t total) {
    running_.emplace_back(vertex, std::move(name));
    total_ = total;
    tick();
}

void StatusLine::attempt_ended(uint64_t vertex) {
    running_.erase(std::remove_if(running_.begin(), running_.end(),
                                  [vertex](const auto &entry) { return entry.first == vertex; }),
                   running_.end());
}

void StatusLine::finished(uint64_t vertex, bool failed, size_t done, size_t total) {
    attempt_ended(vertex);
    done_ = done;
    total_ = total;
    if (failed) ++failed_;
    draw();
}

void StatusLine::tick() {
    if (std::chrono::steady_clock::now() - drawn_ >= redraw_interval) draw();
}

void StatusLine::erase() {
    if (!shown_) return;
    write_all(fd_, std::string("\r") + clear_to_end);
    shown_ = false;
}

void StatusLine::draw() {
    drawn_ = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(drawn_ - began_).count();
    char counts[160];
    std::snprintf(counts, sizeof counts, "[%zu/%zu] running %zu, failed %zu, %.1f s, %.0f/s", done_,
                  total_, running_.size(), failed_, seconds, seconds > 0 ? static_cast<double>(done_) / seconds : 0.0);
    std::string line = counts;
    if (!running_.empty()) line += ": " + shown(running_.front().second);
    // One column short of the width: a line that fills it makes some
    // terminals wrap, and the next redraw would start a line lower.
    write_all(fd_, "\r" + fit(line, columns(fd_) - 1) + clear_to_end);
    shown_ = true;
}

std::string shown(const std::string &name) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        // C1 controls (U+0080 to U+009F) are C2 80 to C2 9F in UTF-8.
        const bool c1 = c == 0xC2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) < 0xA0;
        if (c >= 0x20 && c != 0x7F && !c1) {
            out += name[i];
            continue;
        }
        for (size_t end = i + (c1 ? 2 : 1); i < end; ++i) {
            const auto b = static_cast<unsigned char>(name[i]);
            out += {'\\', 'x', hex[b >> 4], hex[b & 15]};
        }
        --i;
    }
    return out;
}

namespace {

// The columns a character takes on a terminal, by the C library's table
// (wcwidth() reads it from a UTF-8 locale, whatever dag's own locale is).
size_t width_of(char32_t c) {
    if (c < 0x80) return 1;
    static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (!utf8) return 1;
    const locale_t before = uselocale(utf8);
    const int width = wcwidth(static_cast<wchar_t>(c));
    uselocale(before);
    return width < 0 ? 1 : static_cast<size_t>(width);
}

}  // namespace

std::string fit(const std::string &line, size_t columns) {
    size_t used = 0;
    for (size_t i = 0; i < line.size();) {
        const auto lead = static_cast<unsigned char>(line[i]);
        const size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        char32_t c = length == 1 ? lead : lead & (0x7F >> length);
        for (size_t k = 1; k < length && i + k < line.size(); ++k)
            c = (c << 6) | (static_cast<unsigned char>(line[i + k]) & 0x3F);
        used += width_of(c);
        if (used > columns) return line.substr(0, i);
        i += length;
    }
    return line;
}

}  // namespace dagcli
