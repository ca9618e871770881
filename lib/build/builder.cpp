#include "build/builder.hpp"

#include <new>
#include <utility>

#include "algorithms/validate.hpp"
#include "graph/error.hpp"

namespace dag {

void Builder::add_step(std::string name, Step step) {
    if (name.empty()) throw Error(Errc::invalid_argument, "a step needs a name");
    steps_.push_back({std::move(name), std::move(step)});
}

void Builder::run(BuildContext &context, const BuildOptions &options) {
    failed_.clear();
    Graph &g = context.graph;
    for (std::size_t i = 0; i < steps_.size(); ++i) {
        const Named &s = steps_[i];
        const std::size_t vertices = g.vertex_count(), edges = g.edge_count();
        const auto start = std::chrono::steady_clock::now();
        try {
            s.step(context);
        } catch (const Error &e) {
            failed_ = s.name;
            throw Error(e.code(), "step '" + s.name + "': " + e.what());
        } catch (const std::bad_alloc &) {
            failed_ = s.name;
            throw Error(Errc::no_memory, "step '" + s.name + "': out of memory");
        } catch (...) {
            failed_ = s.name;
            throw;
        }
        const auto took = std::chrono::steady_clock::now() - start;
        if (options.observer)
            options.observer({s.name, i, std::chrono::duration_cast<std::chrono::nanoseconds>(took), vertices, edges,
                              g.vertex_count(), g.edge_count()});
    }
    if (!options.validate) return;
    const Validation v = validate(g, options.single_root);
    if (!v.ok()) throw Error(v.errc(), "validation: " + v.text());
}

}  // namespace dag
