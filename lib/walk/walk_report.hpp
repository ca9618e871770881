// The result of a walk: every vertex's outcome and timing, plus totals.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "walk/walk_types.hpp"

namespace dag {

struct VertexReport {
    VertexId id = no_vertex;
    VertexStatus status = VertexStatus::not_run;
    std::string message;
    // Its callback was called (it ran, or was pending or expanded).
    bool ran = false;
    // Nanoseconds since the walk started; 0 for a vertex that never ran.
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
};

struct WalkReport {
    std::vector<VertexReport> vertices;  // ascending id
    std::array<std::size_t, 5> totals{};  // indexed by VertexStatus
    // The vertex whose failure was recorded first, and its message.
    VertexId first_error = no_vertex;
    std::string first_error_message;
    bool cancelled = false;

    std::size_t total(VertexStatus s) const noexcept { return totals[static_cast<std::size_t>(s)]; }
    // Binary search; nullptr for an id the walk did not have.
    const VertexReport *find(VertexId id) const noexcept;
};

// What a finished walk's status needs, without a report: a caller that
// asked for no report gets none built.
struct WalkOutcome {
    bool cancelled = false;
    VertexId first_error = no_vertex;
    std::string first_error_message;
    // Only when cancelled: vertices cancelled (or not run) that never
    // started, and those whose callback had run.
    std::size_t never_ran = 0;
    std::size_t cancelled_after_running = 0;
};

}  // namespace dag
