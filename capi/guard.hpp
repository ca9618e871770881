// The C boundary: every entry point runs its body through guard(), which
// catches every exception and turns it into a dag_status plus an optional
// dag_error, so nothing unwinds into C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <new>
#include <string>
#include <utility>

#include "graph/error.hpp"
#include "handles.hpp"

namespace dag::capi {

// Raised inside the C layer for problems the core cannot see (NULL pointers).
struct ApiError {
    dag_status status;
    std::string message;
};

dag_status to_status(Errc code) noexcept;

// Stores a failure in *err (when err is not NULL) and returns `status`.
dag_status fail(dag_error **err, dag_status status, const char *fn, const char *message) noexcept;

// True for the preallocated out-of-memory error, which is never freed.
bool is_static_error(const dag_error *e) noexcept;

// Throws ApiError(DAG_E_NULL_ARGUMENT) naming `what` when `p` is NULL.
inline void require(const void *p, const char *what) {
    if (!p) throw ApiError{DAG_E_NULL_ARGUMENT, std::string("argument '") + what + "' is NULL"};
}

// Throws ApiError(DAG_E_INVALID_ARGUMENT) naming `what` when `count` ids
// cannot be an array: no object exceeds PTRDIFF_MAX bytes. Copying such a
// count would fail inside std::vector with a message about its internals, or,
// where count * 8 wraps, quietly copy the wrong number of ids.
inline void require_id_count(std::size_t count, const char *what) {
    if (count > static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(std::uint64_t))
        throw ApiError{DAG_E_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(count) +
                                                   " is too large: no array holds that many ids"};
}

// A read-only entry point's hold on its graph argument: NULL is refused as by
// require(), and the read runs inside a ReadScope, safe against the updates
// of a walk of that graph.
class GraphRead {
public:
    GraphRead(const dag_graph *g, const char *what) : scope_((require(g, what), g->graph)) {}

private:
    ReadScope scope_;
};

// The read of an entry point that calls the user back (a traversal's
// visitor, a search's callback, a predicate): as GraphRead, plus a hold on
// the graph, so that a dag_free(g) from a callback frees it only as the call
// returns instead of under the traversal still reading it.
class CallbackRead {
public:
    CallbackRead(const dag_graph *g, const char *what)
        : scope_((require(g, what), hold_.take(const_cast<dag_graph *>(g)), g->graph)) {}

private:
    GraphHold hold_;  // declared first: released after the read has ended
    ReadScope scope_;
};

// An enum that came from C may hold any int; reading it as the enum type
// would be undefined for values outside the enumerators, so read the bits.
template <class E>
std::underlying_type_t<E> raw(const E &e) noexcept {
    std::underlying_type_t<E> v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

// raw() for a message, as the caller wrote it: C gives an enum with no
// negative enumerator an unsigned type, which would show -1 as 4294967295.
template <class E>
std::string raw_text(const E &e) {
    return std::to_string(static_cast<long long>(static_cast<int>(raw(e))));
}

template <class F>
dag_status guard(const char *fn, dag_error **err, F &&body) noexcept {
    if (err) *err = nullptr;
    try {
        std::forward<F>(body)();
        return DAG_OK;
    } catch (const Error &e) {
        return fail(err, to_status(e.code()), fn, e.what());
    } catch (const ApiError &e) {
        return fail(err, e.status, fn, e.message.c_str());
    } catch (const std::bad_alloc &) {
        return fail(err, DAG_E_NOMEM, fn, "out of memory");
    } catch (const std::exception &e) {
        return fail(err, DAG_E_INTERNAL, fn, e.what());
    } catch (...) {
        return fail(err, DAG_E_INTERNAL, fn, "unknown exception");
    }
}

// Moves a vector into a new owned dag_ids.
dag_ids *make_ids(std::vector<std::uint64_t> &&values);
// Copies an array the library keeps into a new owned dag_ids.
dag_ids *copy_ids(const HugeVector<std::uint64_t> &values);

// Copies a string into memory released by dag_string_free().
char *make_string(const std::string &s);

}  // namespace dag::capi
