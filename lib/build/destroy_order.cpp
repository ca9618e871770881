#include "build/destroy_order.hpp"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "algorithms/validate.hpp"
#include "graph/error.hpp"

namespace dag {

namespace {

bool destroys(Action a) {
    return a == Action::remove || a == Action::replace || a == Action::create_before_destroy;
}

bool changes(Action a) { return a != Action::none && a != Action::remove; }

class Plan {
public:
    Plan(Graph &g, Declarations &declarations) : g_(g), declarations_(declarations) {
        for (VertexId v : declarations.vertices())
            if (g.has_vertex(v) && declarations.find(v)->action != Action::none)
                action_[v] = declarations.find(v)->action;
    }

    Action action(VertexId v) const {
        auto it = action_.find(v);
        return it == action_.end() ? Action::none : it->second;
    }

    // Destroy vertices' names are checked before anything changes.
    void check_names() const {
        for (const auto &[v, act] : action_) {
            const std::optional<std::string_view> name = g_.name(v);
            if (destroys(act) && name && g_.has_name(destroy_name(*name)))
                throw Error(Errc::duplicate_name, "the destroy vertex of " + std::string(*name) + " would be named \"" +
                                                      destroy_name(*name) + "\", which another vertex has");
        }
    }

    void apply() {
        check_names();
        const std::vector<std::pair<VertexId, VertexId>> edges = g_.edges();
        find_destroy_dependencies(edges);
        mark_late();
        make_destroy_vertices();
        std::vector<VertexId> pairs;
        auto connect = [&pairs](VertexId from, VertexId to) {
            pairs.push_back(from);
            pairs.push_back(to);
        };
        for (const auto &[a, b] : edges) {
            const bool da = destroys(action(a)), db = destroys(action(b));
            if (db && action(a) != Action::remove) {
                if (late_.count(b)) connect(destroy_.at(b), a);
                else connect(a, destroy_.at(b));
            }
            if (da && !late_.count(a) && changes(action(b))) connect(b, destroy_.at(a));
        }
        for (const auto &[b, a] : destroy_after_) connect(destroy_.at(b), destroy_.at(a));
        for (const auto &[v, d] : destroy_) {
            if (d == v) continue;
            if (late_.count(v)) connect(d, v);
            else connect(v, d);
        }
        g_.connect_many(pairs.data(), pairs.size() / 2);
        // The graph holds them now: a builder run again applies only actions
        // set since (the second run renamed "a (destroy)" "a (destroy) (destroy)").
        for (const auto &entry : action_) declarations_.of(entry.first).action = Action::none;
    }

private:
    // (b, a) for every edge a -> b between destroyed vertices: D(b) waits
    // for D(a). Only direct edges: following paths through vertices that are
    // not destroyed would cost a search per destroyed vertex, most of the
    // graph each on a dense one.
    void find_destroy_dependencies(const std::vector<std::pair<VertexId, VertexId>> &edges) {
        for (const auto &[a, b] : edges) {
            if (a == b || !destroys(action(a)) || !destroys(action(b))) continue;
            destroy_after_.emplace_back(b, a);
        }
    }

    // Late: every destroyed vertex that a create-before-destroy one depends
    // on, through any vertices, as Terraform's ForcedCBDTransformer looks
    // at all of a vertex's descendants. One search from all of them at once,
    // each vertex visited once.
    void mark_late() {
        std::unordered_set<VertexId> seen;
        std::vector<VertexId> stack;
        for (const auto &[v, act] : action_)
            if (act == Action::create_before_destroy && seen.insert(v).second) stack.push_back(v);
        while (!stack.empty()) {
            const VertexId v = stack.back();
            stack.pop_back();
            if (destroys(action(v))) late_.insert(v);
            for (VertexId d : g_.dependencies(v))
                if (seen.insert(d).second) stack.push_back(d);
        }
    }

    // A removed vertex's own edges go: its destroy vertex gets only the
    // rules' edges.
    void make_destroy_vertices() {
        for (const auto &[v, act] : action_) {
            if (!destroys(act)) continue;
            const std::optional<std::string_view> name = g_.name(v);
            const std::optional<std::string> destroyed =
                name ? std::optional<std::string>(destroy_name(*name)) : std::nullopt;
            if (act == Action::remove) {
                for (VertexId d : g_.dependencies(v)) g_.disconnect(v, d);
                for (VertexId d : g_.dependents(v)) g_.disconnect(d, v);
                g_.set_name(v, destroyed);
                destroy_[v] = v;
                continue;
            }
            const VertexId d = g_.add_vertex(destroyed, g_.user(v));
            std::vector<std::string> needs = declarations_.of(v).needs;
            declarations_.of(d).needs = std::move(needs);
            destroy_[v] = d;
        }
    }

    Graph &g_;
    Declarations &declarations_;
    std::map<VertexId, Action> action_;
    std::unordered_map<VertexId, VertexId> destroy_;
    std::vector<std::pair<VertexId, VertexId>> destroy_after_;
    std::unordered_set<VertexId> late_;
};

}  // namespace

std::string destroy_name(std::string_view name) { return std::string(name) + " (destroy)"; }

void order_destroys(Graph &g, Declarations &declarations) {
    g.check_changeable();
    const std::string cycles = cycle_report(g);
    if (!cycles.empty()) throw Error(Errc::cycle, cycles);
    Plan(g, declarations).apply();
}

}  // namespace dag
