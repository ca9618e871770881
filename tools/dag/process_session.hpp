// What a command left running after its shell exited: background processes
// (`daemon &`), and those that moved to a process group of their own within
// the command's session (`timeout` does), which would otherwise outlive dag.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <set>

namespace dagcli {

// Sends `signal` to every live process of each of `sessions` (commands',
// each session's id its leader's): their own process groups and any group
// their processes made, reading /proc once for all. One that leaves its
// session (setsid) is out of reach.
void signal_sessions(const std::set<pid_t> &sessions, int signal);

// Sends SIGTERM to session `session` if a live process other than its exited
// leader is still in it, then SIGKILL, to whatever is there, once `grace`
// has passed with one still there, and returns once none is left. The
// leader must be left unreaped until this returns, so that the session's id
// cannot be taken by another process meanwhile. Where /proc shows another
// pid namespace than dag's (some containers), members are not looked for:
// both calls signal the leaders' process groups only.
void empty_session(pid_t session, std::chrono::milliseconds grace);

}  // namespace dagcli
