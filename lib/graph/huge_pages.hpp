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
#include <type_traits>
#include <vector>

namespace dag {

namespace huge_pages {
// One huge page: 4 MiB left 10^6 four-byte entries (a rank or offset per
// vertex of a 10^6-vertex graph) on 4 KiB pages, 977 faults each.
inline constexpr std::size_t threshold = std::size_t{2} << 20;
// Throw std::bad_alloc on failure.
void *allocate(std::size_t bytes);
void deallocate(void *p, std::size_t bytes) noexcept;
// A block from allocate() of `old_bytes` made `new_bytes` long (more), its
// contents kept: the kernel moves its pages to a fresh 2 MiB-aligned
// mapping (or keeps them where they are if the block stays within its huge
// pages), so nothing is copied and no page is faulted in again. Throws
// std::bad_alloc, the block unchanged, on failure.
void *reallocate(void *p, std::size_t old_bytes, std::size_t new_bytes);
}  // namespace huge_pages

// `MinBytes`: arrays smaller than this use the ordinary heap.
template <class T, std::size_t MinBytes = huge_pages::threshold>
struct HugePageAllocator {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = HugePageAllocator<U, MinBytes>;
    };

    HugePageAllocator() noexcept = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U, MinBytes> &) noexcept {}

    T *allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < MinBytes) return static_cast<T *>(::operator new(bytes));
        return static_cast<T *>(huge_pages::allocate(bytes));
    }
    void deallocate(T *p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < MinBytes)
            ::operator delete(p);
        else
            huge_pages::deallocate(p, bytes);
    }
    template <class U>
    bool operator==(const HugePageAllocator<U, MinBytes> &) const noexcept {
        return true;
    }
    template <class U>
    bool operator!=(const HugePageAllocator<U, MinBytes> &) const noexcept {
        return false;
    }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

// For arrays made anew on every call (a walk's report, a validation's
// scratch): huge pages only from 32 MiB, glibc's largest mmap threshold.
// Below it malloc serves a repeated array from memory a free gave back to
// it, with no fault at all, where a mapping of its own would fault (and
// grow the resident set) each time; above it malloc maps fresh 4 KiB pages
// every call.
template <class T>
using LargeAllocator = HugePageAllocator<T, std::size_t{32} << 20>;
template <class T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

// An array left uninitialised, for scratch space of which a call touches
// only what it uses (a stack sized for the worst case): a LargeVector would
// write, and so fault in, all of it.
template <class T>
class LargeBuffer {
    static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>);

public:
    explicit LargeBuffer(std::size_t n) : n_(n ? n : 1), p_(LargeAllocator<T>().allocate(n_)) {}
    ~LargeBuffer() { LargeAllocator<T>().deallocate(p_, n_); }
    LargeBuffer(const LargeBuffer &) = delete;
    LargeBuffer &operator=(const LargeBuffer &) = delete;
    T *data() const noexcept { return p_; }

private:
    std::size_t n_;
    T *p_;
};

}  // namespace dag
