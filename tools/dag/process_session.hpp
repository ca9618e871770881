// What a command left running after its shell exited: background processes
// (`daemon &`), and those that moved to a process group of their own within
// the command's session (`timeout` does), which would otherwise outlive dag.
#pragma once

#include <sys/types.h>

#include <chrono>

namespace dagcli {

// Sends `signal` to every live process of session `session` (a command's,
// whose leader is `session`): its own process group and any group its
// processes made. One that leaves the session (setsid) is out of reach.
void signal_session(pid_t session, int signal);

// Sends SIGTERM to session `session` if a live process other than its exited
// leader is still in it, then SIGKILL, to whatever is there, once `grace`
// has passed with one still there, and returns once none is left. The
// leader must be left unreaped until this returns, so that the session's id
// cannot be taken by another process meanwhile.
void empty_session(pid_t session, std::chrono::milliseconds grace);

}  // namespace dagcli
