#include "walk/walk_report.hpp"

#include <algorithm>

namespace dag {

const VertexReport *WalkReport::find(VertexId id) const noexcept {
    auto it = std::lower_bound(vertices.begin(), vertices.end(), id,
                               [](const VertexReport &r, VertexId v) { return r.id < v; });
    return it != vertices.end() && it->id == id ? &*it : nullptr;
}

}  // namespace dag
