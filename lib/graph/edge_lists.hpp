// An out-edge-list selector for Boost.Graph's adjacency_list: vecS's vector
// of edge entries, whose blocks come from the graph's own GranuleArena
// (granule_arena.hpp) up to 512 bytes (64 entries), from the heap beyond.
// Each vertex has two such lists (its dependencies and its dependents); as
// separate malloc blocks a graph of 10^6 vertices and 4·10^6 edges paid a
// 16-byte header on each of its 2·10^6 lists and faulted its 4 KiB pages
// one at a time as the heap grew (bench/README.md, "Edge lists in an
// arena").
//
// Boost default-constructs a vertex's lists, so the allocator cannot be
// handed its arena: a default-constructed one takes the arena of the
// EdgeArenaScope open on this thread, and a graph opens one wherever it
// makes vertex records (adding vertices, copying a graph). A list made with
// no scope open allocates from the heap, which is correct, only slower. A
// list keeps its allocator for life: moved with it (the vertex records
// growing), copied to the graph in scope (a copy of a graph), so its blocks
// always go back where they came from. The arena is the graph's and lives
// as long as its lists; like the lists, it changes only under the graph's
// exclusive access.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "graph/granule_arena.hpp"

namespace dag {

// The arena of the lists made on this thread while it is open.
class EdgeArenaScope {
public:
    explicit EdgeArenaScope(GranuleArena &arena) noexcept : previous_(current_) { current_ = &arena; }
    EdgeArenaScope(const EdgeArenaScope &) = delete;
    EdgeArenaScope &operator=(const EdgeArenaScope &) = delete;
    ~EdgeArenaScope() { current_ = previous_; }

    static GranuleArena *current() noexcept { return current_; }

private:
    GranuleArena *previous_;
    static inline thread_local GranuleArena *current_ = nullptr;
};

template <class T>
struct EdgeListAllocator {
    static_assert(alignof(T) <= GranuleArena::granule, "the arena's blocks are aligned to its granule");
    using value_type = T;
    // A list keeps its arena when moved or swapped.
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using is_always_equal = std::false_type;

    // Blocks up to this size come from the arena.
    static constexpr std::size_t max_arena_bytes = 512;

    EdgeListAllocator() noexcept : arena(EdgeArenaScope::current()) {}
    explicit EdgeListAllocator(GranuleArena *a) noexcept : arena(a) {}
    template <class U>
    EdgeListAllocator(const EdgeListAllocator<U> &other) noexcept : arena(other.arena) {}

    // A copied list belongs to the graph being made.
    EdgeListAllocator select_on_container_copy_construction() const noexcept { return EdgeListAllocator(); }

    T *allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
        const std::size_t bytes = n * sizeof(T);
        if (arena && bytes <= max_arena_bytes) return static_cast<T *>(arena->allocate(bytes));
        return static_cast<T *>(::operator new(bytes));
    }
    void deallocate(T *p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (arena && bytes <= max_arena_bytes)
            arena->release(p, bytes);
        else
            ::operator delete(p);
    }

    template <class U>
    bool operator==(const EdgeListAllocator<U> &other) const noexcept {
        return arena == other.arena;
    }
    template <class U>
    bool operator!=(const EdgeListAllocator<U> &other) const noexcept {
        return arena != other.arena;
    }

    GranuleArena *arena;
};

struct edge_vecS {};

}  // namespace dag

namespace boost {
template <class ValueType>
struct container_gen<dag::edge_vecS, ValueType> {
    typedef std::vector<ValueType, dag::EdgeListAllocator<ValueType>> type;
};

template <>
struct parallel_edge_traits<dag::edge_vecS> {
    typedef allow_parallel_edge_tag type;
};
}  // namespace boost
