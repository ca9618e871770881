// Waiting on a condition variable until a deadline, without going to sleep
// when the deadline has passed.
//
// std::condition_variable::wait_until waits once even for a deadline already
// gone, and the kernel's timed futex wait then costs tens of microseconds on
// these VMs (68 us measured for a pull with timeout 0 and nothing ready), so
// a caller polling with a zero timeout would pay that on every poll.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace dag::walk_detail {

template <class Pred>
bool wait_until(std::condition_variable &cv, std::unique_lock<std::mutex> &lk,
                std::chrono::steady_clock::time_point deadline, Pred ready) {
    while (!ready()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        cv.wait_until(lk, deadline);
    }
    return true;
}

}  // namespace dag::walk_detail
