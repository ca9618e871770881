#include "process_session.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace dagcli {
namespace {

using Clock = std::chrono::steady_clock;

// The process's session from /proc/PID/stat ("pid (comm) state ppid pgrp
// session ..."), or -1 for a zombie (it has exited) or a process gone.
pid_t live_session_of(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", static_cast<long>(pid));
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
    long ppid = 0, pgrp = 0, session = 0;
    if (close == nullptr || std::sscanf(close + 1, " %c %ld %ld %ld", &state, &ppid, &pgrp, &session) != 4) return -1;
    return state == 'Z' ? -1 : static_cast<pid_t>(session);
}

// Whether /proc shows this process's pid namespace: in a container that
// mounts another's, its pids name other processes, never to be signalled.
bool proc_is_ours() {
    char self[32];
    const ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    if (n <= 0) return false;
    self[n] = '\0';
    return std::atol(self) == static_cast<long>(getpid());
}

struct Member {
    pid_t pid, session;
};

// The live processes of `sessions` other than their leaders. Linux has no
// call that lists a session's members: /proc is read whole, once for all.
std::vector<Member> live_members(const std::set<pid_t> &sessions) {
    std::vector<Member> members;
    std::unique_ptr<DIR, int (*)(DIR *)> proc(opendir("/proc"), closedir);
    if (!proc) return members;
    while (const dirent *entry = readdir(proc.get())) {
        const pid_t pid = static_cast<pid_t>(std::atol(entry->d_name));
        if (pid <= 0 || sessions.count(pid)) continue;
        const pid_t session = live_session_of(pid);
        if (sessions.count(session)) members.push_back({pid, session});
    }
    return members;
}

// Signals `pid` only if it is still in `session`: through a pidfd, which
// names the process whose membership is checked after it was opened, so a
// process id reused meanwhile is never signalled. Without pidfds (before
// Linux 5.3) by its id, as kill(1) would.
void signal_member(pid_t pid, pid_t session, int signal) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    const long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        if (live_session_of(pid) == session) syscall(SYS_pidfd_send_signal, static_cast<int>(fd), signal, nullptr, 0);
        close(static_cast<int>(fd));
        return;
    }
#endif
    if (live_session_of(pid) == session) kill(pid, signal);
}

}  // namespace

void signal_sessions(const std::set<pid_t> &sessions, int signal) {
    if (sessions.empty()) return;
    // The leaders' groups first: their ids are safe while the leaders are unreaped.
    for (pid_t session : sessions) kill(-session, signal);
    if (!proc_is_ours()) return;
    for (const Member &m : live_members(sessions)) signal_member(m.pid, m.session, signal);
}

void empty_session(pid_t session, std::chrono::milliseconds grace) {
    const std::set<pid_t> sessions = {session};
    if (!proc_is_ours()) {
        // No way to see who is left, nor when it has gone (the unreaped
        // leader keeps its group alive): the leader's group, whose id is
        // safe while the leader is unreaped, is asked to stop, no more.
        kill(-session, SIGTERM);
        return;
    }
    if (live_members(sessions).empty()) return;
    signal_sessions(sessions, SIGTERM);
    const auto deadline = Clock::now() + grace;
    for (;;) {
        const std::vector<Member> members = live_members(sessions);
        if (members.empty()) return;
        // Gone only once the kernel has delivered the SIGKILL: waited for
        // too. Sent again each round: a member may have started another.
        if (Clock::now() >= deadline) {
            kill(-session, SIGKILL);
            for (const Member &m : members) signal_member(m.pid, session, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace dagcli
