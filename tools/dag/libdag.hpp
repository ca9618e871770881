// The CLI's thin RAII layer over libdag's C handles, and the one way its
// errors turn into exceptions.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace dagcli {

// Anything that ends a command with exit status 1: main() prints it as
// "dag: <what>" on standard error.
class Failure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

template <auto Free>
struct Freer {
    template <class T>
    void operator()(T *handle) const { Free(handle); }
};

using Graph = std::unique_ptr<dag_graph, Freer<dag_free>>;
using String = std::unique_ptr<char, Freer<dag_string_free>>;
using Validation = std::unique_ptr<dag_validation, Freer<dag_validation_free>>;
using WalkReport = std::unique_ptr<dag_walk_report, Freer<dag_walk_report_free>>;

// Frees *err in every case and throws its message unless `status` is DAG_OK.
// The error is taken by address because the call filling it is evaluated in
// the same expression: check(dag_root(g, &id, &err), &err).
void check(dag_status status, dag_error **err);

// The CLI's id arrays are small next to the work done with them, so a plain
// vector is simpler than carrying the owned array around.
std::vector<uint64_t> take(dag_ids *ids);

}  // namespace dagcli
