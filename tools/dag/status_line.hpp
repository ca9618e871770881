// The walk's live status line on a terminal, ninja-style: one line redrawn
// in place instead of a line per vertex.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dagcli {

// True when `fd` is a terminal that understands the line's escape codes.
bool can_redraw(int fd);

// Not thread-safe: the walk calls it under the lock that guards its output.
class StatusLine {
  public:
    explicit StatusLine(int fd);

    void started(uint64_t vertex, std::string name, size_t total);
    void finished(uint64_t vertex, bool failed, size_t done, size_t total);
    // An attempt of `vertex` ended without finishing it (its command failed
    // and it may be tried again): no longer running, as libdag counts it
    // while it waits out its back-off.
    void attempt_ended(uint64_t vertex);
    // Redraws if the last draw is older than a tenth of a second: often
    // enough for the clock to move, not so often that drawing costs.
    void tick();
    // Before anything else is written to the terminal, and at the end.
    void erase();

  private:
    void draw();

    int fd_;
    std::chrono::steady_clock::time_point began_, drawn_;
    size_t done_ = 0, total_ = 0, failed_ = 0;
    bool shown_ = false;
    // In the order they started: the line names the longest running.
    std::vector<std::pair<uint64_t, std::string>> running_;
};

// `line` cut to what `columns` terminal columns hold: a wide character (CJK)
// takes two, a combining one none.
std::string fit(const std::string &line, size_t columns);

// A vertex name as the line shows it: each control character (a newline, an
// escape sequence's ESC, C1) as \xNN for each of its bytes, as `dag render`
// shows them; written raw they moved the cursor, so the redraw no longer
// covered the line, or changed the terminal's colours for good.
std::string shown(const std::string &name);

}  // namespace dagcli
