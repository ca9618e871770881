// The plan file `dag build` reads: vertices with what they provide,
// reference, need, depend on and plan to do (README.md, "Building a graph",
// documents the format).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libdag.hpp"

namespace dagcli {

using Builder = std::unique_ptr<dag_builder, Freer<dag_builder_free>>;

struct Plan {
    Graph graph;
    // Holds the declarations; the standard steps are added by the command.
    Builder builder;
    // The root vertex's name ("root" unless the plan says).
    std::string root = "root";
    // When a plan vertex has that name: the message of a build whose root
    // step could not add the root vertex.
    std::string root_taken;
    // libdag's id and the name of each plan vertex, by the plan's numbering.
    std::vector<uint64_t> ids;
    std::vector<std::string> names;
};

// Reads the plan in `text`; `shown` names it in messages. Anything malformed
// (not JSON, a field of the wrong type, an unknown action, a duplicate name,
// a depends_on naming no vertex) is a Failure with exit status 2.
Plan read_plan(const std::string &text, const std::string &shown);

}  // namespace dagcli
