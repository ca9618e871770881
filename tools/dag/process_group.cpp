#include "process_group.hpp"

#include <dirent.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

namespace dagcli {
namespace {

using Clock = std::chrono::steady_clock;

// The process's group from /proc/PID/stat ("pid (comm) state ppid pgrp ..."),
// or -1 for a zombie (it has exited) or a process already gone.
pid_t live_group_of(const char *pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
    std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path, "r"), std::fclose);
    if (!file) return -1;
    char stat[1024];
    const size_t n = std::fread(stat, 1, sizeof stat - 1, file.get());
    stat[n] = '\0';
    // comm may hold anything, spaces and parentheses too: the last ')' ends it.
    const char *close = nullptr;
    for (const char *c = stat; *c != '\0'; ++c)
        if (*c == ')') close = c;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (close == nullptr || std::sscanf(close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) return -1;
    return state == 'Z' ? -1 : static_cast<pid_t>(pgrp);
}

// Linux has no call that lists a group's members: /proc is read whole.
bool has_live_members(pid_t group) {
    std::unique_ptr<DIR, int (*)(DIR *)> proc(opendir("/proc"), closedir);
    if (!proc) return false;
    while (const dirent *entry = readdir(proc.get())) {
        const pid_t pid = static_cast<pid_t>(std::atol(entry->d_name));
        if (pid > 0 && pid != group && live_group_of(entry->d_name) == group) return true;
    }
    return false;
}

}  // namespace

void empty_group(pid_t group, std::chrono::milliseconds grace) {
    if (!has_live_members(group)) return;
    kill(-group, SIGTERM);
    const auto deadline = Clock::now() + grace;
    bool killed = false;
    while (has_live_members(group)) {
        // Gone only once the kernel has delivered the SIGKILL: waited for too.
        if (!killed && Clock::now() >= deadline) {
            kill(-group, SIGKILL);
            killed = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace dagcli
