// Calls into the user's code (walk callbacks, observers and thread hooks,
// traversal visitors, search predicates). An exception escaping one must
// neither reach std::terminate on a pool thread nor pass for a bug of
// libdag (DAG_E_INTERNAL): it becomes DAG_E_CALLBACK, with a message saying
// who threw what.
#pragma once

#include <mutex>
#include <string>
#include <utility>

#include "guard.hpp"

namespace dag::capi {

// "<who> threw std::runtime_error: boom" for the exception being handled.
// Call only inside a catch block. May throw std::bad_alloc.
std::string thrown_message(const char *who);

// Runs `f`, the user's code; an exception escaping it leaves as
// ApiError{DAG_E_CALLBACK}.
template <class F>
decltype(auto) call_user(const char *who, F &&f) {
    try {
        return std::forward<F>(f)();
    } catch (...) {
        throw ApiError{DAG_E_CALLBACK, thrown_message(who)};
    }
}

// The first exception that escaped the user's code during a call that goes
// on regardless (a walk): the call then ends with DAG_E_CALLBACK.
class FirstThrow {
public:
    // Keeps `message` unless one was kept before.
    void keep(std::string &&message) noexcept;
    // For when the message could not be made (out of memory).
    void keep_unexplained() noexcept;
    // Throws ApiError{DAG_E_CALLBACK} with the first message, if one was kept.
    void rethrow() const;

private:
    mutable std::mutex mu_;
    bool thrown_ = false;
    std::string message_;
};

}  // namespace dag::capi
