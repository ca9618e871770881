// An allocator for the large arrays of snapshots, ranks and walks: arrays of
// 2 MiB and more come from their own mapping, 2 MiB-aligned and advised
// MADV_HUGEPAGE, so first touching them costs a page fault per 2 MiB instead
// of per 4 KiB (measured in bench/README.md: 72 MB of fresh 4 KiB pages cost
// 210 ms of faults, huge pages 8-18 ms). Where the kernel gives no huge
// pages (THP off), the mapping is ordinary memory. Smaller arrays use the
// ordinary heap.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace dag {

namespace huge_pages {
// One huge page: 4 MiB left 10^6 four-byte entries (a rank or offset per
// vertex of a 10^6-vertex graph) on 4 KiB pages, 977 faults each.
inline constexpr std::size_t threshold = std::size_t{2} << 20;
// Throw std::bad_alloc on failure.
void *allocate(std::size_t bytes);
void deallocate(void *p, std::size_t bytes) noexcept;
}  // namespace huge_pages

template <class T>
struct HugePageAllocator {
    using value_type = T;

    HugePageAllocator() noexcept = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U> &) noexcept {}

    T *allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < huge_pages::threshold) return static_cast<T *>(::operator new(bytes));
        return static_cast<T *>(huge_pages::allocate(bytes));
    }
    void deallocate(T *p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < huge_pages::threshold)
            ::operator delete(p);
        else
            huge_pages::deallocate(p, bytes);
    }
    template <class U>
    bool operator==(const HugePageAllocator<U> &) const noexcept {
        return true;
    }
    template <class U>
    bool operator!=(const HugePageAllocator<U> &) const noexcept {
        return false;
    }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace dag
