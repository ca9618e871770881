#include "walk_result.hpp"

#include "libdag.hpp"
#include "names.hpp"

namespace dagcli {

WalkResult walk_result(const dag_graph *g, const dag_walk_report *report, const WorkerTracks &tracks,
                       int64_t elapsed_ns) {
    WalkResult result;
    result.elapsed_ns = elapsed_ns;
    for (const dag_vertex_outcome &o : outcomes(report)) {
        VertexResult &v = result.vertices.emplace_back();
        v.id = o.vertex;
        v.name = vertex_name(g, o.vertex);
        v.named = has_name(g, o.vertex);
        v.status = o.status;
        v.ran = o.ran != 0;
        v.message = o.message;
        v.start_ns = o.start_ns;
        v.end_ns = o.end_ns;
        v.worker = tracks.of(o.vertex);
        dag_error *err = nullptr;
        check(dag_walk_report_attempts(report, o.vertex, &v.attempts, &err), &err);
        for (std::size_t i = 0; v.attempts > 1 && i < v.attempts; ++i) {
            const char *message = nullptr;
            check(dag_walk_report_attempt_message(report, o.vertex, i, &message, &err), &err);
            v.attempt_messages.emplace_back(message ? message : "");
        }
    }
    return result;
}

WalkResult unwalked(const dag_graph *g) {
    dag_ids *raw = nullptr;
    dag_error *err = nullptr;
    check(dag_vertices(g, &raw, &err), &err);
    WalkResult result;
    for (uint64_t id : take(raw)) {
        VertexResult vertex;
        vertex.id = id;
        vertex.name = vertex_name(g, id);
        vertex.named = has_name(g, id);
        result.vertices.push_back(vertex);
    }
    return result;
}

const char *status_key(dag_vertex_status status) {
    switch (status) {
    case DAG_VERTEX_OK: return "ok";
    case DAG_VERTEX_FAILED: return "failed";
    case DAG_VERTEX_UPSTREAM_FAILED: return "upstream_failed";
    case DAG_VERTEX_CANCELLED: return "cancelled";
    case DAG_VERTEX_NOT_RUN: break;
    }
    return "not_run";
}

const char *status_words(dag_vertex_status status) {
    switch (status) {
    case DAG_VERTEX_OK: return "ok";
    case DAG_VERTEX_FAILED: return "failed";
    case DAG_VERTEX_UPSTREAM_FAILED: return "upstream failed";
    case DAG_VERTEX_CANCELLED: return "cancelled";
    case DAG_VERTEX_NOT_RUN: break;
    }
    return "not run";
}

}  // namespace dagcli
