#include "libdag.hpp"

#include <string>

namespace dagcli {

void check(dag_status status, dag_error **err, int exit_status) {
    std::unique_ptr<dag_error, Freer<dag_error_free>> owned(*err);
    *err = nullptr;
    if (status == DAG_OK) return;
    // Running out of memory judged nothing: a script must not read it as a
    // graph that failed a check.
    if (status == DAG_E_NOMEM) exit_status = bad_input;
    // Every failing call fills the error; the status name covers a NULL one.
    if (!owned) throw Failure(dag_status_string(status), exit_status);
    // The header promises each message starts with its function's name
    // ("dag_root: ..."), which means nothing to someone at a terminal.
    std::string message = dag_error_message(owned.get());
    if (auto colon = message.find(": "); message.rfind("dag_", 0) == 0 && colon != std::string::npos)
        message.erase(0, colon + 2);
    throw Failure(message, exit_status);
}

std::vector<uint64_t> take(dag_ids *ids) {
    const uint64_t *data = dag_ids_data(ids);
    std::vector<uint64_t> out(data, data + dag_ids_count(ids));
    dag_ids_free(ids);
    return out;
}

std::vector<dag_vertex_outcome> outcomes(const dag_walk_report *report) {
    std::vector<dag_vertex_outcome> out(dag_walk_report_size(report));
    size_t read = 0;
    dag_error *err = nullptr;
    check(dag_walk_report_read(report, 0, out.data(), out.size(), sizeof(dag_vertex_outcome), &read, &err),
          &err);
    out.resize(read);
    return out;
}

}  // namespace dagcli
