// A per-graph pool for the nodes of Boost's global edge list.
//
// A bidirectionalS adjacency_list keeps every edge once in a std::list (its
// EdgeListS), so that the out-entry and the in-entry share the edge. From
// malloc each 40 B node costs a 48 B chunk and a call into the allocator; the
// pool hands out slots carved from growing blocks and recycles freed ones,
// which saves the 8 B header and 10-20% of the edge-building time
// (bench/README.md, "Graph building"). The pool belongs to one list, so one
// graph: graphs stay independent across threads. Freed slots serve later
// edges of the same graph; the blocks go back only when the graph is freed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <list>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

namespace dag {

class NodePool {
public:
    // Every allocation through one pool has the size of the first: a pool
    // serves a single std::list, which only ever allocates its node type.
    // `align` must not exceed what operator new[] guarantees.
    void *allocate(std::size_t size, std::size_t align) {
        if (free_) {
            void *p = free_;
            free_ = *static_cast<void **>(p);
            return p;
        }
        if (slot_ == 0) {
            // A free slot holds the free-list link.
            align = std::max(align, alignof(void *));
            slot_ = (std::max(size, sizeof(void *)) + align - 1) / align * align;
        }
        if (next_ == end_) grow();
        void *p = next_;
        next_ += slot_;
        return p;
    }

    void deallocate(void *p) noexcept {
        *static_cast<void **>(p) = free_;
        free_ = p;
    }

private:
    // Small graphs (most tests, most real graphs) get small blocks; big ones
    // pay one allocation per 16 Ki edges.
    static constexpr std::size_t first_block_slots = 32;
    static constexpr std::size_t max_block_slots = 16384;

    void grow() {
        std::size_t slots = std::min(first_block_slots << std::min<std::size_t>(blocks_.size(), 9), max_block_slots);
        std::unique_ptr<unsigned char[]> block(new unsigned char[slots * slot_]);
        blocks_.push_back(std::move(block));
        next_ = blocks_.back().get();
        end_ = next_ + slots * slot_;
    }

    std::vector<std::unique_ptr<unsigned char[]>> blocks_;
    unsigned char *next_ = nullptr;
    unsigned char *end_ = nullptr;
    void *free_ = nullptr;
    std::size_t slot_ = 0;
};

template <class T>
class PoolAllocator {
public:
    using value_type = T;
    using propagate_on_container_copy_assignment = std::false_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using is_always_equal = std::false_type;

    PoolAllocator() : pool_(std::make_shared<NodePool>()) {}
    template <class U>
    PoolAllocator(const PoolAllocator<U> &other) noexcept : pool_(other.pool_) {}

    // A copied list gets a pool of its own, or two graphs would share one
    // across threads.
    PoolAllocator select_on_container_copy_construction() const { return PoolAllocator(); }

    // The Allocator contract allows any n; std::list only ever asks for 1.
    T *allocate(std::size_t n) {
        if (n != 1) return std::allocator<T>().allocate(n);
        static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
        return static_cast<T *>(pool_->allocate(sizeof(T), alignof(T)));
    }
    void deallocate(T *p, std::size_t n) noexcept {
        if (n != 1) return std::allocator<T>().deallocate(p, n);
        pool_->deallocate(p);
    }

    template <class U>
    bool operator==(const PoolAllocator<U> &other) const noexcept { return pool_ == other.pool_; }
    template <class U>
    bool operator!=(const PoolAllocator<U> &other) const noexcept { return pool_ != other.pool_; }

private:
    template <class U>
    friend class PoolAllocator;
    std::shared_ptr<NodePool> pool_;
};

// The EdgeListS selector: a std::list whose nodes come from a NodePool.
struct pooled_listS {};

}  // namespace dag

namespace boost {
template <class T>
struct container_gen<dag::pooled_listS, T> {
    using type = std::list<T, dag::PoolAllocator<T>>;
};
}  // namespace boost
