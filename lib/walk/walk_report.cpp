#include "walk/walk_report.hpp"

#include <algorithm>

namespace dag {

VertexReport WalkReport::operator[](std::size_t i) const noexcept {
    VertexReport v;
    v.id = id_at(i);
    v.status = static_cast<VertexStatus>(state_[i] & ~ran_flag);
    v.ran = (state_[i] & ran_flag) != 0;
    if (!times_.empty()) {
        v.start_ns = times_[2 * i];
        v.end_ns = times_[2 * i + 1];
    }
    auto m = std::lower_bound(messages_.begin(), messages_.end(), i,
                              [](const auto &entry, std::size_t index) { return entry.first < index; });
    if (m != messages_.end() && m->first == i) v.message = m->second.c_str();
    v.attempts = v.ran ? 1 : 0;
    if (!attempts_.empty()) {
        auto a = std::lower_bound(attempts_.begin(), attempts_.end(), i,
                                  [](const auto &entry, std::size_t index) { return entry.first < index; });
        if (a != attempts_.end() && a->first == i) {
            v.attempts = a->second.size();
            v.attempt_messages = &a->second;
        }
    }
    return v;
}

std::optional<VertexReport> WalkReport::find(VertexId id) const noexcept {
    std::size_t lo = 0, hi = size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (id_at(mid) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == size() || id_at(lo) != id) return std::nullopt;
    return (*this)[lo];
}

}  // namespace dag
