#include "graph/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace dag::huge_pages {

namespace {
constexpr std::size_t huge = std::size_t{2} << 20;
std::size_t rounded(std::size_t bytes) noexcept { return (bytes + huge - 1) / huge * huge; }
}  // namespace

void *allocate(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    // One huge page more than needed, so the start can be moved to a 2 MiB
    // boundary; the slack is unmapped again.
    void *raw = ::mmap(nullptr, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + huge - 1) / huge * huge;
    if (aligned > start) ::munmap(raw, aligned - start);
    if (const std::size_t tail = start + size + huge - (aligned + size)) ::munmap(reinterpret_cast<void *>(aligned + size), tail);
    void *p = reinterpret_cast<void *>(aligned);
    // Advice only: without transparent huge pages the memory is ordinary.
    ::madvise(p, size, MADV_HUGEPAGE);
    return p;
}

void deallocate(void *p, std::size_t bytes) noexcept { ::munmap(p, rounded(bytes)); }

}  // namespace dag::huge_pages
