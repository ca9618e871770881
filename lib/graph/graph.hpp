// The graph store: Boost.Graph adjacency lists with stable ids, unique
// names and user pointers.
//
// Two directedS adjacency_lists with vecS-like edge lists whose blocks come
// from the graph's arena (edge_lists.hpp) and vecS-like vertex lists whose
// records sit on huge pages (huge_vertex_list.hpp): one
// holds each vertex's dependencies (its out-edges) and the vertex records,
// the other its dependents (the same edges reversed). A vertex id is its
// index + 1, so every lookup by id is an array access, and an edge costs an
// 8-byte entry in each list: no shared edge-list node, which Boost's
// bidirectionalS keeps for every edge (16 B of entries plus a 40 B list node,
// 72 B an edge; bench/README.md, "Graphs as users have them", measures both).
// Boost's directedS stores each edge's property behind a heap allocation of
// its own, even an empty one; NoEdgeProps below is an edge property that
// stores nothing. Removing a vertex clears its edges and leaves a tombstone
// instead of erasing it: erasing from a vecS vertex list renumbers every
// later vertex, which would break stable ids and cost O(V + E) per removal.
#pragma once

#include <atomic>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "graph/edge_lists.hpp"
#include "graph/huge_vertex_list.hpp"
#include "graph/kept_orders.hpp"

#include "graph/name_table.hpp"
#include "graph/sorted_names.hpp"

namespace dag {

struct Snapshot;
struct NameRanks;

using VertexId = std::uint64_t;
inline constexpr VertexId no_vertex = 0;

// The longest name a vertex may have: its length is kept in 32 bits.
inline constexpr std::size_t max_name_bytes = 0xFFFFFFFFu;

struct VertexProps {
    // The stored name in Graph::names_ (NUL-terminated, never moves), or
    // nullptr for an unnamed vertex.
    const char *name = nullptr;
    std::uint32_t name_size = 0;
    bool alive = false;

    std::string_view name_view() const noexcept { return name ? std::string_view(name, name_size) : std::string_view(); }
};

// The caller's pointer lives in the dependents list's vertex record: an
// empty property there would take 8 bytes of padding a vertex, and in
// VertexProps the pointer would take 8 more.
struct ReverseProps {
    void *user = nullptr;
};

// The edge property of both lists: none, and stored as none (see below).
struct NoEdgeProps {};

}  // namespace dag

namespace boost {
namespace detail {
// An out-edge entry of a directedS adjacency_list with NoEdgeProps: the
// target alone. Boost's own entry for directed graphs holds the property
// through a pointer to a heap copy, a malloc per edge even for an empty one.
template <class Vertex>
class stored_edge_property<Vertex, dag::NoEdgeProps> : public stored_edge<Vertex> {
public:
    typedef dag::NoEdgeProps property_type;
    stored_edge_property() {}
    stored_edge_property(Vertex target, const dag::NoEdgeProps & = dag::NoEdgeProps()) : stored_edge<Vertex>(target) {}
    dag::NoEdgeProps &get_property() const { return none(); }

private:
    static dag::NoEdgeProps &none() {
        static dag::NoEdgeProps n;
        return n;
    }
};
}  // namespace detail
}  // namespace boost

namespace dag {

// Dependencies: vertex v's out-edges are the vertices v depends on.
using AdjacencyList = boost::adjacency_list<edge_vecS, huge_vecS, boost::directedS, VertexProps, NoEdgeProps>;
// Dependents: vertex v's out-edges here are the vertices that depend on v.
using ReverseList = boost::adjacency_list<edge_vecS, huge_vecS, boost::directedS, ReverseProps, NoEdgeProps>;
static_assert(sizeof(VertexProps) == 16, "a vertex record of the dependencies list holds its name and state only");
using Vertex = AdjacencyList::vertex_descriptor;
static_assert(sizeof(AdjacencyList::StoredEdge) == sizeof(Vertex), "an edge entry holds its target only");
// Growing the vertex records moves each edge list, and with it the arena
// its blocks belong to; a copy would take the arena of whatever scope is
// open (edge_lists.hpp).
static_assert(std::is_nothrow_move_constructible<AdjacencyList::stored_vertex>::value &&
                  std::is_nothrow_move_constructible<ReverseList::stored_vertex>::value,
              "vertex records move, not copy, when the store grows");

class Graph {
public:
    Graph() = default;
    Graph(const Graph &other);
    // All or nothing: the copy is made first, then swapped in.
    Graph &operator=(const Graph &other);
    Graph(Graph &&) = delete;
    Graph &operator=(Graph &&) = delete;
    // Exchanges contents (vertices, edges, names), not walk state. O(1).
    void swap(Graph &other) noexcept;
    ~Graph() = default;

    // --- vertices -----------------------------------------------------------
    VertexId add_vertex(std::optional<std::string_view> name, void *user);
    // Adds `count` vertices, all or nothing, and returns the first id (the
    // others follow it). names[i] is vertex i's name, NUL-terminated, or
    // nullptr for none (names itself may be nullptr: all unnamed); users[i]
    // its user pointer (users may be nullptr). Errors name the position:
    // "vertex 3: ...".
    VertexId add_vertices(const char *const *names, void *const *users, std::size_t count);
    void remove_vertex(VertexId id);
    // Removes every vertex of `ids` (each live; repeats allowed), all or
    // nothing. Each edge list is rewritten once, where a remove_vertex per
    // vertex scans a shared neighbour's list once per removed vertex: pruning
    // the leaves of a hub one by one is quadratic in the hub's degree.
    void remove_vertices(const std::vector<VertexId> &ids);
    void replace_vertex(VertexId original, VertexId replacement);
    void set_name(VertexId id, std::optional<std::string_view> name);
    void set_user(VertexId id, void *user);

    bool has_vertex(VertexId id) const noexcept;
    std::size_t vertex_count() const noexcept { return live_; }
    // Throws Errc::not_found.
    VertexId find(std::string_view name) const;
    // find() for many names: out[i] is names[i]'s vertex, or no_vertex.
    void find_many(const std::string_view *names, std::size_t count, VertexId *out) const;
    // The name, NUL-terminated, valid until the vertex is renamed or
    // removed; nullopt for an unnamed vertex.
    std::optional<std::string_view> name(VertexId id) const;
    void *user(VertexId id) const;
    // The name, or the decimal id for an unnamed vertex: what every text
    // format and message prints.
    std::string display_name(VertexId id) const;

    // --- edges --------------------------------------------------------------
    void connect(VertexId from, VertexId to);
    // Connects pairs[2i] -> pairs[2i+1] for i < count, all or nothing: every
    // id is checked before anything changes, and an allocation failure
    // removes what the batch had added.
    void connect_many(const VertexId *pairs, std::size_t count);
    void disconnect(VertexId from, VertexId to);
    // disconnect() for each pair (edges that are not there are skipped), all
    // or nothing, rewriting each affected edge list once: removing a hub's
    // edges one disconnect() at a time scans its list once per edge.
    void disconnect_many(const std::vector<std::pair<VertexId, VertexId>> &edges);
    bool has_edge(VertexId from, VertexId to) const noexcept;
    std::size_t edge_count() const noexcept { return edges_; }

    // --- listings (deterministic: ascending ids) ----------------------------
    std::vector<VertexId> vertices() const;
    std::vector<std::pair<VertexId, VertexId>> edges() const;
    std::vector<VertexId> dependencies(VertexId id) const;
    std::vector<VertexId> dependents(VertexId id) const;
    // How many; O(1), where the listings above copy and sort.
    std::size_t dependency_count(VertexId id) const;
    std::size_t dependent_count(VertexId id) const;

    // --- whole-graph operations ---------------------------------------------
    void subsume(const Graph &other);
    std::string to_string() const;

    // True when a vertex has this name.
    bool has_name(std::string_view name) const;
    // Whether any vertex has a name: orders then break ties by name.
    bool has_names() const noexcept { return !names_.empty(); }

    // The names in bytewise order (name_order.cpp ranks them), brought up to
    // date under a lock of their own, so const queries may call it at once.
    // `use` runs with the entries while the lock is held.
    template <class Use>
    auto with_sorted_names(const Use &use) const {
        std::lock_guard<std::mutex> lk(sorted_mu_);
        return use(sorted_names_.update(index_bound(), [this](std::size_t v) { return (*adj_)[v].name_view(); }));
    }
    // The name ranks computed for snapshot `s` while no name has changed
    // since, kept with the cached snapshot; nullptr when there are none.
    std::shared_ptr<const NameRanks> cached_ranks(const Snapshot *s) const;
    void keep_ranks(const Snapshot *s, std::shared_ptr<const NameRanks> ranks) const;
    // The topological orders computed last, with the edges added since
    // (kept_orders.hpp); topo_order.cpp computes and extends them.
    const KeptOrders &kept_orders() const noexcept { return orders_; }

    // --- walks --------------------------------------------------------------
    struct NewVertex {
        std::optional<std::string_view> name;
        void *user = nullptr;
    };
    // A running walk's update (Walk::apply), made in place although the
    // graph is walked: adds `vertices` (ids index_bound() + 1 on, in order),
    // then connects, disconnects and removes vertices, whose names stay
    // readable until the graph is freed (the walk, which keeps the graph,
    // may still hand them out). The caller has checked every id, name and
    // cycle, and keeps readers out. All or nothing: only allocation can
    // fail, and then nothing has changed. Returns the new ids.
    std::vector<VertexId> edit_while_walked(const std::vector<NewVertex> &vertices,
                                            const std::vector<std::pair<VertexId, VertexId>> &connects,
                                            const std::vector<std::pair<VertexId, VertexId>> &disconnects,
                                            const std::vector<VertexId> &removals);
    // While a query's visitor or predicate runs (traversal.cpp), every
    // mutation above throws Errc::busy: the query reads the adjacency list
    // in place, and a change from the callback would pull it from under it.
    void begin_visit() const noexcept { visits_.fetch_add(1, std::memory_order_acq_rel); }
    void end_visit() const noexcept { visits_.fetch_sub(1, std::memory_order_acq_rel); }
    bool visited() const noexcept { return visits_.load(std::memory_order_acquire) != 0; }
    // Throws Errc::busy where a mutation would (a walk, a visitor).
    void check_changeable() const;
    // While a walk holds the graph, every mutation above throws Errc::busy.
    void begin_walk() noexcept { walks_.fetch_add(1, std::memory_order_acq_rel); }
    // A root walk's claim: checks that no walk holds the graph and marks it
    // held in one step, so of two starts racing for it exactly one wins.
    bool try_begin_walk() noexcept {
        unsigned none = 0;
        return walks_.compare_exchange_strong(none, 1, std::memory_order_seq_cst);
    }
    void end_walk() noexcept { walks_.fetch_sub(1, std::memory_order_acq_rel); }
    bool walking() const noexcept { return walks_.load(std::memory_order_seq_cst) != 0; }
    // A build's claim (dag_build), as a walk's: at most one build at a time,
    // and no walk while it runs. A build claims, then looks for walks; a
    // walk claims, then looks for a build: sequentially consistent, so of a
    // build and a walk starting together at least one sees the other.
    bool try_begin_build() noexcept {
        unsigned none = 0;
        return builds_.compare_exchange_strong(none, 1, std::memory_order_seq_cst);
    }
    void end_build() noexcept { builds_.store(0, std::memory_order_seq_cst); }
    bool building() const noexcept { return builds_.load(std::memory_order_seq_cst) != 0; }
    // Held by the thread running a build of `g` once the build has claimed
    // the graph and found no walk: a walk claiming the graph after that
    // (from another thread) finds the build and lets go, so the build's own
    // changes, made on this thread, do not count its claim (they failed
    // with Errc::busy while it was held). Other threads' changes still do.
    // Builds nest (a step may build another graph, whose steps may change
    // this one): each holds the one it is in.
    class BuildingHere {
    public:
        explicit BuildingHere(const Graph &g) noexcept;
        ~BuildingHere();
        BuildingHere(const BuildingHere &) = delete;
        BuildingHere &operator=(const BuildingHere &) = delete;
        // Whether this thread is building `g`, in this build or one it is in.
        static bool building(const Graph &g) noexcept;

    private:
        const Graph &g_;
        const BuildingHere *outer_;
    };

    // --- raw access for the algorithms in lib/ ------------------------------
    // Each vertex's dependencies (and the vertex records), and each vertex's
    // dependents, in the order the edges were added.
    const AdjacencyList &adjacency() const noexcept { return *adj_; }
    const ReverseList &reverse_adjacency() const noexcept { return *in_; }
    // One past the largest index ever issued; tombstones included.
    std::size_t index_bound() const noexcept { return boost::num_vertices(*adj_); }
    bool alive_index(Vertex v) const noexcept { return (*adj_)[v].alive; }
    static VertexId id_of(Vertex v) noexcept { return static_cast<VertexId>(v) + 1; }
    static Vertex index_of(VertexId id) noexcept { return static_cast<Vertex>(id - 1); }
    // Throws Errc::unknown_vertex unless `id` is live.
    Vertex checked(VertexId id) const;

    // The last acyclic snapshot a walk or a query froze, kept until the next
    // mutation drops it, so repeated walks and queries of an unchanged graph
    // skip the O(V + E) freeze and cycle check; nullptr when there is none.
    // Only an acyclic one may be cached (shared_snapshot.hpp). Thread-safe.
    std::shared_ptr<const Snapshot> cached_snapshot() const;
    void cache_snapshot(std::shared_ptr<const Snapshot> s) const;
    // Memory a finished walk of snapshot `s` leaves for the next walk of it
    // (its slot arrays), so an unchanged graph is walked again without the
    // page faults of fresh arrays. Kept only while `s` is the cached
    // snapshot and dropped with it; take returns it once. Thread-safe.
    void keep_walk_scratch(const Snapshot *s, std::shared_ptr<void> scratch) const;
    std::shared_ptr<void> take_walk_scratch(const Snapshot *s) const;

    // For the walk's updates (the only change a walked graph accepts): waits
    // until no reader is inside a ReadScope and keeps new ones out while the
    // returned lock is held; the update then swaps its new contents in. The
    // caller must not be inside a ReadScope of this graph (ReadScope::reading).
    std::unique_lock<std::shared_mutex> exclude_readers() const;

private:
    friend class ReadScope;

    // Every mutation starts here: refuses a graph being walked, and drops
    // the cached snapshot, and the kept orders unless the change only adds
    // (`adding`: vertices, or edges the caller logs once they are made).
    void begin_change(bool adding = false);
    void drop_snapshot() const noexcept;
    void unlink(Vertex v);
    bool has_edge_index(Vertex a, Vertex b) const noexcept;
    // Adds a -> b unless present; true when added. All-or-nothing.
    bool add_edge_index(Vertex a, Vertex b);
    // connect_many's two ways, for checked ids: edge by edge (a small batch
    // into a large graph), or grouped by target (a large batch; needs every
    // index and edge count in 32 bits).
    void connect_each(const VertexId *pairs, std::size_t count);
    void connect_grouped(const VertexId *pairs, std::size_t count);
    // Removes the edge a -> b, which must be present. Never throws.
    void remove_edge_index(Vertex a, Vertex b) noexcept;
    // Removes the edges listed, absent ones skipped, each list scanned once:
    // `forward` holds from << 32 | to and `backward` to << 32 | from (indices),
    // both sorted and without repeats. Never throws.
    void remove_edge_set(const std::vector<std::uint64_t> &forward, const std::vector<std::uint64_t> &backward) noexcept;
    // Appends a vertex record to both lists; all-or-nothing.
    void append_vertex(const VertexProps &props, void *user);
    // Drops the last vertex record, which has no edges, from both lists.
    void pop_vertex() noexcept;
    // Stores a checked name for vertex v; throws Errc::duplicate_name.
    const char *claim_name(std::string_view name, Vertex v);
    // Forgets v's name (returning its bytes, or keeping them when a walk may
    // still hand them out) and notes the change for the name order.
    void drop_name(Vertex v, bool retire = false) noexcept;
    void name_changed(Vertex v) noexcept;

    // The blocks of both lists' edge vectors: declared first, so it outlives
    // them, and swapped with them.
    std::unique_ptr<GranuleArena> edge_arena_ = std::make_unique<GranuleArena>(EdgeListAllocator<char>::max_arena_bytes);
    // Behind a pointer because Boost's adjacency_list swap copies the whole
    // graph three times; this makes swap O(1) and assignment one copy.
    std::unique_ptr<AdjacencyList> adj_ = std::make_unique<AdjacencyList>();
    std::unique_ptr<ReverseList> in_ = std::make_unique<ReverseList>();
    std::size_t edges_ = 0;
    NameTable names_;
    // Bumped by every name change: cached ranks are for one version.
    std::uint64_t names_version_ = 0;
    mutable std::mutex sorted_mu_;
    mutable SortedNames sorted_names_;
    std::size_t live_ = 0;
    std::atomic<unsigned> walks_{0};
    std::atomic<unsigned> builds_{0};
    mutable std::atomic<unsigned> visits_{0};
    mutable std::mutex snapshot_mu_;
    mutable std::shared_ptr<const Snapshot> snapshot_;
    mutable std::shared_ptr<void> walk_scratch_;
    mutable std::shared_ptr<const NameRanks> ranks_;
    mutable std::uint64_t ranks_version_ = 0;
    // Readers share it during a walk; the walk's updates take it alone
    // (ReadScope).
    mutable std::shared_mutex replace_mu_;
    KeptOrders orders_;
    // Lets a mutation skip the lock when nothing is cached: building a graph
    // would otherwise pay a mutex per connect.
    mutable std::atomic<bool> has_snapshot_{false};
};

// Held by every reader of a graph that a walk may update (the C API's
// read-only functions): while a walk runs, its updates replace the graph's
// contents, and wait for readers to leave first (Graph::exclude_readers). Free when no walk runs: then nothing changes a graph others read.
class ReadScope {
public:
    explicit ReadScope(const Graph &g);
    ~ReadScope();
    ReadScope(const ReadScope &) = delete;
    ReadScope &operator=(const ReadScope &) = delete;

    // True when this thread is inside a ReadScope of `g`.
    static bool reading(const Graph &g) noexcept;
    // True when this thread is inside any ReadScope.
    static bool reading_any() noexcept;

private:
    const Graph &g_;
    const ReadScope *outer_ = nullptr;
    bool linked_ = false;  // in this thread's chain of scopes
    std::shared_lock<std::shared_mutex> lock_;
};

// Checks a name given by a caller: non-empty, valid UTF-8. Throws otherwise.
void check_name(std::string_view name);

}  // namespace dag
