#include "output_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace dagcli {
namespace {

void close_fd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Close-on-exec, so that commands other threads start at the same time do
// not inherit a write end and keep this command's pipe from closing.
// Returns 0 or errno.
int open_pipe(int (&ends)[2]) {
    if (pipe2(ends, O_CLOEXEC) != 0) return errno;
    fcntl(ends[0], F_SETFL, O_NONBLOCK);
    return 0;
}

bool exited(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

// Reads what is waiting; false once the pipe is closed at the other end.
bool read_available(int fd, std::string &into) {
    char buffer[65536];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) {
            into.append(buffer, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && errno == EAGAIN;
    }
}

}  // namespace

int OutputPipes::open() noexcept {
    if (int error = open_pipe(out_)) return error;
    if (int error = open_pipe(err_)) {
        close_fd(out_[0]);
        close_fd(out_[1]);
        return error;
    }
    return 0;
}

OutputPipes::~OutputPipes() {
    for (int *fd : {&out_[0], &out_[1], &err_[0], &err_[1]}) close_fd(*fd);
}

void OutputPipes::attach(posix_spawn_file_actions_t &actions) const {
    posix_spawn_file_actions_adddup2(&actions, out_[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_[1], 2);
}

CapturedOutput OutputPipes::drain(pid_t pid) {
    close_fd(out_[1]);
    close_fd(err_[1]);
    CapturedOutput captured;
    while (out_[0] >= 0 || err_[0] >= 0) {
        pollfd fds[2] = {{out_[0], POLLIN, 0}, {err_[0], POLLIN, 0}};
        // The timeout only bounds how late a command's exit is noticed when
        // something it left running still holds the pipe.
        if (poll(fds, 2, 100) < 0 && errno != EINTR) break;
        // Once the command has exited, all it wrote is in the pipes.
        const bool gone = exited(pid);
        if (out_[0] >= 0 && (fds[0].revents != 0 || gone) && !read_available(out_[0], captured.out))
            close_fd(out_[0]);
        if (err_[0] >= 0 && (fds[1].revents != 0 || gone) && !read_available(err_[0], captured.err))
            close_fd(err_[0]);
        if (gone) break;
    }
    return captured;
}

std::string prefixed(const std::string &name, const std::string &text) {
    std::string result;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        result += name + ": ";
        result.append(text, begin, end - begin);
        result += '\n';
        begin = end + 1;
    }
    return result;
}

}  // namespace dagcli
