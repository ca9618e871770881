// The graph's vertex names: their bytes packed in an arena, found through an
// open-addressing hash index.
//
// A std::unordered_map<std::string, Vertex> costs two allocations per name
// (its node, and the string once it outgrows the small-string buffer, which
// `module.app.aws_instance.web[3]` does) and a pointer chase per probe.
// Here a name costs its bytes plus a NUL in an arena chunk, and a 16-byte
// index slot that holds the name's pointer, so a lookup is one probe of the
// slot array and one read of the name itself.
//
// Stored names never move: the pointer insert() returns stays valid until
// erase() of that name, which is what dag_vertex_name() promises. Erased
// bytes go to a free list per size and are reused by later names of the same
// size; retired ones (names a running walk may still hand out) are kept
// until the table is destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "graph/granule_arena.hpp"
#include "graph/huge_pages.hpp"

namespace dag {

class NameTable {
public:
    static constexpr std::uint32_t npos = ~std::uint32_t{0};

    NameTable() = default;
    NameTable(const NameTable &) = delete;
    NameTable &operator=(const NameTable &) = delete;
    ~NameTable();

    // Stores `name` for `vertex` and returns the stored, NUL-terminated copy;
    // returns nullptr and sets `holder` when another vertex has the name.
    // Strong guarantee: throws only std::bad_alloc, and then changes nothing.
    const char *insert(std::string_view name, std::uint32_t vertex, std::uint32_t &holder) {
        return insert_hashed(name, hash(name), vertex, holder);
    }
    // The vertex holding `name`, or npos.
    std::uint32_t find(std::string_view name) const noexcept { return find_hashed(name, hash(name)); }
    // find() for many names: out[i] for names[i]. A lookup in a large table
    // is two cache misses in a row (the index slot, then the stored name);
    // here the slots of a group of names are fetched together, then their
    // names, so the misses of different lookups overlap.
    void find_many(const std::string_view *names, std::size_t count, std::uint32_t *out) const noexcept;

    // The pieces of insert() and find() for callers that fetch ahead: a
    // name's hash, a hint to bring its index slot into the cache, and the
    // two operations with the hash given.
    static std::uint32_t hash(std::string_view name) noexcept;
    void prefetch(std::uint32_t hash) const noexcept;
    std::uint32_t find_hashed(std::string_view name, std::uint32_t hash) const noexcept;
    const char *insert_hashed(std::string_view name, std::uint32_t hash, std::uint32_t vertex, std::uint32_t &holder);
    // Forgets a name insert() returned; its bytes are reused.
    void erase(std::string_view stored) noexcept;
    // Forgets it for lookups but keeps its bytes until the table is gone.
    void retire(std::string_view stored) noexcept;

    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    // Room for `n` names without growing the index.
    void reserve(std::size_t n);
    void swap(NameTable &other) noexcept;

private:
    struct Slot {
        const char *name;  // nullptr: empty
        std::uint32_t hash;
        std::uint32_t vertex;
    };
    // Names up to this many bytes (NUL included) share an arena's chunks and
    // free lists (granule_arena.hpp); longer ones get an allocation of their own.
    static constexpr std::size_t max_small = 256;

    static std::uint64_t hash_of(std::string_view name) noexcept;
    std::size_t slot_of(std::string_view stored) const noexcept;
    void remove_slot(std::size_t i) noexcept;
    void grow(std::size_t slots);
    char *allocate(std::size_t bytes);
    void release(const char *p, std::size_t bytes) noexcept;

    // The index and the arena's large chunks sit on huge pages where the
    // kernel gives them: a lookup in a table of 10^6 names is a random read of
    // each, and 4 KiB pages would add a TLB miss to both.
    HugeVector<Slot> slots_;  // power-of-two size, or empty
    std::size_t count_ = 0;
    GranuleArena small_{max_small};
    std::vector<const char *> retired_big_;
};

}  // namespace dag
