// What a command left running in its process group after its shell exited:
// background processes (`daemon &`) that would otherwise outlive dag.
#pragma once

#include <sys/types.h>

#include <chrono>

namespace dagcli {

// Sends SIGTERM to process group `group` if a live process other than its
// exited leader is still in it, then SIGKILL once `grace` has passed with
// one still there, and returns once none is left. The leader must be left unreaped until this returns, so
// that the group's id cannot be taken by another process meanwhile.
void empty_group(pid_t group, std::chrono::milliseconds grace);

}  // namespace dagcli
