// Where an --exec command's standard output and error go (--output).
#pragma once

#include <spawn.h>
#include <sys/types.h>

#include <string>

namespace dagcli {

enum class OutputMode { stream, grouped, none };

// What a command wrote, kept whole so that it is printed in one piece.
struct CapturedOutput {
    std::string out;
    std::string err;
};

// The pipes a grouped command writes into, read while it runs: a command
// writing more than a pipe holds would otherwise block, and its vertex never
// finish.
class OutputPipes {
  public:
    OutputPipes() = default;
    ~OutputPipes();
    OutputPipes(const OutputPipes &) = delete;
    OutputPipes &operator=(const OutputPipes &) = delete;

    // Opens both pipes; 0, or errno with none open. An error code, not an
    // exception: out of descriptors is an expected turn of a walk, and a
    // sanitizer checking the message's virtual call makes a pipe of its
    // own, which then fails too (a false "invalid vptr" report).
    int open() noexcept;
    // Makes the child's standard output and error the pipes' write ends.
    void attach(posix_spawn_file_actions_t &actions) const;
    // Reads both pipes until they close, or until `pid` has exited and
    // nothing more is waiting: a background process the command left behind
    // may hold a write end open for ever. Call after the spawn.
    CapturedOutput drain(pid_t pid);

  private:
    int out_[2] = {-1, -1};
    int err_[2] = {-1, -1};
};

// Each line of `text` after "name: ", a missing last newline added.
std::string prefixed(const std::string &name, const std::string &text);

}  // namespace dagcli
