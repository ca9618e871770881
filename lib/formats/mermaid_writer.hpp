// Mermaid flowchart output, for graphs shown in Markdown (GitHub, GitLab and
// most documentation sites render it).
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace dag {

std::string write_mermaid(const Graph &g);

}  // namespace dag
