#include "signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <system_error>

namespace dagcli {
namespace {

// A handler may only do async-signal-safe things: it writes the signal's
// number to this pipe, which the watcher thread reads. Process-wide because
// signal dispositions are.
int signal_pipe[2] = {-1, -1};
// The first signal since the watcher began, for last_received(): the watcher's
// thread may not have read it from the pipe yet when the work it holds back
// is done. Lock-free, so that a handler may set it.
std::atomic<int> first_noted{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void note_signal(int signal) {
    const int saved = errno;
    int none = 0;
    first_noted.compare_exchange_strong(none, signal);
    const unsigned char byte = static_cast<unsigned char>(signal);
    // A full pipe already holds enough wake-ups: dropping this one is fine.
    [[maybe_unused]] ssize_t written = write(signal_pipe[1], &byte, 1);
    errno = saved;
}

void make_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        throw std::system_error(errno, std::generic_category(), "cannot create a pipe");
}

// SIGPIPE comes of a reader of dag's output having gone away (`dag walk | head`):
// like a hangup, a reason to stop the commands and leave the result files.
// The others would end dag by default and leave its commands running, each
// in a session of its own with no terminal to stop them: Ctrl-\ (SIGQUIT),
// a CPU time limit, a timer, a user signal.
constexpr int watched[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2};
constexpr size_t watched_count = sizeof watched / sizeof watched[0];

bool is_watched(int signal) {
    for (int w : watched)
        if (w == signal) return true;
    return false;
}

// Dispositions from before the watcher, put back by its destructor: a SIGPIPE
// ignored by whoever started dag stays ignored.
struct sigaction previous[watched_count];

void install_handler() {
    struct sigaction action {};
    action.sa_handler = note_signal;
    sigemptyset(&action.sa_mask);
    // Threads blocked in waitpid() or poll() carry on; the watcher does the work.
    action.sa_flags = SA_RESTART;
    for (size_t i = 0; i < watched_count; ++i) {
        sigaction(watched[i], nullptr, &previous[i]);
        // Ignored by whoever started dag (SIGHUP under nohup, SIGINT for a
        // job a script put in the background): it stays ignored, commands
        // included, rather than stop the walk. Not SIGPIPE: ignoring it asks
        // for a failed write instead of death, and a reader gone stops the
        // walk all the same (shell.cpp raises it for a command's output).
        if (previous[i].sa_handler != SIG_IGN || watched[i] == SIGPIPE) sigaction(watched[i], &action, nullptr);
    }
}

void restore_handlers() {
    for (size_t i = 0; i < watched_count; ++i) sigaction(watched[i], &previous[i], nullptr);
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void(int)> on_signal, std::function<void(int)> on_repeat)
    : on_signal_(std::move(on_signal)), on_repeat_(std::move(on_repeat)) {
    make_pipe(signal_pipe);
    make_pipe(stop_);
    first_noted.store(0);
    install_handler();
    thread_ = std::thread([this] { watch(); });
}

SignalWatcher::~SignalWatcher() {
    const unsigned char byte = 0;
    [[maybe_unused]] ssize_t written = write(stop_[1], &byte, 1);
    thread_.join();
    if (handler_.joinable()) handler_.join();
    restore_handlers();
    for (int fd : {signal_pipe[0], signal_pipe[1], stop_[0], stop_[1]}) close(fd);
    signal_pipe[0] = signal_pipe[1] = -1;
}

int SignalWatcher::last_received() { return first_noted.load(); }

void SignalWatcher::watch() {
    for (;;) {
        pollfd fds[2] = {{signal_pipe[0], POLLIN, 0}, {stop_[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) continue;  // EINTR: a signal arrived on this thread
        if (fds[1].revents != 0) return;
        unsigned char byte = 0;
        while (read(signal_pipe[0], &byte, 1) == 1) {
            if (!is_watched(byte)) continue;
            int expected = 0;
            // The first one's work (stopping the commands) takes a while,
            // during which a second one must still be heard.
            if (received_.compare_exchange_strong(expected, byte)) {
                try {
                    handler_ = std::thread([this, signal = static_cast<int>(byte)] { on_signal_(signal); });
                } catch (const std::system_error &) {
                    on_signal_(byte);  // no thread to be had: stopped all the same, at full grace
                }
            } else {
                on_repeat_(byte);
            }
        }
    }
}

void holding_signals(const std::function<void(const std::function<bool()> &interrupted)> &work) {
    std::exception_ptr failure;
    {
        SignalWatcher watcher([](int) {}, [](int) {});
        try {
            work([] { return SignalWatcher::last_received() != 0; });
        } catch (...) {
            failure = std::current_exception();
        }
    }
    // Read once the dispositions are back: one that came up to then is here.
    // SIGPIPE, caught though ignored, stays ignored: the failure, if any,
    // then ends dag as it would have.
    struct sigaction now {};
    if (const int signal = first_noted.load(); signal != 0 && sigaction(signal, nullptr, &now) == 0 &&
                                               now.sa_handler != SIG_IGN) {
        // What the work failed with (a FIFO's reader waited for) is said
        // before the signal ends dag, as main() would have said it.
        if (failure) {
            try {
                std::rethrow_exception(failure);
            } catch (const std::exception &e) {
                std::fflush(stdout);
                std::fprintf(stderr, "dag: %s\n", e.what());
            } catch (...) {
            }
        }
        raise(signal);
    }
    if (failure) std::rethrow_exception(failure);
}

const char *signal_name(int signal) {
    switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    case SIGQUIT: return "SIGQUIT";
    case SIGXCPU: return "SIGXCPU";
    case SIGALRM: return "SIGALRM";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "SIGTERM";
    }
}

}  // namespace dagcli
