// A finished walk as the result files see it: every vertex's outcome, with
// its name and the worker that ran it, and how long the walk took.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <string>
#include <vector>

#include "worker_tracks.hpp"

namespace dagcli {

struct VertexResult {
    uint64_t id = DAG_NO_VERTEX;
    std::string name;    // an unnamed vertex's: its decimal id
    bool named = false;  // whether `name` is the vertex's own
    dag_vertex_status status = DAG_VERTEX_NOT_RUN;
    bool ran = false;
    std::string message;
    int64_t start_ns = 0, end_ns = 0;  // since the walk began; 0 when it did not run
    int worker = 0;                    // WorkerTracks' number; 0 when it did not run
    // How many times its command ran (--retries); with more than one, each
    // attempt's message, oldest first (the last is `message`).
    std::size_t attempts = 0;
    std::vector<std::string> attempt_messages;
};

struct WalkResult {
    std::vector<VertexResult> vertices;
    int64_t elapsed_ns = 0;
};

// The result of a walk that ran, from its report.
WalkResult walk_result(const dag_graph *g, const dag_walk_report *report, const WorkerTracks &tracks,
                       int64_t elapsed_ns);
// The result of a walk refused before it ran (a cycle): every vertex not run.
WalkResult unwalked(const dag_graph *g);

// The spelling of a status in the result files: ok, failed, upstream_failed,
// cancelled, not_run.
const char *status_key(dag_vertex_status status);

// The status in the words of the summary line ("upstream failed"), for
// the lines people read.
const char *status_words(dag_vertex_status status);

}  // namespace dagcli
