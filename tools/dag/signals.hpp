// SIGINT, SIGTERM, SIGHUP, SIGPIPE and the other signals that would end dag
// (SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2), turned from interruptions
// into a call on a thread of the program's own, where anything (locks,
// libdag) may be used.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace dagcli {

class SignalWatcher {
  public:
    // From now until destruction (except those ignored when it began, but
    // SIGPIPE), the first of those signals calls
    // `on_signal` with its number, once, on a thread of its
    // own; each later one calls `on_repeat` (which must not block) on the
    // watcher's thread, and does not kill the program before it has stopped
    // its commands. A write that raised SIGPIPE fails with EPIPE instead of
    // ending dag.
    SignalWatcher(std::function<void(int)> on_signal, std::function<void(int)> on_repeat);
    // Waits for `on_signal` if it is running, then restores the
    // dispositions the signals had before.
    ~SignalWatcher();
    SignalWatcher(const SignalWatcher &) = delete;
    SignalWatcher &operator=(const SignalWatcher &) = delete;

    // The signal that arrived first while the latest watcher was there, or
    // 0: known from the moment its handler ran, before the watcher's thread
    // has heard of it; after the watcher's destruction too, when the
    // dispositions are back and no later one can be noted unheard.
    static int last_received();

  private:
    void watch();

    std::function<void(int)> on_signal_, on_repeat_;
    std::atomic<int> received_{0};  // the first the watcher's thread read: on_signal's, not on_repeat's
    int stop_[2] = {-1, -1};  // the destructor's wake-up, apart from the signals'
    std::thread thread_, handler_;
};

// Runs `work` while dag has a file of its own half made (a temporary file
// beside an output file, the empty file a check makes), which a signal that
// ended dag would leave behind: the signals the watcher catches wait until
// `work` is over, its file taken away or complete, and then end dag as they
// would have (their dispositions put back: one ignored stays ignored).
// `interrupted` says whether one came, for a wait in `work` (a FIFO's reader)
// to end on it.
void holding_signals(const std::function<void(const std::function<bool()> &interrupted)> &work);

// The exit status of a program ended by `signal`, as the shell reports it: 128 + signal.
inline int exit_status_after(int signal) { return 128 + signal; }

// The name of a signal the watcher handles ("SIGINT"...).
const char *signal_name(int signal);

}  // namespace dagcli
