// Small blocks carved from chunks in 8-byte granules, for structures that
// hold millions of them: a graph's vertex names (name_table.hpp) and its
// edge lists (edge_lists.hpp). Against malloc, a block costs no header (16
// bytes each), and the chunks double from 4 KiB to 2 MiB and then sit on
// huge pages, so filling a large graph faults once per 2 MiB instead of
// once per 4 KiB (bench/README.md, "Edge lists in an arena").
//
// A released block goes on a free list of its size and serves the next
// block of that size; everything goes back when the arena is destroyed.
// Not thread-safe: its owner serialises, as a graph serialises its changes.
// Under AddressSanitizer, what is not handed out (released blocks, the
// newest chunk's unused tail) is poisoned, so a read or write there is
// reported as it would be in freed heap memory.
#pragma once

#include <cstddef>
#include <vector>

#include "graph/huge_pages.hpp"

namespace dag {

class GranuleArena {
public:
    static constexpr std::size_t granule = 8;

    // Blocks of up to `max_bytes` (1 to 4096: a block must fit the first
    // chunk); throws std::invalid_argument otherwise.
    explicit GranuleArena(std::size_t max_bytes);
    GranuleArena(const GranuleArena &) = delete;
    GranuleArena &operator=(const GranuleArena &) = delete;
    ~GranuleArena();

    std::size_t max_bytes() const noexcept { return (free_.size() - 1) * granule; }

    // A block of `bytes` (1 to max_bytes, not checked: the callers' sizes
    // are bounded where they choose the arena), aligned to 8. Strong
    // guarantee: throws only std::bad_alloc.
    void *allocate(std::size_t bytes);
    // Takes back a block allocate() returned with the same `bytes`.
    void release(void *p, std::size_t bytes) noexcept;

    void swap(GranuleArena &other) noexcept;

private:
    struct FreeBlock {
        FreeBlock *next;
    };
    static std::size_t granules(std::size_t bytes) noexcept { return (bytes + granule - 1) / granule; }

    // Not zero-filled: a chunk's bytes are written before they are read.
    struct Chunk {
        char *data;
        std::size_t size;
    };

    std::vector<Chunk> chunks_;
    std::size_t chunk_size_ = 0;
    char *tail_ = nullptr;  // the unused tail of the newest chunk
    char *end_ = nullptr;
    std::vector<FreeBlock *> free_;  // by granule count
};

}  // namespace dag
