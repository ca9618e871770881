#include "build/destroy_order.hpp"

#include <algorithm>
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
        // A removed vertex is its destroy vertex now, which references nothing,
        // as Terraform's destroy nodes: a references step run again would
        // connect it to what it referenced, against the order just made.
        for (const auto &[v, act] : action_) {
            VertexDeclarations &declared = declarations_.of(v);
            declared.action = Action::none;
            if (act == Action::remove) declared.references.clear();
        }
    }

private:
    // (b, a) for every edge a -> b between destroyed vertices: D(b) waits
    // for D(a). Only direct edges, where Terraform follows a resource's
    // dependencies through everything in between: a search from each
    // destroyed vertex through the vertices left alone, stopping at the
    // destroyed ones it meets, took 45 us a vertex in plan_bench's plan of
    // 10^5 (85% left alone, three references each), against 3.9 us, and
    // added 264,000 edges. The header says how to order such pairs.
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
    // rules' edges. All of them go in one pass over each list: one at a time,
    // the leaves of a hub removed together scan its list once per leaf.
    void make_destroy_vertices() {
        std::vector<std::pair<VertexId, VertexId>> removed_edges;
        for (const auto &[v, act] : action_) {
            if (act != Action::remove) continue;
            for (VertexId d : g_.dependencies(v)) removed_edges.emplace_back(v, d);
            for (VertexId d : g_.dependents(v)) removed_edges.emplace_back(d, v);
        }
        g_.disconnect_many(removed_edges);
        for (const auto &[v, act] : action_) {
            if (!destroys(act)) continue;
            const std::optional<std::string_view> name = g_.name(v);
            const std::optional<std::string> destroyed =
                name ? std::optional<std::string>(destroy_name(*name)) : std::nullopt;
            if (act == Action::remove) {
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
    // With no action the step changes nothing, and a cycle is the
    // validation's to report, not this step's.
    const auto &listed = declarations.vertices();
    if (std::none_of(listed.begin(), listed.end(), [&](VertexId v) {
            return g.has_vertex(v) && declarations.find(v)->action != Action::none;
        }))
        return;
    const std::string cycles = cycle_report(g);
    if (!cycles.empty()) throw Error(Errc::cycle, cycles);
    Plan(g, declarations).apply();
}

}  // namespace dag
