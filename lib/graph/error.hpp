// Errors raised by the core. The core knows nothing of C status codes: capi/
// maps each Errc to a dag_status, so the two layers can evolve separately.
#pragma once

#include <stdexcept>
#include <string>

namespace dag {

enum class Errc {
    invalid_argument,
    unknown_vertex,
    not_found,
    duplicate_name,
    bad_utf8,
    cycle,
    busy,
    no_root,
    multiple_roots,
    state,
    cancelled,
    parse,
    io,
    // Out of a resource other than heap memory (threads), which std::bad_alloc
    // stands for everywhere else.
    no_memory,
};

class Error : public std::runtime_error {
public:
    Error(Errc code, const std::string &message) : std::runtime_error(message), code_(code) {}
    Errc code() const noexcept { return code_; }

private:
    Errc code_;
};

}  // namespace dag
