// The `dag` program started in a session of its own and left running, its
// output in files: a test signals it while it runs, then looks at what is
// left in its session. Every wait is bounded; whatever is left behind when
// a test ends is killed, so that no test leaves a process behind.
#pragma once

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace cli_test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Polls `condition` every 10 ms until it holds or `limit` has passed.
inline bool wait_until(const std::function<bool()> &condition, milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (!condition()) {
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(milliseconds(10));
    }
    return true;
}

inline std::string read_file(const std::string &path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

inline bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

// A scratch directory, removed with what was left in it.
struct ScratchDir {
    std::string path;
    ScratchDir() {
        char name[] = "/tmp/dag-cli-test-XXXXXX";
        EXPECT_NE(mkdtemp(name), nullptr);
        path = name;
    }
    ~ScratchDir() {
        const std::string command = "rm -rf '" + path + "'";
        EXPECT_EQ(std::system(command.c_str()), 0);
    }
};

// Processes that have not exited whose environment holds the entry `mark`
// (NAME=VALUE): a dag a test started and whatever its commands started, in
// whichever session (each command has one of its own). A zombie has exited:
// it only waits to be reaped by its parent, which for an orphan is init.
inline std::vector<pid_t> live_with(const std::string &mark) {
    std::vector<pid_t> live;
    const std::string entry = std::string(1, '\0') + mark + std::string(1, '\0');
    DIR *proc = opendir("/proc");
    if (!proc) return live;
    while (dirent *dir_entry = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(dir_entry->d_name));
        if (pid <= 0) continue;
        const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
        // "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may hold anything.
        const size_t close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(stat.substr(close + 1));
        char state = 0;
        long skip = 0;
        unsigned long flags = 0;
        if (!(fields >> state >> skip >> skip >> skip >> skip >> skip >> flags) || state == 'Z') continue;
        constexpr unsigned long kernel_thread = 0x00200000;  // PF_KTHREAD: no environment ever
        if (flags & kernel_thread) continue;
        // A process in the middle of an exec (a command's `exec sleep`)
        // reads as having no environment for a moment: read again.
        std::string environment;
        for (int attempt = 0; attempt < 100 && environment.empty(); ++attempt) {
            if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            environment = read_file("/proc/" + std::to_string(pid) + "/environ");
        }
        if (('\0' + environment).find(entry) != std::string::npos) live.push_back(pid);
    }
    closedir(proc);
    return live;
}

class BackgroundDag {
  public:
    // Runs DAG_CLI with `args`, standard input from `input_file`, standard
    // output and error into files in `dir`; `piped` (1 or 2), if given, into
    // a pipe the test reads with read_line() instead.
    BackgroundDag(const std::vector<std::string> &args, const std::string &input_file,
                  const std::string &dir, int piped = -1)
        : out_(dir + "/stdout"), err_(dir + "/stderr"), mark_("DAG_CLI_TEST_RUN=" + dir + "/" + std::to_string(++runs())) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, input_file.c_str(), O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int ends[2] = {-1, -1};
        if (piped > 0) {
            EXPECT_EQ(pipe2(ends, O_CLOEXEC), 0);
            posix_spawn_file_actions_adddup2(&actions, ends[1], piped);
        }
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t signals;
        sigemptyset(&signals);
        posix_spawnattr_setsigmask(&attributes, &signals);
        // Every signal dag watches, at its default: dag keeps one ignored
        // ignored, and a test runner started in the background by a shell
        // (`make check &`, a CI script under nohup) has SIGINT and SIGQUIT
        // ignored, which dag then inherited and the signal tests failed.
        for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2})
            sigaddset(&signals, signal);
        posix_spawnattr_setsigdefault(&attributes, &signals);
        posix_spawnattr_setflags(&attributes,
                                 POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        std::vector<std::string> argv = args;
        argv.insert(argv.begin(), DAG_CLI);
        std::vector<char *> pointers;
        for (std::string &arg : argv) pointers.push_back(arg.data());
        pointers.push_back(nullptr);
        std::vector<char *> environment;
        for (char **entry = environ; *entry != nullptr; ++entry) environment.push_back(*entry);
        environment.push_back(mark_.data());
        environment.push_back(nullptr);
        const int error = posix_spawn(&pid_, DAG_CLI, &actions, &attributes, pointers.data(), environment.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        EXPECT_EQ(error, 0) << "cannot start " << DAG_CLI;
        if (error != 0) pid_ = -1;
        if (ends[1] >= 0) close(ends[1]);
        pipe_ = ends[0];
    }

    ~BackgroundDag() {
        close_pipe();
        if (pid_ > 0 && status_ < 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        // A failing test may leave commands behind; none may outlive it.
        if (pid_ > 0)
            for (pid_t left : live()) kill(left, SIGKILL);
    }
    BackgroundDag(const BackgroundDag &) = delete;
    BackgroundDag &operator=(const BackgroundDag &) = delete;

    // Also the id of its session and of its process group.
    pid_t pid() const { return pid_; }

    // It and what its commands started, while they run.
    std::vector<pid_t> live() const { return live_with(mark_); }

    // Its exit status (128 + signal if a signal ended it) once it has
    // exited, waiting up to `limit`; -1 if it is still running then.
    int wait(milliseconds limit) {
        wait_until(
            [this] {
                int status = 0;
                if (pid_ <= 0 || waitpid(pid_, &status, WNOHANG) != pid_) return false;
                status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                return true;
            },
            limit);
        return status_;
    }

    std::string out() const { return read_file(out_); }
    std::string err() const { return read_file(err_); }

    // The next line written to the pipe, without its newline, waiting up
    // to `limit`; what came so far if no newline came in time.
    std::string read_line(milliseconds limit) {
        const auto deadline = Clock::now() + limit;
        std::string line;
        char c = 0;
        while (pipe_ >= 0 && Clock::now() < deadline) {
            pollfd fd = {pipe_, POLLIN, 0};
            if (poll(&fd, 1, 10) <= 0) continue;
            if (read(pipe_, &c, 1) != 1 || c == '\n') break;
            line += c;
        }
        return line;
    }

    // The reader going away: dag's next write to the pipe gets SIGPIPE.
    void close_pipe() {
        if (pipe_ >= 0) close(pipe_);
        pipe_ = -1;
    }

  private:
    static int &runs() {
        static int count = 0;
        return count;
    }

    std::string out_, err_;
    std::string mark_;
    int pipe_ = -1;
    pid_t pid_ = -1;
    int status_ = -1;
};

}  // namespace cli_test
