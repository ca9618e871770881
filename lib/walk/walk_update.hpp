// A batch of changes to a running walk, applied all or nothing by
// Walk::apply (walk_update.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

struct WalkUpdate {
    struct NewVertex {
        std::optional<std::string> name;
        void *user = nullptr;
        bool always = false;
    };

    std::vector<NewVertex> vertices;
    std::vector<std::pair<VertexId, VertexId>> connects;
    std::vector<std::pair<VertexId, VertexId>> disconnects;
    std::vector<VertexId> removals;

    // Added vertices get their real ids only when the batch is applied; until
    // then the k-th one is named by this provisional id, counted down from
    // the top of the id space where real ids never reach.
    static constexpr VertexId provisional(std::size_t k) noexcept {
        return std::numeric_limits<VertexId>::max() - static_cast<VertexId>(k);
    }
    bool is_provisional(VertexId id) const noexcept {
        return !vertices.empty() && id >= provisional(vertices.size() - 1);
    }
    std::size_t provisional_index(VertexId id) const noexcept {
        return static_cast<std::size_t>(std::numeric_limits<VertexId>::max() - id);
    }

    // Checks the name; returns the provisional id.
    VertexId add_vertex(std::optional<std::string_view> name, void *user, bool always);
};

}  // namespace dag
