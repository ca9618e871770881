#include "shell.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "process_session.hpp"
#include "reader_gone.hpp"

namespace dagcli {
namespace {

std::string why(int status) {
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    if (WEXITSTATUS(status) != 0) return "exit status " + std::to_string(WEXITSTATUS(status));
    return {};
}

// Whether an unreaped child has exited, leaving it unreaped.
bool has_exited(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

}  // namespace

void Shell::make_room(std::size_t commands) const {
    if (output_ != OutputMode::grouped) return;
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
    // dag's own descriptors besides: standard ones, the signal watcher's,
    // the result files, the library's.
    const rlim_t need = 4 * static_cast<rlim_t>(commands) + 64;
    if (limit.rlim_cur >= need) return;
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? need : std::min(need, limit.rlim_max);
    setrlimit(RLIMIT_NOFILE, &limit);
}

CommandResult Shell::run(const std::string &command, const std::string &vertex) {
    // The environment is built per call, not set with setenv(): commands of
    // other vertices are being started on other threads at the same time.
    const char prefix[] = "DAG_VERTEX=";
    std::string variable = prefix + vertex;
    std::vector<char *> environment;
    for (char **entry = environ; *entry != nullptr; ++entry)
        if (std::strncmp(*entry, prefix, sizeof prefix - 1) != 0) environment.push_back(*entry);
    environment.push_back(variable.data());
    environment.push_back(nullptr);

    std::string shell = "sh", option = "-c", script = command;
    char *arguments[] = {shell.data(), option.data(), script.data(), nullptr};
    // Starts the command with `pipes` (grouped output) under the lock;
    // returns posix_spawn's error, or -1 when stop() came first.
    const auto spawn = [&](const OutputPipes *pipes, pid_t &pid) {
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        // A session of its own (its pid), which stop()
        // signals as a whole. Its own session has no controlling terminal: a
        // command in a background group of dag's session that changed the
        // terminal's settings or read it through /dev/tty (a password prompt)
        // was stopped by SIGTTOU or SIGTTIN and waited for ever; now the first
        // is allowed and the second fails at once. The signals dag catches are
        // reset by exec anyway; SIGPIPE may be ignored by whoever started dag,
        // SIGXFSZ is by dag (main.cpp), and a command should get the default.
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGPIPE);
        sigaddset(&defaults, SIGXFSZ);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        if (pipes) {
            pipes->attach(actions);
        } else if (output_ == OutputMode::none) {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
            posix_spawn_file_actions_adddup2(&actions, 1, 2);
        }
        int error = -1;
        std::lock_guard lock(mutex_);
        if (!stopping_) error = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, environment.data());
        posix_spawnattr_destroy(&attributes);
        posix_spawn_file_actions_destroy(&actions);
        if (error == 0) {
            running_.insert(pid);
            unreaped_.insert(pid);
        }
        return error;
    };

    // Out of descriptors (EMFILE, ENFILE) for the pipes or the spawn, the
    // command waits for another to free its own or to end (what runs as one
    // ends, emptying its session, takes descriptors too), and tries again:
    // a vertex is held back, not failed, as for any other slot it lacks. It
    // fails only when no other command holds descriptors or runs.
    std::optional<OutputPipes> pipes;
    const auto drop_pipes = [&] {
        if (!pipes) return;
        pipes.reset();
        std::lock_guard lock(mutex_);
        --holding_;
        ++freed_;
        changed_.notify_all();
    };
    pid_t pid = 0;
    for (;;) {
        std::size_t freed_before, ended_before;
        {
            std::lock_guard lock(mutex_);
            freed_before = freed_;
            ended_before = ended_;
        }
        int error = 0;
        bool piping = false;
        if (output_ == OutputMode::grouped) {
            // Under the lock with the count: another command short of
            // descriptors must not see these taken and not yet counted.
            std::lock_guard lock(mutex_);
            pipes.emplace();
            error = pipes->open();
            if (error == 0) ++holding_;
            else pipes.reset();
            piping = error != 0;
        }
        if (error == 0) error = spawn(pipes ? &*pipes : nullptr, pid);
        if (error == 0) break;
        drop_pipes();
        if (error < 0) return {"not started: dag was interrupted", true, false, {}};
        std::unique_lock lock(mutex_);
        const bool may_free = holding_ > 0 || !running_.empty() || freed_ != freed_before || ended_ != ended_before;
        if ((error != EMFILE && error != ENFILE) || !may_free)
            // strerror: the message's text without error_category's virtual
            // call (output_capture.hpp, OutputPipes::open).
            return {std::string(piping ? "pipe: " : "cannot run /bin/sh: ") + std::strerror(error), false, true, {}};
        changed_.wait(lock, [&] { return stopping_ || freed_ != freed_before || ended_ != ended_before; });
    }

    CapturedOutput output;
    if (pipes) {
        output = pipes->drain(pid);
        // Closed as soon as read: a command waiting for descriptors tries
        // again then.
        drop_pipes();
    }
    // Waits for the exit without reaping: see unreaped_.
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    // A command that stop() signalled and that then exited 0 (one that
    // traps SIGTERM) was stopped all the same; one that had exited before
    // the signal came was not.
    bool stopped_before_exit = false;
    {
        std::lock_guard lock(mutex_);
        stopped_before_exit = signalled_.count(pid) > 0;
    }
    // A reader of dag's output gone is dag's SIGPIPE, whether or not dag
    // has written since: streamed, the command writing there dies of it and
    // dag, writing nothing, gets none; grouped, commands that print nothing
    // give dag nothing to write. Raised here, it stops the walk on the
    // signal watcher's thread before this vertex's dependents could start
    // (or, streamed, count as failed upstream: the command counts as
    // stopped by it; grouped, it ran to its end and its status stands).
    if (reader_gone(STDOUT_FILENO) || reader_gone(STDERR_FILENO)) {
        kill(getpid(), SIGPIPE);
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, std::chrono::seconds(10), [this] { return stopping_; });
        if (output_ == OutputMode::stream) signalled_.insert(pid);
    }
    // Its background processes end with it, whatever group they moved to
    // within its session: a vertex whose command is done has nothing
    // running, and nothing outlives dag. The unreaped leader keeps the
    // session's id ours meanwhile.
    empty_session(pid, grace_);
    std::unique_lock lock(mutex_);
    running_.erase(pid);
    ++ended_;
    changed_.notify_all();
    // While stop() runs, the session must stay signallable until it is killed.
    changed_.wait(lock, [this] { return !stopping_ || killed_; });
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    unreaped_.erase(pid);
    const bool interrupted = signalled_.count(pid) > 0;
    lock.unlock();

    std::string failure = why(status);
    if (failure.empty() && stopped_before_exit) return {"exit status 0", true, true, std::move(output)};
    if (failure.empty()) return {std::nullopt, false, true, std::move(output)};
    return {failure, interrupted, true, std::move(output)};
}

void Shell::stop(std::chrono::milliseconds grace) {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    // A command that has exited already, its thread not yet told, ended by
    // itself: its exit status stands. Its session is signalled all the same,
    // for what it left running.
    for (pid_t pid : running_)
        if (!has_exited(pid)) signalled_.insert(pid);
    // A command's thread that raised SIGPIPE for its gone reader waits for
    // stopping_ (see run()) while its command still counts as running.
    changed_.notify_all();
    signal_sessions(running_, SIGTERM);
    changed_.wait_for(lock, grace, [this] { return running_.empty() || hurried_; });
    signal_sessions(unreaped_, SIGKILL);
    killed_ = true;
    changed_.notify_all();
    // The killed commands' threads reap them; dag exits after the walk,
    // which waits for those threads.
}

void Shell::hurry() {
    std::lock_guard lock(mutex_);
    hurried_ = true;
    changed_.notify_all();
}

}  // namespace dagcli
