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
        by_index_.assign(g.index_bound(), Action::none);
        for (const auto &[v, act] : action_) by_index_[Graph::index_of(v)] = act;
    }

    // Read for every edge: by index, not from the map (a cache miss a level).
    Action action(VertexId v) const {
        const std::size_t i = Graph::index_of(v);
        return i < by_index_.size() ? by_index_[i] : Action::none;
    }
    bool late(VertexId v) const {
        const std::size_t i = Graph::index_of(v);
        return i < late_.size() && late_[i];
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
        const std::vector<std::pair<VertexId, VertexId>> paths = paths_through_vertices_left_alone();
        make_destroy_vertices();
        std::vector<VertexId> pairs;
        auto connect = [&pairs](VertexId from, VertexId to) {
            pairs.push_back(from);
            pairs.push_back(to);
        };
        for (const auto &[a, b] : edges) {
            const bool da = destroys(action(a)), db = destroys(action(b));
            if (db && action(a) != Action::remove) {
                if (late(b)) connect(destroy_.at(b), a);
                else connect(a, destroy_.at(b));
            }
            if (da && !late(a) && changes(action(b))) connect(b, destroy_.at(a));
        }
        // C(a) -> D(b) for an early D(b) needs no path's edge: the path's
        // last vertex x already waits for D(b) (x -> D(b)), and a for x.
        for (const auto &[a, b] : paths) {
            const bool da = destroys(action(a)), db = destroys(action(b));
            if (da && db) destroy_after_.emplace_back(b, a);
            if (db && late(b) && changes(action(a))) connect(destroy_.at(b), a);
            if (da && !late(a) && changes(action(b))) connect(b, destroy_.at(a));
        }
        for (const auto &[b, a] : destroy_after_) connect(destroy_.at(b), destroy_.at(a));
        for (const auto &[v, d] : destroy_) {
            if (d == v) continue;
            if (late(v)) connect(d, v);
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
    // Terraform's rules follow a resource's dependencies through the
    // vertices in between (a local, a variable, a module output): beside
    // the input's edges, the pairs (a, b) of vertices with an action where
    // a reaches b by a path whose inner vertices all have none, and a rule
    // other than C(a) -> D(b) applies. Through vertices with an action the
    // rules chain instead (D(c) after D(b) after D(a)). What each vertex
    // left alone reaches so is found once, from its dependencies', not by
    // a search per vertex with an action.
    std::vector<std::pair<VertexId, VertexId>> paths_through_vertices_left_alone() {
        ahead_.assign(g_.index_bound(), {});
        found_.assign(g_.index_bound(), 0);
        std::vector<std::pair<VertexId, VertexId>> paths;
        for (const auto &[a, act] : action_) {
            const bool da = destroys(act), early = da && !late(a);
            for (VertexId x : g_.dependencies(a)) {
                if (action(x) != Action::none) continue;
                for (VertexId b : ahead(x)) {
                    const Action bact = action(b);
                    const bool db = destroys(bact);
                    if (b != a && ((da && db) || (early && changes(bact)) || (db && late(b) && changes(act))))
                        paths.emplace_back(a, b);
                }
            }
        }
        std::sort(paths.begin(), paths.end());
        paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
        ahead_ = {};
        found_ = {};
        return paths;
    }

    // The vertices with an action that `root`, left alone, reaches through
    // vertices left alone, ascending: depth first, each vertex's after all
    // its dependencies' (the input is acyclic), without recursion (a chain
    // of 10^5 locals would overflow the stack).
    const std::vector<VertexId> &ahead(VertexId root) {
        std::vector<std::pair<VertexId, bool>> stack{{root, false}};
        while (!stack.empty()) {
            const auto [x, expanded] = stack.back();
            stack.pop_back();
            if (found_[Graph::index_of(x)]) continue;
            const std::vector<VertexId> dependencies = g_.dependencies(x);
            if (!expanded) {
                stack.emplace_back(x, true);
                for (VertexId d : dependencies)
                    if (action(d) == Action::none && !found_[Graph::index_of(d)]) stack.emplace_back(d, false);
                continue;
            }
            std::vector<VertexId> reached;
            for (VertexId d : dependencies) {
                if (action(d) != Action::none) {
                    reached.push_back(d);
                } else {
                    const std::vector<VertexId> &further = ahead_[Graph::index_of(d)];
                    reached.insert(reached.end(), further.begin(), further.end());
                }
            }
            std::sort(reached.begin(), reached.end());
            reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
            ahead_[Graph::index_of(x)] = std::move(reached);
            found_[Graph::index_of(x)] = 1;
        }
        return ahead_[Graph::index_of(root)];
    }

    // (b, a) for every edge a -> b between destroyed vertices: D(b) waits
    // for D(a).
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
        late_.assign(g_.index_bound(), 0);
        std::unordered_set<VertexId> seen;
        std::vector<VertexId> stack;
        for (const auto &[v, act] : action_)
            if (act == Action::create_before_destroy && seen.insert(v).second) stack.push_back(v);
        while (!stack.empty()) {
            const VertexId v = stack.back();
            stack.pop_back();
            if (destroys(action(v))) late_[Graph::index_of(v)] = 1;
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
    std::vector<Action> by_index_;  // action_ by vertex index
    std::vector<char> late_;        // by vertex index
    std::vector<std::vector<VertexId>> ahead_;  // by vertex index, while the pairs are found
    std::vector<char> found_;                  // whether ahead_ holds the vertex's
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
