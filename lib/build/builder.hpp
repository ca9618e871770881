// A graph built in named steps, run in order, as Terraform's BasicGraphBuilder
// runs its GraphTransformers: each step is timed and observed, the first that
// fails stops the build under its name, and the result is validated.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "build/declarations.hpp"
#include "graph/graph.hpp"

namespace dag {

// What the steps work on: the graph, the vertices' declarations, and the
// warnings steps leave (unresolved references under the warn policy).
struct BuildContext {
    Graph &graph;
    Declarations &declarations;
    std::vector<std::string> &warnings;
};

struct StepReport {
    const std::string &name;
    std::size_t index;
    std::chrono::nanoseconds duration;
    std::size_t vertices_before, edges_before, vertices_after, edges_after;
};

struct BuildOptions {
    bool validate = true;
    bool single_root = true;
    // Called after each step that succeeded, on the building thread.
    std::function<void(const StepReport &)> observer;
};

class Builder {
public:
    using Step = std::function<void(BuildContext &)>;

    void add_step(std::string name, Step step);
    std::size_t step_count() const noexcept { return steps_.size(); }

    // Runs every step in order, then validates (with `options.single_root`)
    // unless told not to. A step that throws dag::Error stops the build with
    // the same code and the message `step 'NAME': MESSAGE`; a failed
    // validation throws its code with `validation: TEXT`. Other exceptions
    // pass unchanged; failed_step() then names the step.
    void run(BuildContext &context, const BuildOptions &options);

    // The step the last run stopped in; empty after a successful run.
    const std::string &failed_step() const noexcept { return failed_; }

private:
    struct Named {
        std::string name;
        Step step;
    };
    std::vector<Named> steps_;
    std::string failed_;
};

}  // namespace dag
