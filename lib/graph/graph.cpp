#include "graph/graph.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "graph/error.hpp"
#include "graph/growth.hpp"
#include "graph/huge_pages.hpp"
#include "graph/utf8.hpp"

namespace dag {

void check_name(std::string_view name) {
    if (name.empty())
        throw Error(Errc::invalid_argument, "vertex name is empty (pass no name for an unnamed vertex)");
    // Before anything reads it: the stored length would be cut short.
    if (name.size() > max_name_bytes)
        throw Error(Errc::invalid_argument, "vertex name is " + std::to_string(name.size()) +
                                                " bytes long (at most " + std::to_string(max_name_bytes) + ")");
    if (!is_valid_utf8(name))
        throw Error(Errc::bad_utf8, "vertex name is not valid UTF-8");
    // A C string cannot hold it: C callers would see the name cut short.
    if (name.find('\0') != std::string_view::npos)
        throw Error(Errc::invalid_argument, "vertex name holds a NUL character");
}

// Boost's copy of a directedS adjacency_list adds the edges again one at a
// time; copying the vertex records copies each edge vector whole. Only the
// names are stored again and re-pointed.
Graph::Graph(const Graph &other) : edges_(other.edges_), live_(other.live_) {
    const EdgeArenaScope lists(*edge_arena_);
    (*adj_).m_vertices = (*other.adj_).m_vertices;
    (*in_).m_vertices = (*other.in_).m_vertices;
    names_.reserve(other.names_.size());
    std::uint32_t holder = 0;
    for (Vertex v = 0, n = index_bound(); v < n; ++v) {
        VertexProps &p = (*adj_)[v];
        if (p.name) p.name = names_.insert(p.name_view(), static_cast<std::uint32_t>(v), holder);
    }
}

Graph &Graph::operator=(const Graph &other) {
    if (this != &other) {
        begin_change();
        Graph copy(other);
        swap(copy);
    }
    return *this;
}

void Graph::swap(Graph &other) noexcept {
    // Locking sorted_mu_ twice would never return.
    if (this == &other) return;
    drop_snapshot();
    other.drop_snapshot();
    orders_.drop();
    other.orders_.drop();
    edge_arena_.swap(other.edge_arena_);
    adj_.swap(other.adj_);
    in_.swap(other.in_);
    std::swap(edges_, other.edges_);
    names_.swap(other.names_);
    std::swap(live_, other.live_);
    {
        std::scoped_lock lk(sorted_mu_, other.sorted_mu_);
        sorted_names_.swap(other.sorted_names_);
    }
    ++names_version_;
    ++other.names_version_;
}

namespace {
// The innermost ReadScope of this thread; each links to the one it is in.
thread_local const ReadScope *innermost_read = nullptr;
// The innermost build this thread runs (Graph::BuildingHere), if any.
thread_local const Graph::BuildingHere *innermost_build = nullptr;
}  // namespace

Graph::BuildingHere::BuildingHere(const Graph &g) noexcept : g_(g), outer_(innermost_build) { innermost_build = this; }

Graph::BuildingHere::~BuildingHere() { innermost_build = outer_; }

bool Graph::BuildingHere::building(const Graph &g) noexcept {
    for (const BuildingHere *b = innermost_build; b; b = b->outer_)
        if (&b->g_ == &g) return true;
    return false;
}

ReadScope::ReadScope(const Graph &g) : g_(g), lock_(g.replace_mu_, std::defer_lock) {
    // Outside walks nothing replaces the graph, and the scope costs one load.
    if (!g.walking()) return;
    // A scope already held on this thread keeps out a writer: taking the
    // lock again could only wait behind a writer that waits for this thread.
    if (!reading(g)) lock_.lock();
    outer_ = innermost_read;
    innermost_read = this;
    linked_ = true;
}

ReadScope::~ReadScope() {
    if (linked_) innermost_read = outer_;
}

bool ReadScope::reading(const Graph &g) noexcept {
    for (const ReadScope *r = innermost_read; r; r = r->outer_)
        if (&r->g_ == &g) return true;
    return false;
}

bool ReadScope::reading_any() noexcept { return innermost_read != nullptr; }

std::unique_lock<std::shared_mutex> Graph::exclude_readers() const {
    return std::unique_lock<std::shared_mutex>(replace_mu_);
}

void Graph::check_changeable() const {
    if (walking() && !BuildingHere::building(*this))
        throw Error(Errc::busy, "the graph is being walked; change it through the walk handle or wait for the walk to end");
    if (visits_.load(std::memory_order_acquire))
        throw Error(Errc::busy, "the graph is being traversed; change it once the traversal's visitor or predicate has returned");
}

void Graph::begin_change(bool adding) {
    check_changeable();
    drop_snapshot();
    if (!adding) orders_.drop();
}

void Graph::drop_snapshot() const noexcept {
    if (!has_snapshot_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    snapshot_.reset();
    walk_scratch_.reset();
    ranks_.reset();
    has_snapshot_.store(false, std::memory_order_release);
}

std::shared_ptr<const Snapshot> Graph::cached_snapshot() const {
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    return snapshot_;
}

void Graph::cache_snapshot(std::shared_ptr<const Snapshot> s) const {
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    if (s != snapshot_) {
        walk_scratch_.reset();
        ranks_.reset();
    }
    snapshot_ = std::move(s);
    has_snapshot_.store(snapshot_ != nullptr, std::memory_order_release);
}

void Graph::keep_walk_scratch(const Snapshot *s, std::shared_ptr<void> scratch) const {
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    if (snapshot_.get() == s) walk_scratch_ = std::move(scratch);
}

std::shared_ptr<void> Graph::take_walk_scratch(const Snapshot *s) const {
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    if (snapshot_.get() != s) return nullptr;
    return std::move(walk_scratch_);
}

std::shared_ptr<const NameRanks> Graph::cached_ranks(const Snapshot *s) const {
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    if (snapshot_.get() != s || ranks_version_ != names_version_) return nullptr;
    return ranks_;
}

void Graph::keep_ranks(const Snapshot *s, std::shared_ptr<const NameRanks> ranks) const {
    std::lock_guard<std::mutex> lk(snapshot_mu_);
    if (snapshot_.get() != s) return;
    ranks_ = std::move(ranks);
    ranks_version_ = names_version_;
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
    return id != no_vertex && id <= index_bound() && (*adj_)[index_of(id)].alive;
}

const char *Graph::claim_name(std::string_view name, Vertex v) {
    // The name table keeps 32-bit vertex numbers, as the snapshot does.
    if (v >= NameTable::npos)
        throw Error(Errc::invalid_argument, "the graph holds too many vertices to name another");
    std::uint32_t holder = 0;
    const char *stored = names_.insert(name, static_cast<std::uint32_t>(v), holder);
    if (!stored)
        throw Error(Errc::duplicate_name, "vertex name \"" + std::string(name) + "\" is already used by vertex " +
                                              std::to_string(id_of(holder)));
    name_changed(v);
    return stored;
}

void Graph::name_changed(Vertex v) noexcept {
    ++names_version_;
    sorted_names_.changed(static_cast<std::uint32_t>(v));
}

void Graph::drop_name(Vertex v, bool retire) noexcept {
    VertexProps &p = (*adj_)[v];
    if (!p.name) return;
    if (retire)
        names_.retire(p.name_view());
    else
        names_.erase(p.name_view());
    p.name = nullptr;
    p.name_size = 0;
    name_changed(v);
}

namespace {
VertexProps props_of(const char *stored, std::optional<std::string_view> name) {
    VertexProps p;
    p.name = stored;
    p.name_size = stored ? static_cast<std::uint32_t>(name->size()) : 0;
    p.alive = true;
    return p;
}
}  // namespace

VertexId Graph::add_vertex(std::optional<std::string_view> name, void *user) {
    begin_change(true);
    if (name) check_name(*name);
    Vertex v = boost::num_vertices(*adj_);
    const char *stored = name ? claim_name(*name, v) : nullptr;
    try {
        append_vertex(props_of(stored, name), user);
    } catch (...) {
        if (stored) {
            names_.erase(std::string_view(stored, name->size()));
            name_changed(v);
        }
        throw;
    }
    ++live_;
    return id_of(v);
}

VertexId Graph::add_vertices(const char *const *names, void *const *users, std::size_t count) {
    begin_change(true);
    const Vertex first = index_bound();
    std::size_t named = 0;
    constexpr std::size_t read_ahead = 16;
    for (std::size_t i = 0; names && i < count; ++i) {
        if (i + read_ahead < count && names[i + read_ahead]) __builtin_prefetch(names[i + read_ahead]);
        if (!names[i]) continue;
        try {
            check_name(names[i]);
        } catch (const Error &e) {
            throw Error(e.code(), "vertex " + std::to_string(i) + ": " + e.what());
        }
        ++named;
    }
    if (count > (*adj_).m_vertices.max_size() - first)
        throw Error(Errc::invalid_argument, "count " + std::to_string(count) + " is too large: no graph holds that many vertices");
    if (named && first + count > NameTable::npos)
        throw Error(Errc::invalid_argument, "the graph holds too many vertices to name another");
    names_.reserve(names_.size() + named);
    reserve_more((*adj_).m_vertices, count);
    reserve_more((*in_).m_vertices, count);
    // Each new name is a random slot of the index: the slots of a group are
    // fetched together, so their cache misses overlap.
    constexpr std::size_t group = 32;
    std::uint32_t hashes[group];
    try {
        for (std::size_t begin = 0; begin < count; begin += group) {
            const std::size_t n = std::min(group, count - begin);
            for (std::size_t j = 0; names && j < n; ++j) {
                if (!names[begin + j]) continue;
                hashes[j] = NameTable::hash(names[begin + j]);
                names_.prefetch(hashes[j]);
            }
            for (std::size_t j = 0; j < n; ++j) {
                const std::size_t i = begin + j;
                const Vertex v = first + i;
                const char *name = names ? names[i] : nullptr;
                const char *stored = nullptr;
                std::size_t size = 0;
                if (name) {
                    size = std::strlen(name);
                    std::uint32_t holder = 0;
                    stored = names_.insert_hashed(std::string_view(name, size), hashes[j], static_cast<std::uint32_t>(v), holder);
                    if (!stored)
                        throw Error(Errc::duplicate_name, "vertex " + std::to_string(i) + ": vertex name \"" + name +
                                                              "\" is already used by " +
                                                              (holder >= first ? "vertex " + std::to_string(holder - first) + " of the batch"
                                                                               : "vertex " + std::to_string(id_of(holder))));
                    name_changed(v);
                }
                VertexProps props;
                props.name = stored;
                props.name_size = static_cast<std::uint32_t>(size);
                props.alive = true;
                try {
                    append_vertex(props, users ? users[i] : nullptr);
                } catch (...) {
                    if (stored) {
                        names_.erase(std::string_view(stored, size));
                        name_changed(v);
                    }
                    throw;
                }
            }
        }
    } catch (...) {
        while (index_bound() > first) {
            const Vertex v = index_bound() - 1;
            drop_name(v);
            pop_vertex();
        }
        throw;
    }
    live_ += count;
    return id_of(first);
}

void Graph::find_many(const std::string_view *names, std::size_t count, VertexId *out) const {
    constexpr std::size_t group = 256;
    std::uint32_t found[group];
    for (std::size_t begin = 0; begin < count; begin += group) {
        const std::size_t n = std::min(group, count - begin);
        names_.find_many(names + begin, n, found);
        for (std::size_t j = 0; j < n; ++j) out[begin + j] = found[j] == NameTable::npos ? no_vertex : id_of(found[j]);
    }
}

void Graph::append_vertex(const VertexProps &props, void *user) {
    const EdgeArenaScope lists(*edge_arena_);
    boost::add_vertex(props, *adj_);
    try {
        boost::add_vertex(ReverseProps{user}, *in_);
    } catch (...) {
        (*adj_).m_vertices.pop_back();
        throw;
    }
}

void Graph::pop_vertex() noexcept {
    (*adj_).m_vertices.pop_back();
    (*in_).m_vertices.pop_back();
}

// Each edge of v is also an entry in the other end's opposite list; a self
// edge is one edge with both entries in v's own lists.
void Graph::unlink(Vertex v) {
    bool self = false;
    for (auto [it, end] = boost::adjacent_vertices(v, *adj_); it != end; ++it)
        if (*it != v)
            boost::remove_edge(*it, v, *in_);
        else
            self = true;
    for (auto [it, end] = boost::adjacent_vertices(v, *in_); it != end; ++it)
        if (*it != v) boost::remove_edge(*it, v, *adj_);
    edges_ -= boost::out_degree(v, *adj_) + boost::out_degree(v, *in_) - (self ? 1 : 0);
    boost::clear_out_edges(v, *adj_);
    boost::clear_out_edges(v, *in_);
}

void Graph::remove_edge_index(Vertex a, Vertex b) noexcept {
    boost::remove_edge(a, b, *adj_);
    boost::remove_edge(b, a, *in_);
    --edges_;
}

void Graph::remove_vertex(VertexId id) {
    begin_change();
    Vertex v = checked(id);
    unlink(v);
    drop_name(v);
    (*adj_)[v] = VertexProps{};
    (*in_)[v] = ReverseProps{};
    --live_;
}

namespace {

// Edge keys as remove_edge_set() takes them: (first << 32 | second) sorted,
// repeats dropped, and the same with the ends swapped.
std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> edge_keys(std::vector<std::uint64_t> forward) {
    std::vector<std::uint64_t> backward(forward.size());
    std::transform(forward.begin(), forward.end(), backward.begin(),
                   [](std::uint64_t k) { return k << 32 | k >> 32; });
    for (auto *keys : {&forward, &backward}) {
        std::sort(keys->begin(), keys->end());
        keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    }
    return {std::move(forward), std::move(backward)};
}

// Drops the entries of each list whose (owner, entry) key is in `keys`,
// visiting the lists in key order, each once; returns how many it dropped.
template <class List>
std::size_t drop_keyed(List &lists, const std::vector<std::uint64_t> &keys) noexcept {
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < keys.size();) {
        const auto owner = static_cast<std::uint32_t>(keys[i] >> 32);
        std::size_t end = i;
        while (end < keys.size() && keys[end] >> 32 == owner) ++end;
        const auto first = keys.begin() + static_cast<std::ptrdiff_t>(i), last = keys.begin() + static_cast<std::ptrdiff_t>(end);
        auto &list = lists.out_edge_list(owner);
        const std::size_t before = list.size();
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [&](const auto &e) {
                                      return std::binary_search(first, last, std::uint64_t{owner} << 32 | e.get_target());
                                  }),
                   list.end());
        dropped += before - list.size();
        i = end;
    }
    return dropped;
}

}  // namespace

void Graph::remove_vertices(const std::vector<VertexId> &ids) {
    // Nothing to remove changes nothing, and keeps the cached snapshot.
    if (ids.empty()) return check_changeable();
    begin_change();
    std::vector<Vertex> gone;
    gone.reserve(ids.size());
    for (VertexId id : ids) gone.push_back(checked(id));
    std::sort(gone.begin(), gone.end());
    gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
    std::vector<std::uint64_t> keys;
    for (Vertex v : gone) {
        for (auto [it, end] = boost::adjacent_vertices(v, *adj_); it != end; ++it)
            keys.push_back(std::uint64_t{v} << 32 | *it);
        for (auto [it, end] = boost::adjacent_vertices(v, *in_); it != end; ++it)
            keys.push_back(std::uint64_t{*it} << 32 | v);
    }
    const auto [forward, backward] = edge_keys(std::move(keys));
    remove_edge_set(forward, backward);
    for (Vertex v : gone) {
        drop_name(v);
        (*adj_)[v] = VertexProps{};
        (*in_)[v] = ReverseProps{};
        --live_;
    }
}

void Graph::set_name(VertexId id, std::optional<std::string_view> name) {
    // Names are not part of the snapshot (the ranks kept with it are for one
    // version of the names), so a rename keeps it and the next query or walk
    // does not freeze again.
    check_changeable();
    Vertex v = checked(id);
    VertexProps &p = (*adj_)[v];
    orders_.drop();
    if (name) {
        check_name(*name);
        if (p.name && p.name_view() == *name) return;
        const char *stored = claim_name(*name, v);
        drop_name(v);
        p.name = stored;
        p.name_size = static_cast<std::uint32_t>(name->size());
    } else {
        drop_name(v);
    }
}

void Graph::set_user(VertexId id, void *user) { (*in_)[checked(id)].user = user; }

VertexId Graph::find(std::string_view name) const {
    const std::uint32_t v = names_.find(name);
    if (v == NameTable::npos) throw Error(Errc::not_found, "no vertex is named \"" + std::string(name) + "\"");
    return id_of(v);
}

std::optional<std::string_view> Graph::name(VertexId id) const {
    const VertexProps &p = (*adj_)[checked(id)];
    if (!p.name) return std::nullopt;
    return p.name_view();
}

void *Graph::user(VertexId id) const { return (*in_)[checked(id)].user; }

std::string Graph::display_name(VertexId id) const {
    const std::optional<std::string_view> n = name(id);
    return n ? std::string(*n) : std::to_string(id);
}

bool Graph::has_edge_index(Vertex a, Vertex b) const noexcept {
    // Scan the shorter of the two lists, so a hub with a million dependencies
    // still connects a new leaf in O(1).
    if (boost::out_degree(a, *adj_) <= boost::out_degree(b, *in_)) {
        for (auto [it, end] = boost::adjacent_vertices(a, *adj_); it != end; ++it)
            if (*it == b) return true;
    } else {
        for (auto [it, end] = boost::adjacent_vertices(b, *in_); it != end; ++it)
            if (*it == a) return true;
    }
    return false;
}

namespace {

// An edge is two appends, to the source's dependencies and to the target's
// dependents; growing both vectors first (geometrically, as push_back would)
// leaves nothing that can fail between them.
template <class Vec>
void make_room(Vec &v) {
    if (v.size() == v.capacity()) v.reserve(v.empty() ? 2 : 2 * v.size());
}

}  // namespace

bool Graph::add_edge_index(Vertex a, Vertex b) {
    if (has_edge_index(a, b)) return false;
    make_room((*adj_).out_edge_list(a));
    make_room((*in_).out_edge_list(b));
    boost::add_edge(a, b, *adj_);
    boost::add_edge(b, a, *in_);
    ++edges_;
    return true;
}

void Graph::connect_many(const VertexId *pairs, std::size_t count) {
    begin_change(true);
    // With no vertex ever removed every id up to the bound is live, and the
    // check reads no vertex record (one random cache miss an id fewer).
    // Otherwise ids are random in memory too: the check fetches ahead.
    const bool no_tombstones = live_ == index_bound();
    constexpr std::size_t check_ahead = 32;
    for (std::size_t i = 0; i < 2 * count; ++i) {
        if (no_tombstones) {
            if (pairs[i] - 1 < index_bound()) continue;
        } else {
            if (i + check_ahead < 2 * count && pairs[i + check_ahead] - 1 < index_bound())
                __builtin_prefetch(&(*adj_).m_vertices[index_of(pairs[i + check_ahead])]);
            if (has_vertex(pairs[i])) continue;
        }
        try {
            checked(pairs[i]);
        } catch (const Error &e) {
            throw Error(e.code(), std::string("edge ") + std::to_string(i / 2) + ": " + e.what());
        }
    }
    constexpr std::size_t max32 = std::numeric_limits<std::uint32_t>::max() - 1;
    if (count >= index_bound() / 16 && count <= max32 && index_bound() <= max32)
        connect_grouped(pairs, count);
    else
        connect_each(pairs, count);
    orders_.connected(count, [pairs](std::size_t i) {
        return KeptOrders::Edge{static_cast<std::uint32_t>(index_of(pairs[2 * i])),
                                static_cast<std::uint32_t>(index_of(pairs[2 * i + 1]))};
    });
}

void Graph::connect_each(const VertexId *pairs, std::size_t count) {
    // Targets are random in memory: fetch each target's record, then its
    // in-list, a few edges ahead, so the cache misses overlap.
    constexpr std::size_t record_ahead = 16, list_ahead = 8;
    std::vector<bool> added(count);
    try {
        for (std::size_t i = 0; i < count; ++i) {
            if (i + record_ahead < count) __builtin_prefetch(&(*in_).m_vertices[index_of(pairs[2 * (i + record_ahead) + 1])]);
            if (i + list_ahead < count) {
                const auto &in = (*in_).out_edge_list(index_of(pairs[2 * (i + list_ahead) + 1]));
                __builtin_prefetch(in.data() + in.size(), 1);
            }
            added[i] = add_edge_index(index_of(pairs[2 * i]), index_of(pairs[2 * i + 1]));
        }
    } catch (...) {
        for (std::size_t i = 0; i < count; ++i)
            if (added[i]) remove_edge_index(index_of(pairs[2 * i]), index_of(pairs[2 * i + 1]));
        throw;
    }
}

void Graph::connect_grouped(const VertexId *pairs, std::size_t count) {
    // A batch that touches a large part of the graph. Edge by edge, each
    // target's record and dependent list is a random cache miss (two a
    // edge, most of the time of a 10^6-vertex build). Instead: size every
    // list once (exactly where it was empty: no regrowth copies, no slack),
    // group the edges by target with a stable counting sort, and fill the
    // dependent lists target by target, whose records and (freshly
    // reserved) lists then lie in memory in that order; the dependency lists
    // follow in batch order. Every allocation comes first, so nothing after
    // it can fail.
    const std::size_t bound = index_bound();
    HugeVector<std::uint32_t> per_source(bound), group_end(bound);
    for (std::size_t i = 0; i < count; ++i) {
        ++per_source[index_of(pairs[2 * i])];
        ++group_end[index_of(pairs[2 * i + 1])];
    }
    for (Vertex v = 0; v < bound; ++v) {
        if (per_source[v]) reserve_more((*adj_).out_edge_list(v), per_source[v]);
        if (group_end[v]) reserve_more((*in_).out_edge_list(v), group_end[v]);
    }
    struct Entry {
        std::uint32_t source, edge;
    };
    HugeVector<Entry> by_target(count);
    std::vector<bool> added(count);

    std::uint32_t start = 0;
    for (Vertex v = 0; v < bound; ++v) start += std::exchange(group_end[v], start);
    for (std::size_t i = 0; i < count; ++i)
        by_target[group_end[index_of(pairs[2 * i + 1])]++] = {static_cast<std::uint32_t>(index_of(pairs[2 * i])), static_cast<std::uint32_t>(i)};

    // per_source now marks, for each source, the last target (+ 1) it was
    // added to in this batch: a repeat within a group is a duplicate. An edge
    // present before the batch can only be there when the target had
    // dependents already.
    std::fill(per_source.begin(), per_source.end(), 0);
    std::size_t begin = 0, made = 0;
    for (Vertex b = 0; b < bound; ++b) {
        const std::size_t end = group_end[b];
        if (begin == end) continue;
        auto &in = (*in_).out_edge_list(b);
        const bool had_dependents = !in.empty();
        const auto mark = static_cast<std::uint32_t>(b + 1);
        for (std::size_t j = begin; j < end; ++j) {
            const Vertex a = by_target[j].source;
            if (per_source[a] == mark || (had_dependents && has_edge_index(a, b))) continue;
            per_source[a] = mark;
            in.emplace_back(a);
            added[by_target[j].edge] = true;
            ++made;
        }
        begin = end;
    }
    for (std::size_t i = 0; i < count; ++i)
        if (added[i]) (*adj_).out_edge_list(index_of(pairs[2 * i])).emplace_back(index_of(pairs[2 * i + 1]));
    edges_ += made;
}

std::vector<VertexId> Graph::edit_while_walked(const std::vector<NewVertex> &vertices,
                                               const std::vector<std::pair<VertexId, VertexId>> &connects,
                                               const std::vector<std::pair<VertexId, VertexId>> &disconnects,
                                               const std::vector<VertexId> &removals) {
    drop_snapshot();
    orders_.drop();
    const std::size_t bound = index_bound(), live = live_;
    std::vector<VertexId> ids;
    ids.reserve(vertices.size());
    std::vector<bool> made(connects.size());
    try {
        for (const NewVertex &nv : vertices) {
            const Vertex v = boost::num_vertices(*adj_);
            const char *stored = nv.name ? claim_name(*nv.name, v) : nullptr;
            try {
                append_vertex(props_of(stored, nv.name), nv.user);
            } catch (...) {
                if (stored) {
                    names_.erase(std::string_view(stored, nv.name->size()));
                    name_changed(v);
                }
                throw;
            }
            ++live_;
            ids.push_back(id_of(v));
        }
        for (std::size_t i = 0; i < connects.size(); ++i)
            made[i] = add_edge_index(index_of(connects[i].first), index_of(connects[i].second));
    } catch (...) {
        for (std::size_t i = connects.size(); i-- > 0;)
            if (made[i]) remove_edge_index(index_of(connects[i].first), index_of(connects[i].second));
        // The added vertices are the last ones and have no edges left, so
        // dropping their records renumbers nothing.
        while (boost::num_vertices(*adj_) > bound) {
            drop_name(boost::num_vertices(*adj_) - 1);
            pop_vertex();
        }
        live_ = live;
        throw;
    }
    // Nothing below allocates.
    for (auto [from, to] : disconnects)
        if (has_edge_index(index_of(from), index_of(to))) remove_edge_index(index_of(from), index_of(to));
    for (VertexId id : removals) {
        const Vertex v = index_of(id);
        unlink(v);
        drop_name(v, true);
        (*adj_)[v] = VertexProps{};
        (*in_)[v] = ReverseProps{};
        --live_;
    }
    return ids;
}

bool Graph::has_name(std::string_view name) const { return names_.find(name) != NameTable::npos; }

void Graph::connect(VertexId from, VertexId to) {
    begin_change(true);
    Vertex a = checked(from), b = checked(to);
    add_edge_index(a, b);
    orders_.connected(1, [a, b](std::size_t) {
        return KeptOrders::Edge{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
    });
}

void Graph::disconnect(VertexId from, VertexId to) {
    begin_change();
    Vertex a = checked(from), b = checked(to);
    if (has_edge_index(a, b)) remove_edge_index(a, b);
}

void Graph::disconnect_many(const std::vector<std::pair<VertexId, VertexId>> &edges) {
    if (edges.empty()) return check_changeable();
    begin_change();
    std::vector<std::uint64_t> keys;
    keys.reserve(edges.size());
    for (const auto &[from, to] : edges) keys.push_back(std::uint64_t{checked(from)} << 32 | checked(to));
    const auto [forward, backward] = edge_keys(std::move(keys));
    remove_edge_set(forward, backward);
}

void Graph::remove_edge_set(const std::vector<std::uint64_t> &forward, const std::vector<std::uint64_t> &backward) noexcept {
    edges_ -= drop_keyed(*adj_, forward);
    drop_keyed(*in_, backward);
}

bool Graph::has_edge(VertexId from, VertexId to) const noexcept {
    return has_vertex(from) && has_vertex(to) && has_edge_index(index_of(from), index_of(to));
}

void Graph::replace_vertex(VertexId original, VertexId replacement) {
    begin_change();
    Vertex o = checked(original), r = checked(replacement);
    if (o == r) return;
    std::vector<Vertex> targets, sources;
    for (auto [it, end] = boost::adjacent_vertices(o, *adj_); it != end; ++it) targets.push_back(*it);
    for (auto [it, end] = boost::adjacent_vertices(o, *in_); it != end; ++it) sources.push_back(*it);
    // Undo log: on allocation failure part-way, remove what was added so the
    // graph is exactly as it was.
    std::vector<std::pair<Vertex, Vertex>> added;
    added.reserve(targets.size() + sources.size());
    auto add = [&](Vertex a, Vertex b) {
        if (add_edge_index(a, b)) added.emplace_back(a, b);
    };
    try {
        for (Vertex t : targets) add(r, t == o ? r : t);
        for (Vertex s : sources)
            if (s != o) add(s, r);
    } catch (...) {
        for (auto [a, b] : added) remove_edge_index(a, b);
        throw;
    }
    remove_vertex(original);
}

std::vector<VertexId> Graph::vertices() const {
    std::vector<VertexId> out;
    out.reserve(live_);
    for (Vertex v = 0, n = index_bound(); v < n; ++v)
        if ((*adj_)[v].alive) out.push_back(id_of(v));
    return out;
}

std::vector<std::pair<VertexId, VertexId>> Graph::edges() const {
    std::vector<std::pair<VertexId, VertexId>> out;
    out.reserve(edge_count());
    for (Vertex v = 0, n = index_bound(); v < n; ++v) {
        std::size_t first = out.size();
        for (auto [it, end] = boost::adjacent_vertices(v, *adj_); it != end; ++it)
            out.emplace_back(id_of(v), id_of(*it));
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    }
    return out;
}

std::vector<VertexId> Graph::dependencies(VertexId id) const {
    Vertex v = checked(id);
    std::vector<VertexId> out;
    out.reserve(boost::out_degree(v, *adj_));
    for (auto [it, end] = boost::adjacent_vertices(v, *adj_); it != end; ++it) out.push_back(id_of(*it));
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t Graph::dependency_count(VertexId id) const { return boost::out_degree(checked(id), *adj_); }

std::size_t Graph::dependent_count(VertexId id) const { return boost::out_degree(checked(id), *in_); }

std::vector<VertexId> Graph::dependents(VertexId id) const {
    Vertex v = checked(id);
    std::vector<VertexId> out;
    out.reserve(boost::out_degree(v, *in_));
    for (auto [it, end] = boost::adjacent_vertices(v, *in_); it != end; ++it) out.push_back(id_of(*it));
    std::sort(out.begin(), out.end());
    return out;
}

void Graph::subsume(const Graph &other) {
    begin_change();
    if (&other == this) throw Error(Errc::invalid_argument, "a graph cannot subsume itself");
    const Vertex first_new = index_bound();
    const std::size_t live_before = live_;
    std::vector<Vertex> map(other.index_bound());
    std::vector<std::pair<Vertex, Vertex>> added_edges;
    added_edges.reserve(other.edge_count());
    try {
        for (Vertex v = 0, n = other.index_bound(); v < n; ++v) {
            const VertexProps &p = (*other.adj_)[v];
            if (!p.alive) continue;
            if (p.name) {
                const std::uint32_t same = names_.find(p.name_view());
                if (same != NameTable::npos) {
                    map[v] = same;
                    continue;
                }
            }
            map[v] = index_of(add_vertex(p.name ? std::optional<std::string_view>(p.name_view()) : std::nullopt, (*other.in_)[v].user));
        }
        for (Vertex v = 0, n = other.index_bound(); v < n; ++v) {
            for (auto [it, end] = boost::adjacent_vertices(v, *other.adj_); it != end; ++it) {
                Vertex a = map[v], b = map[*it];
                if (add_edge_index(a, b)) added_edges.emplace_back(a, b);
            }
        }
    } catch (...) {
        for (auto [a, b] : added_edges) remove_edge_index(a, b);
        // New vertices sit at the end of the vertex vector; popping them
        // restores it exactly (no edges touch them any more).
        while (index_bound() > first_new) {
            Vertex last = index_bound() - 1;
            drop_name(last);
            pop_vertex();
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
        if ((*adj_)[v].alive) entries.push_back({display_name(id_of(v)), v});
    std::sort(entries.begin(), entries.end(), by_name);
    std::string out;
    std::vector<Entry> deps;
    for (const Entry &e : entries) {
        out += e.name;
        out += '\n';
        deps.clear();
        for (auto [it, end] = boost::adjacent_vertices(e.v, *adj_); it != end; ++it)
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
