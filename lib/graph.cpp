#include "graph.hpp"

#include <algorithm>

#include "error.hpp"
#include "utf8.hpp"

namespace dag {

void check_name(std::string_view name) {
    if (name.empty())
        throw Error(Errc::invalid_argument, "vertex name is empty (pass no name for an unnamed vertex)");
    if (!is_valid_utf8(name))
        throw Error(Errc::bad_utf8, "vertex name is not valid UTF-8");
}

Graph::Graph(const Graph &other) { copy_from(other); }

Graph &Graph::operator=(const Graph &other) {
    if (this != &other) {
        check_mutable();
        copy_from(other);
    }
    return *this;
}

void Graph::copy_from(const Graph &other) {
    AdjacencyList adj(other.adj_);
    std::unordered_map<std::string, Vertex> names;
    names.reserve(other.names_.size());
    for (const auto &entry : other.names_) {
        auto it = names.emplace(entry.first, entry.second).first;
        adj[entry.second].name = &it->first;
    }
    adj_.swap(adj);
    names_.swap(names);
    live_ = other.live_;
}

void Graph::check_mutable() const {
    if (walking())
        throw Error(Errc::busy, "the graph is being walked; change it through the walk handle or wait for the walk to end");
}

Vertex Graph::checked(VertexId id) const {
    if (!has_vertex(id)) {
        if (id == no_vertex) throw Error(Errc::unknown_vertex, "vertex id 0 is never valid");
        throw Error(Errc::unknown_vertex, "unknown vertex id " + std::to_string(id) +
                                              (id <= index_bound() ? " (it was removed)" : ""));
    }
    return index_of(id);
}

bool Graph::has_vertex(VertexId id) const noexcept {
    return id != no_vertex && id <= index_bound() && adj_[index_of(id)].alive;
}

const std::string *Graph::claim_name(std::string_view name, Vertex v) {
    auto [it, inserted] = names_.emplace(std::string(name), v);
    if (!inserted)
        throw Error(Errc::duplicate_name, "vertex name \"" + std::string(name) + "\" is already used by vertex " +
                                              std::to_string(id_of(it->second)));
    return &it->first;
}

VertexId Graph::add_vertex(std::optional<std::string_view> name, void *user) {
    check_mutable();
    if (name) check_name(*name);
    Vertex v = boost::num_vertices(adj_);
    const std::string *stored = name ? claim_name(*name, v) : nullptr;
    try {
        Vertex added = boost::add_vertex(VertexProps{stored, user, true}, adj_);
        (void)added;
    } catch (...) {
        if (stored) names_.erase(*stored);
        throw;
    }
    ++live_;
    return id_of(v);
}

void Graph::unlink(Vertex v) {
    boost::clear_vertex(v, adj_);
}

void Graph::remove_vertex(VertexId id) {
    check_mutable();
    Vertex v = checked(id);
    unlink(v);
    VertexProps &p = adj_[v];
    if (p.name) names_.erase(*p.name);
    p = VertexProps{};
    --live_;
}

void Graph::set_name(VertexId id, std::optional<std::string_view> name) {
    check_mutable();
    Vertex v = checked(id);
    VertexProps &p = adj_[v];
    if (name) {
        check_name(*name);
        if (p.name && *p.name == *name) return;
        const std::string *stored = claim_name(*name, v);
        if (p.name) names_.erase(*p.name);
        p.name = stored;
    } else if (p.name) {
        names_.erase(*p.name);
        p.name = nullptr;
    }
}

void Graph::set_user(VertexId id, void *user) { adj_[checked(id)].user = user; }

VertexId Graph::find(std::string_view name) const {
    auto it = names_.find(std::string(name));
    if (it == names_.end()) throw Error(Errc::not_found, "no vertex is named \"" + std::string(name) + "\"");
    return id_of(it->second);
}

const std::string *Graph::name(VertexId id) const { return adj_[checked(id)].name; }

void *Graph::user(VertexId id) const { return adj_[checked(id)].user; }

std::string Graph::display_name(VertexId id) const {
    const std::string *n = name(id);
    return n ? *n : std::to_string(id);
}

bool Graph::has_edge_index(Vertex a, Vertex b) const noexcept {
    // Scan the shorter of the two lists, so a hub with a million dependencies
    // still connects a new leaf in O(1).
    if (boost::out_degree(a, adj_) <= boost::in_degree(b, adj_)) {
        for (auto [it, end] = boost::adjacent_vertices(a, adj_); it != end; ++it)
            if (*it == b) return true;
    } else {
        for (auto [it, end] = boost::inv_adjacent_vertices(b, adj_); it != end; ++it)
            if (*it == a) return true;
    }
    return false;
}

void Graph::add_edge_index(Vertex a, Vertex b) {
    if (!has_edge_index(a, b)) boost::add_edge(a, b, adj_);
}

void Graph::connect(VertexId from, VertexId to) {
    check_mutable();
    Vertex a = checked(from), b = checked(to);
    add_edge_index(a, b);
}

void Graph::disconnect(VertexId from, VertexId to) {
    check_mutable();
    Vertex a = checked(from), b = checked(to);
    if (has_edge_index(a, b)) boost::remove_edge(a, b, adj_);
}

bool Graph::has_edge(VertexId from, VertexId to) const noexcept {
    return has_vertex(from) && has_vertex(to) && has_edge_index(index_of(from), index_of(to));
}

void Graph::replace_vertex(VertexId original, VertexId replacement) {
    check_mutable();
    Vertex o = checked(original), r = checked(replacement);
    if (o == r) return;
    std::vector<Vertex> targets, sources;
    for (auto [it, end] = boost::adjacent_vertices(o, adj_); it != end; ++it) targets.push_back(*it);
    for (auto [it, end] = boost::inv_adjacent_vertices(o, adj_); it != end; ++it) sources.push_back(*it);
    // Undo log: on allocation failure part-way, remove what was added so the
    // graph is exactly as it was.
    std::vector<std::pair<Vertex, Vertex>> added;
    added.reserve(targets.size() + sources.size());
    auto add = [&](Vertex a, Vertex b) {
        if (has_edge_index(a, b)) return;
        boost::add_edge(a, b, adj_);
        added.emplace_back(a, b);
    };
    try {
        for (Vertex t : targets) add(r, t == o ? r : t);
        for (Vertex s : sources)
            if (s != o) add(s, r);
    } catch (...) {
        for (auto [a, b] : added) boost::remove_edge(a, b, adj_);
        throw;
    }
    remove_vertex(original);
}

std::vector<VertexId> Graph::vertices() const {
    std::vector<VertexId> out;
    out.reserve(live_);
    for (Vertex v = 0, n = index_bound(); v < n; ++v)
        if (adj_[v].alive) out.push_back(id_of(v));
    return out;
}

std::vector<std::pair<VertexId, VertexId>> Graph::edges() const {
    std::vector<std::pair<VertexId, VertexId>> out;
    out.reserve(edge_count());
    for (Vertex v = 0, n = index_bound(); v < n; ++v) {
        std::size_t first = out.size();
        for (auto [it, end] = boost::adjacent_vertices(v, adj_); it != end; ++it)
            out.emplace_back(id_of(v), id_of(*it));
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    }
    return out;
}

std::vector<VertexId> Graph::dependencies(VertexId id) const {
    Vertex v = checked(id);
    std::vector<VertexId> out;
    out.reserve(boost::out_degree(v, adj_));
    for (auto [it, end] = boost::adjacent_vertices(v, adj_); it != end; ++it) out.push_back(id_of(*it));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<VertexId> Graph::dependents(VertexId id) const {
    Vertex v = checked(id);
    std::vector<VertexId> out;
    out.reserve(boost::in_degree(v, adj_));
    for (auto [it, end] = boost::inv_adjacent_vertices(v, adj_); it != end; ++it) out.push_back(id_of(*it));
    std::sort(out.begin(), out.end());
    return out;
}

void Graph::subsume(const Graph &other) {
    check_mutable();
    if (&other == this) throw Error(Errc::invalid_argument, "a graph cannot subsume itself");
    const Vertex first_new = index_bound();
    const std::size_t live_before = live_;
    std::vector<Vertex> map(other.index_bound());
    std::vector<std::pair<Vertex, Vertex>> added_edges;
    try {
        for (Vertex v = 0, n = other.index_bound(); v < n; ++v) {
            const VertexProps &p = other.adj_[v];
            if (!p.alive) continue;
            if (p.name) {
                auto it = names_.find(*p.name);
                if (it != names_.end()) {
                    map[v] = it->second;
                    continue;
                }
            }
            map[v] = index_of(add_vertex(p.name ? std::optional<std::string_view>(*p.name) : std::nullopt, p.user));
        }
        for (Vertex v = 0, n = other.index_bound(); v < n; ++v) {
            for (auto [it, end] = boost::adjacent_vertices(v, other.adj_); it != end; ++it) {
                Vertex a = map[v], b = map[*it];
                if (has_edge_index(a, b)) continue;
                boost::add_edge(a, b, adj_);
                added_edges.emplace_back(a, b);
            }
        }
    } catch (...) {
        for (auto [a, b] : added_edges) boost::remove_edge(a, b, adj_);
        // New vertices sit at the end of the vertex vector; popping them
        // restores it exactly (no edges touch them any more).
        while (index_bound() > first_new) {
            Vertex last = index_bound() - 1;
            if (adj_[last].name) names_.erase(*adj_[last].name);
            boost::remove_vertex(last, adj_);
        }
        live_ = live_before;
        throw;
    }
}

std::string Graph::to_string() const {
    struct Entry {
        std::string name;
        Vertex v;
    };
    auto by_name = [](const Entry &a, const Entry &b) { return a.name != b.name ? a.name < b.name : a.v < b.v; };
    std::vector<Entry> entries;
    entries.reserve(live_);
    for (Vertex v = 0, n = index_bound(); v < n; ++v)
        if (adj_[v].alive) entries.push_back({display_name(id_of(v)), v});
    std::sort(entries.begin(), entries.end(), by_name);
    std::string out;
    std::vector<Entry> deps;
    for (const Entry &e : entries) {
        out += e.name;
        out += '\n';
        deps.clear();
        for (auto [it, end] = boost::adjacent_vertices(e.v, adj_); it != end; ++it)
            deps.push_back({display_name(id_of(*it)), *it});
        std::sort(deps.begin(), deps.end(), by_name);
        for (const Entry &d : deps) {
            out += "  ";
            out += d.name;
            out += '\n';
        }
    }
    return out;
}

}  // namespace dag
