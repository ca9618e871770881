// The result of a walk: every vertex's outcome and timing, plus totals.
//
// Compact, because a report is built after every walk that asks for one: a
// byte of state per vertex, two timestamps only when the walk took them,
// messages only for the vertices that have one, and the ids shared with the
// walk's snapshot rather than copied. A 10^6-vertex report is 1 MB (17 MB
// with timestamps), not 64 MB of structs with a string each.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/huge_pages.hpp"
#include "graph/snapshot.hpp"
#include "walk/walk_types.hpp"

namespace dag {

// One vertex's outcome, read from a report: valid while the report lives.
struct VertexReport {
    VertexId id = no_vertex;
    VertexStatus status = VertexStatus::not_run;
    // Its failure message or the walk's note about it; "" for none.
    const char *message = "";
    // Its callback was called (it ran, or was pending or expanded).
    bool ran = false;
    // How many times its callback was called: more than 1 when failed
    // attempts were tried again (walk_retries.hpp).
    std::size_t attempts = 0;
    // Each attempt's message, "" for none, when there was more than one.
    const std::vector<std::string> *attempt_messages = nullptr;
    // Nanoseconds since the walk started; 0 for a vertex that never ran.
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
};

class WalkReport {
public:
    // Vertices in ascending id order.
    std::size_t size() const noexcept { return state_.size(); }
    VertexReport operator[](std::size_t i) const noexcept;
    // Binary search; nothing for an id the walk did not have.
    std::optional<VertexReport> find(VertexId id) const noexcept;
    std::size_t total(VertexStatus s) const noexcept { return totals[static_cast<std::size_t>(s)]; }

    std::array<std::size_t, 5> totals{};  // indexed by VertexStatus
    // The vertex whose failure was recorded first, and its message.
    VertexId first_error = no_vertex;
    std::string first_error_message;
    bool cancelled = false;

private:
    friend class Walk;
    static constexpr std::uint8_t ran_flag = 0x80;

    VertexId id_at(std::size_t i) const noexcept {
        return i < frozen_ ? snap_->id_of(i) : added_ids_[i - frozen_];
    }

    // The frozen vertices' ids come from the walk's snapshot, then those
    // updates added, whose ids were issued later and are larger.
    std::shared_ptr<const Snapshot> snap_;
    std::size_t frozen_ = 0;
    std::vector<VertexId> added_ids_;
    // At 10^7 vertices a report's timestamps are 160 MB, which on fresh
    // 4 KiB pages cost 39,000 page faults (about 0.45 s) every walk.
    LargeVector<std::uint8_t> state_;  // VertexStatus | ran_flag
    LargeVector<std::int64_t> times_;  // start, end per vertex; empty without timestamps
    std::vector<std::pair<std::size_t, std::string>> messages_;  // by index, ascending
    // Vertices tried more than once: each attempt's message, by index, ascending.
    std::vector<std::pair<std::size_t, std::vector<std::string>>> attempts_;
};

// What a finished walk's status needs, without a report: a caller that
// asked for no report gets none built.
struct WalkOutcome {
    bool cancelled = false;
    VertexId first_error = no_vertex;
    std::string first_error_message;
    // Only when cancelled: vertices that never started (cancelled, not run
    // or upstream failed), and those cancelled whose callback had run.
    std::size_t never_ran = 0;
    std::size_t cancelled_after_running = 0;
};

}  // namespace dag
