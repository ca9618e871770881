#include "graph/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace dag::huge_pages {

namespace {
constexpr std::size_t huge = std::size_t{2} << 20;
std::size_t rounded(std::size_t bytes) noexcept { return (bytes + huge - 1) / huge * huge; }

// A fresh mapping of `size` (a multiple of 2 MiB) starting on a 2 MiB
// boundary, not yet advised.
void *aligned_mapping(std::size_t size) {
    // One huge page more than needed, so the start can be moved to a 2 MiB
    // boundary; the slack is unmapped again.
    void *raw = ::mmap(nullptr, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + huge - 1) / huge * huge;
    if (aligned > start) ::munmap(raw, aligned - start);
    if (const std::size_t tail = start + size + huge - (aligned + size)) ::munmap(reinterpret_cast<void *>(aligned + size), tail);
    return reinterpret_cast<void *>(aligned);
}
}  // namespace

void *allocate(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    void *p = aligned_mapping(size);
    // Advice only: without transparent huge pages the memory is ordinary.
    ::madvise(p, size, MADV_HUGEPAGE);
    return p;
}

void *reallocate(void *p, std::size_t old_bytes, std::size_t new_bytes) {
    const std::size_t old_size = rounded(old_bytes), size = rounded(new_bytes);
    if (size <= old_size) return p;
    // Moved onto a mapping of our own rather than where the kernel likes:
    // only a 2 MiB-aligned start keeps the huge pages whole (the kernel
    // would split them into 4 KiB pages to move them elsewhere).
    void *to = aligned_mapping(size);
    void *moved = ::mremap(p, old_size, size, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    // The kernel may have unmapped `to` before failing, and another thread
    // mapped something there since: unmapping it now could take that away,
    // so the untouched reservation (address space, no memory) is left.
    if (moved == MAP_FAILED) throw std::bad_alloc();
    ::madvise(moved, size, MADV_HUGEPAGE);
    return moved;
}

void deallocate(void *p, std::size_t bytes) noexcept { ::munmap(p, rounded(bytes)); }

}  // namespace dag::huge_pages
