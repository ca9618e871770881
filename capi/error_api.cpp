// Status names, error objects and the owned result types.
#include <cstdlib>
#include <cstring>

#include "guard.hpp"

namespace dag::capi {

namespace {
// Returned when even the error object cannot be allocated; never freed.
dag_error nomem_error{DAG_E_NOMEM, "out of memory"};
}  // namespace

dag_status to_status(Errc code) noexcept {
    switch (code) {
        case Errc::invalid_argument: return DAG_E_INVALID_ARGUMENT;
        case Errc::unknown_vertex: return DAG_E_UNKNOWN_VERTEX;
        case Errc::not_found: return DAG_E_NOT_FOUND;
        case Errc::duplicate_name: return DAG_E_DUPLICATE_NAME;
        case Errc::bad_utf8: return DAG_E_BAD_UTF8;
        case Errc::cycle: return DAG_E_CYCLE;
        case Errc::busy: return DAG_E_BUSY;
        case Errc::no_root: return DAG_E_NO_ROOT;
        case Errc::multiple_roots: return DAG_E_MULTIPLE_ROOTS;
        case Errc::state: return DAG_E_STATE;
        case Errc::cancelled: return DAG_E_CANCELLED;
        case Errc::parse: return DAG_E_PARSE;
        case Errc::io: return DAG_E_IO;
        case Errc::no_memory: return DAG_E_NOMEM;
    }
    return DAG_E_INTERNAL;
}

dag_status fail(dag_error **err, dag_status status, const char *fn, const char *message) noexcept {
    if (!err) return status;
    try {
        *err = new dag_error{status, std::string(fn) + ": " + message};
    } catch (...) {
        *err = &nomem_error;
    }
    return status;
}

dag_ids *make_ids(std::vector<std::uint64_t> &&values) { return new dag_ids{std::move(values), {}}; }

dag_ids *copy_ids(const HugeVector<std::uint64_t> &values) { return new dag_ids{{}, values}; }

char *make_string(const std::string &s) {
    char *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (!out) throw std::bad_alloc();
    std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

bool is_static_error(const dag_error *e) noexcept { return e == &nomem_error; }

}  // namespace dag::capi

extern "C" {

const char *dag_status_string(dag_status status) {
    // Read as bits: a caller may pass any int, and loading a dag_status
    // outside the enum's range is undefined.
    switch (dag::capi::raw(status)) {
        case DAG_OK: return "ok";
        case DAG_E_NULL_ARGUMENT: return "NULL argument";
        case DAG_E_INVALID_ARGUMENT: return "invalid argument";
        case DAG_E_NOMEM: return "out of memory";
        case DAG_E_UNKNOWN_VERTEX: return "unknown vertex";
        case DAG_E_NOT_FOUND: return "not found";
        case DAG_E_DUPLICATE_NAME: return "duplicate name";
        case DAG_E_BAD_UTF8: return "invalid UTF-8";
        case DAG_E_CYCLE: return "cycle";
        case DAG_E_BUSY: return "graph is being walked or traversed";
        case DAG_E_NO_ROOT: return "no root";
        case DAG_E_MULTIPLE_ROOTS: return "multiple roots";
        case DAG_E_INVALID_GRAPH: return "invalid graph";
        case DAG_E_STATE: return "not allowed in this state";
        case DAG_E_CANCELLED: return "cancelled";
        case DAG_E_PARSE: return "parse error";
        case DAG_E_IO: return "I/O error";
        case DAG_E_INTERNAL: return "internal error";
        case DAG_E_WALK_FAILED: return "walk failed";
        case DAG_E_CALLBACK: return "a callback threw an exception";
        case DAG_E_TIMEOUT: return "timed out";
    }
    return "unrecognised status";
}

dag_status dag_error_status(const dag_error *err) { return err ? err->status : DAG_E_NULL_ARGUMENT; }

const char *dag_error_message(const dag_error *err) { return err ? err->message.c_str() : ""; }

void dag_error_free(dag_error *err) {
    if (!dag::capi::is_static_error(err)) delete err;
}

size_t dag_ids_count(const dag_ids *ids) { return ids ? ids->size() : 0; }

const uint64_t *dag_ids_data(const dag_ids *ids) { return ids && ids->size() != 0 ? ids->data() : nullptr; }

void dag_ids_free(dag_ids *ids) { delete ids; }

void dag_string_free(char *str) { std::free(str); }

}  // extern "C"
