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
    // other than C(a) -> D(b) applies; each such rule has a destroyed end.
    // Through vertices with an action the rules chain instead (D(c) after
    // D(b) after D(a)).
    //
    // An early destroyed a has a rule with every vertex with an action it
    // reaches so, a late one with every destroyed one: found from the sets
    // of the vertices left alone below it, each computed once from its
    // dependencies' while it stays small, else by a search from a, which
    // then has over 64 pairs to make (keeping every set, a chain of 10^5
    // locals over resources kept 10^10/2 entries). Any other
    // a needs only the late destroys it reaches, found by a search up from
    // each late destroy (they are few: a hub of updates over updates costs
    // nothing).
    std::vector<std::pair<VertexId, VertexId>> paths_through_vertices_left_alone() {
        std::vector<std::pair<VertexId, VertexId>> paths;
        if (std::none_of(action_.begin(), action_.end(), [](const auto &entry) { return destroys(entry.second); }))
            return paths;
        ReachSets all(g_.index_bound(), false), destroyed(g_.index_bound(), true);
        seen_.assign(g_.index_bound(), 0);
        const auto needs_rule = [this](VertexId a, VertexId b) {
            const Action aact = action(a), bact = action(b);
            const bool da = destroys(aact), db = destroys(bact);
            return a != b &&
                   ((da && db) || (da && !late(a) && changes(bact)) || (db && late(b) && changes(aact)));
        };
        std::vector<VertexId> reached;
        for (const auto &[a, act] : action_) {
            if (!destroys(act)) continue;
            reached_from(a, late(a) ? destroyed : all, reached);
            for (VertexId b : reached)
                if (needs_rule(a, b)) paths.emplace_back(a, b);
        }
        for (const auto &[b, act] : action_) {
            if (!destroys(act) || !late(b)) continue;
            reached.clear();
            search(b, reached, true, false);
            for (VertexId a : reached)
                if (!destroys(action(a)) && needs_rule(a, b)) paths.emplace_back(a, b);
        }
        std::sort(paths.begin(), paths.end());
        paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
        seen_ = {};
        return paths;
    }

    // What each vertex left alone reaches through vertices left alone:
    // every vertex with an action, or the destroyed ones only; by index.
    enum class ReachState : char { unknown, kept, too_large };
    struct ReachSets {
        ReachSets(std::size_t bound, bool destroyed_only)
            : sets(bound), state(bound, ReachState::unknown), destroyed(destroyed_only) {}
        std::vector<std::vector<VertexId>> sets;  // where kept
        std::vector<ReachState> state;
        bool destroyed;
    };

    bool wanted(VertexId v, const ReachSets &r) const { return !r.destroyed || destroys(action(v)); }

    // Into `out`: what `a` reaches through vertices left alone, as `r` has it.
    void reached_from(VertexId a, ReachSets &r, std::vector<VertexId> &out) {
        out.clear();
        const std::vector<VertexId> dependencies = g_.dependencies(a);
        bool small = true;
        for (VertexId x : dependencies)
            if (action(x) == Action::none) small = reach(x, r) && small;
        if (!small) {
            search(a, out, false, r.destroyed);
            return;
        }
        for (VertexId x : dependencies) {
            if (action(x) == Action::none) {
                const std::vector<VertexId> &below = r.sets[Graph::index_of(x)];
                out.insert(out.end(), below.begin(), below.end());
            }
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
    }

    // From `from` through vertices left alone, down its dependencies or up
    // its dependents, to the vertices with an action met (not beyond
    // them), added to `out` (the destroyed ones only, if so asked).
    void search(VertexId from, std::vector<VertexId> &out, bool up, bool destroyed_only) {
        ++search_;
        std::vector<VertexId> stack;
        const auto visit = [&](VertexId v) {
            unsigned &seen = seen_[Graph::index_of(v)];
            if (seen == search_) return;
            seen = search_;
            if (action(v) == Action::none) stack.push_back(v);
            else if (!destroyed_only || destroys(action(v))) out.push_back(v);
        };
        for (VertexId v : up ? g_.dependents(from) : g_.dependencies(from)) visit(v);
        while (!stack.empty()) {
            const VertexId x = stack.back();
            stack.pop_back();
            for (VertexId v : up ? g_.dependents(x) : g_.dependencies(x)) visit(v);
        }
    }

    // Whether r keeps the set of `root`, left alone: computed depth first,
    // each vertex's after its dependencies', without recursion (a chain of
    // 10^5 locals would overflow the stack); a set over `max_kept` is not
    // kept, nor is one that a set not kept would be part of.
    bool reach(VertexId root, ReachSets &r) {
        static constexpr std::size_t max_kept = 64;
        // A vertex comes back up with the dependencies listed on its way
        // down (a listing copies and sorts them).
        struct Visit {
            VertexId x;
            std::vector<VertexId> dependencies;
            bool expanded;
        };
        std::vector<Visit> stack;
        stack.push_back({root, {}, false});
        while (!stack.empty()) {
            Visit visit = std::move(stack.back());
            stack.pop_back();
            const VertexId x = visit.x;
            ReachState &state = r.state[Graph::index_of(x)];
            if (state != ReachState::unknown) continue;
            if (!visit.expanded) {
                std::vector<VertexId> dependencies = g_.dependencies(x);
                std::vector<VertexId> below;
                for (VertexId d : dependencies)
                    if (action(d) == Action::none && r.state[Graph::index_of(d)] == ReachState::unknown)
                        below.push_back(d);
                stack.push_back({x, std::move(dependencies), true});
                for (VertexId d : below) stack.push_back({d, {}, false});
                continue;
            }
            const std::vector<VertexId> &dependencies = visit.dependencies;
            std::vector<VertexId> reached;
            bool kept = true;
            for (VertexId d : dependencies) {
                if (action(d) != Action::none) {
                    if (wanted(d, r)) reached.push_back(d);
                } else if (r.state[Graph::index_of(d)] == ReachState::kept) {
                    const std::vector<VertexId> &further = r.sets[Graph::index_of(d)];
                    reached.insert(reached.end(), further.begin(), further.end());
                } else {
                    kept = false;
                }
                if (reached.size() > 4 * max_kept) kept = false;
                if (!kept) break;
            }
            if (kept) {
                std::sort(reached.begin(), reached.end());
                reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
                kept = reached.size() <= max_kept;
            }
            if (kept) r.sets[Graph::index_of(x)] = std::move(reached);
            state = kept ? ReachState::kept : ReachState::too_large;
        }
        return r.state[Graph::index_of(root)] == ReachState::kept;
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
    // While the pairs through vertices left alone are found: by vertex
    // index, the search that last met the vertex.
    std::vector<unsigned> seen_;
    unsigned search_ = 0;
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
