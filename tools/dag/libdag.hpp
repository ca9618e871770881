// The CLI's thin RAII layer over libdag's C handles, and the one way its
// errors turn into exceptions.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dagcli {

// The exit statuses besides 0 (ok) and those after a signal.
// 1: the graph failed a check (a cycle, no single root) or a vertex failed.
constexpr int check_failed = 1;
// 2: a usage error, input that cannot be read or parsed, an unknown vertex
// name, out of memory: the command never got to judge the graph.
constexpr int bad_input = 2;

// Anything that ends a command: main() prints it as "dag: <what>" on standard
// error and exits with its status.
class Failure : public std::runtime_error {
  public:
    explicit Failure(const std::string &what, int exit_status = check_failed)
        : std::runtime_error(what), exit_status_(exit_status) {}
    int exit_status() const { return exit_status_; }

  private:
    int exit_status_;
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
using Walker = std::unique_ptr<dag_walker, Freer<dag_walk_free>>;

// Frees *err in every case and throws its message, with `exit_status`,
// unless `status` is DAG_OK. The error is taken by address because the call
// filling it is evaluated in the same expression: check(dag_root(g, &id, &err), &err).
void check(dag_status status, dag_error **err, int exit_status = check_failed);

// The CLI's id arrays are small next to the work done with them, so a plain
// vector is simpler than carrying the owned array around.
std::vector<uint64_t> take(dag_ids *ids);

// Every vertex's outcome, in ascending id order; the messages are the report's.
std::vector<dag_vertex_outcome> outcomes(const dag_walk_report *report);

}  // namespace dagcli
