#include "callback_error.hpp"

#include <cstdlib>
#include <exception>
#include <memory>
#include <typeinfo>

#if defined(__has_include)
#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define DAG_HAVE_CXXABI 1
#endif
#endif

namespace dag::capi {

namespace {

// The type as its source spells it ("std::runtime_error"), where the C++
// runtime can tell; the ABI's mangled name otherwise.
std::string type_name(const std::type_info &type) {
#if defined(DAG_HAVE_CXXABI)
    int status = 0;
    std::unique_ptr<char, void (*)(void *)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                 std::free);
    if (status == 0 && name) return name.get();
#endif
    return type.name();
}

}  // namespace

std::string thrown_message(const char *who) {
    try {
        throw;
    } catch (const std::exception &e) {
        return std::string(who) + " threw " + type_name(typeid(e)) + ": " + e.what();
    } catch (...) {
#if defined(DAG_HAVE_CXXABI)
        // NULL for an exception of another language's runtime.
        if (const std::type_info *type = abi::__cxa_current_exception_type())
            return std::string(who) + " threw an exception of type " + type_name(*type) +
                   ", not derived from std::exception";
#endif
        return std::string(who) + " threw an exception that is not a std::exception";
    }
}

void FirstThrow::keep(std::string &&message) noexcept {
    std::lock_guard<std::mutex> lk(mu_);
    if (thrown_) return;
    thrown_ = true;
    message_ = std::move(message);
}

void FirstThrow::keep_unexplained() noexcept {
    std::lock_guard<std::mutex> lk(mu_);
    thrown_ = true;
}

void FirstThrow::rethrow() const {
    std::lock_guard<std::mutex> lk(mu_);
    if (!thrown_) return;
    throw ApiError{DAG_E_CALLBACK,
                   message_.empty() ? "a callback threw (out of memory for saying more)" : message_};
}

}  // namespace dag::capi
