#include "status_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
    if (!running_.empty()) line += ": " + running_.front().second;
    // One column short of the width: a line that fills it makes some
    // terminals wrap, and the next redraw would start a line lower.
    write_all(fd_, "\r" + fit(line, columns(fd_) - 1) + clear_to_end);
    shown_ = true;
}

std::string fit(const std::string &line, size_t columns) {
    size_t characters = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        const bool continuation = (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
        if (!continuation && characters++ == columns) return line.substr(0, i);
    }
    return line;
}

}  // namespace dagcli
