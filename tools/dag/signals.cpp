#include "signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace dagcli {
namespace {

// A handler may only do async-signal-safe things: it writes the signal's
// number to this pipe, which the watcher thread reads. Process-wide because
// signal dispositions are.
int signal_pipe[2] = {-1, -1};

extern "C" void note_signal(int signal) {
    const int saved = errno;
    const unsigned char byte = static_cast<unsigned char>(signal);
    // A full pipe already holds enough wake-ups: dropping this one is fine.
    [[maybe_unused]] ssize_t written = write(signal_pipe[1], &byte, 1);
    errno = saved;
}

void make_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        throw std::system_error(errno, std::generic_category(), "cannot create a pipe");
}

void set_handler(void (*handler)(int)) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    // Threads blocked in waitpid() or poll() carry on; the watcher does the work.
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void(int)> on_signal) : on_signal_(std::move(on_signal)) {
    make_pipe(signal_pipe);
    make_pipe(stop_);
    set_handler(note_signal);
    thread_ = std::thread([this] { watch(); });
}

SignalWatcher::~SignalWatcher() {
    const unsigned char byte = 0;
    [[maybe_unused]] ssize_t written = write(stop_[1], &byte, 1);
    thread_.join();
    set_handler(SIG_DFL);
    for (int fd : {signal_pipe[0], signal_pipe[1], stop_[0], stop_[1]}) close(fd);
    signal_pipe[0] = signal_pipe[1] = -1;
}

void SignalWatcher::watch() {
    for (;;) {
        pollfd fds[2] = {{signal_pipe[0], POLLIN, 0}, {stop_[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) continue;  // EINTR: a signal arrived on this thread
        if (fds[1].revents != 0) return;
        unsigned char byte = 0;
        while (read(signal_pipe[0], &byte, 1) == 1) {
            int expected = 0;
            if (received_.compare_exchange_strong(expected, byte)) on_signal_(byte);
        }
    }
}

}  // namespace dagcli
