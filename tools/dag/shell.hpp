// Runs the vertices' --exec commands, and stops them all when asked.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "output_capture.hpp"

namespace dagcli {

// How a command ended: failure says why ("exit status 3"), nothing when it
// exited with status 0; `stopped` when it did not start because stop() had
// been called, or failed (or exited 0) after stop() signalled it.
struct CommandResult {
    std::optional<std::string> failure;
    bool stopped = false;
    // False when the stop came first and no command was started.
    bool started = true;
    // Empty unless the output mode is grouped.
    CapturedOutput output;
};

class Shell {
  public:
    // `grace`: how long what a command leaves running gets between SIGTERM
    // and SIGKILL, as stop() gives the commands.
    Shell(OutputMode output, std::chrono::milliseconds grace) : output_(output), grace_(grace) {}

    // Runs `/bin/sh -c command` with DAG_VERTEX=vertex added to the
    // environment, inheriting standard input, its output and error going
    // where the output mode says, in a session (and so a process group) of
    // its own, without a controlling terminal (so that stop() reaches what
    // it starts too, in whatever group, and the terminal cannot stop it),
    // and waits for it, then stops what it left running in its session
    // (SIGTERM, SIGKILL after the grace). Safe to call from several threads
    // at once.
    CommandResult run(const std::string &command, const std::string &vertex);

    // Raises the soft limit on open files (RLIMIT_NOFILE) to what
    // `commands` commands running at once need for their output (four
    // descriptors each while it starts, grouped), up to the hard limit;
    // the commands inherit it. Best effort: beyond the hard limit, run()
    // holds a command back until another frees descriptors.
    void make_room(std::size_t commands) const;

    // Starts no command from now on, sends SIGTERM to the session of each
    // running one, and SIGKILL to all those sessions once every command
    // has exited or `grace` has passed, whichever comes first: nothing they
    // started is left behind. Returns once that is done. Called once.
    void stop(std::chrono::milliseconds grace);
    // Ends stop()'s grace now, or makes it none if stop() has not begun:
    // a second Ctrl-C. Safe from any thread.
    void hurry();

  private:
    const OutputMode output_;
    const std::chrono::milliseconds grace_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    bool killed_ = false;
    bool hurried_ = false;
    // Commands not yet exited, and those not yet reaped (running ones
    // included): a process kept unreaped keeps its id, and with it the id of
    // its session, from being reused, so signalling the session is always safe.
    std::set<pid_t> running_, unreaped_;
    // Commands holding descriptors of their own (grouped output's pipes),
    // how many times one let them go, and how many commands have ended: a
    // command waiting for descriptors tries again when either count changes.
    std::size_t holding_ = 0;
    std::size_t freed_ = 0;
    std::size_t ended_ = 0;
    // The commands stop() sent SIGTERM: their failure is dag's doing.
    std::set<pid_t> signalled_;
};

}  // namespace dagcli
