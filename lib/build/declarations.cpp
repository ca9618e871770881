#include "build/declarations.hpp"

#include <algorithm>

namespace dag {

std::vector<VertexId> Declarations::vertices() const {
    std::vector<VertexId> ids;
    ids.reserve(by_vertex_.size());
    for (const auto &entry : by_vertex_) ids.push_back(entry.first);
    std::sort(ids.begin(), ids.end());
    return ids;
}

}  // namespace dag
