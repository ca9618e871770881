// Attach to a shared vertex created on demand, Terraform's ProviderTransformer
// (and CloseProviderTransformer): every vertex that needs KEY depends on the
// vertex providing KEY.
#pragma once

#include "build/declarations.hpp"
#include "graph/graph.hpp"

namespace dag {

struct SharedOptions {
    // Also add `NAME (close)` for each shared vertex NAME, depending on every
    // vertex that needs it, as Terraform closes a provider after its last use.
    bool close = false;
};

// For each KEY needed (in bytewise order), the shared vertex is: the vertices
// declaring that they provide KEY, else the vertex named KEY, else a new
// vertex named KEY, which is then declared as providing KEY. Every vertex
// needing KEY is connected to it (a vertex that is itself the shared vertex is
// not). A close vertex is the vertex named `NAME (close)`, created when none
// is; NAME is the shared vertex's name, or its decimal id when it has none.
void attach_shared(Graph &g, Declarations &declarations, const SharedOptions &options);

}  // namespace dag
