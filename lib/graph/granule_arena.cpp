#include "graph/granule_arena.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define DAG_ARENA_POISONS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DAG_ARENA_POISONS 1
#endif
#endif

#if defined(DAG_ARENA_POISONS)
#include <sanitizer/asan_interface.h>
#endif

namespace dag {

namespace {

constexpr std::size_t first_chunk = 4096;
constexpr std::size_t max_chunk = huge_pages::threshold;

void poison(const void *p, std::size_t bytes) noexcept {
#if defined(DAG_ARENA_POISONS)
    ASAN_POISON_MEMORY_REGION(p, bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

void unpoison(const void *p, std::size_t bytes) noexcept {
#if defined(DAG_ARENA_POISONS)
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace

GranuleArena::GranuleArena(std::size_t max_bytes) {
    if (max_bytes == 0 || max_bytes > first_chunk)
        throw std::invalid_argument("an arena's blocks are 1 to " + std::to_string(first_chunk) + " bytes");
    free_.assign(granules(max_bytes) + 1, nullptr);
}

GranuleArena::~GranuleArena() {
    for (const Chunk &c : chunks_) {
        unpoison(c.data, c.size);
        HugePageAllocator<char>().deallocate(c.data, c.size);
    }
}

void *GranuleArena::allocate(std::size_t bytes) {
    const std::size_t g = granules(bytes);
    if (FreeBlock *b = free_[g]) {
        unpoison(b, sizeof(FreeBlock));
        free_[g] = b->next;
        poison(b, g * granule);
        unpoison(b, bytes);
        return b;
    }
    const std::size_t need = g * granule;
    if (static_cast<std::size_t>(end_ - tail_) < need) {
        // A small graph stays small and a large one allocates rarely; the
        // old chunk's unused tail is given up.
        const std::size_t size = chunks_.empty() ? first_chunk : std::min(max_chunk, 2 * chunk_size_);
        if (chunks_.size() == chunks_.capacity()) chunks_.reserve(2 * chunks_.size() + 1);
        char *data = HugePageAllocator<char>().allocate(size);
        poison(data, size);
        chunks_.push_back({data, size});
        chunk_size_ = size;
        tail_ = data;
        end_ = tail_ + size;
    }
    char *p = tail_;
    tail_ += need;
    // Only the bytes asked for, so reading or writing past them is reported
    // as it would be past a malloc block.
    unpoison(p, bytes);
    return p;
}

void GranuleArena::release(void *p, std::size_t bytes) noexcept {
    const std::size_t g = granules(bytes);
    unpoison(p, sizeof(FreeBlock));
    FreeBlock *b = static_cast<FreeBlock *>(p);
    b->next = free_[g];
    free_[g] = b;
    poison(p, g * granule);
}

void GranuleArena::swap(GranuleArena &other) noexcept {
    chunks_.swap(other.chunks_);
    std::swap(chunk_size_, other.chunk_size_);
    std::swap(tail_, other.tail_);
    std::swap(end_, other.end_);
    free_.swap(other.free_);
}

}  // namespace dag
