// The vector of the store's vertex records (huge_vertex_list.hpp): the part
// of std::vector's interface that Boost's adjacency_list and the graph use,
// for records that may be moved as bytes (a Boost stored vertex: its edge
// list, a std::vector, and plain properties; no record points into itself).
//
// std::vector grows by allocating a block twice the size, copying every
// record into it and freeing the old one: adding 10^6 named vertices one
// call at a time, the copies and the kernel zeroing each new block's pages
// were about a fifth of the time (bench/README.md). Here a block of 2 MiB
// and more is a huge-page mapping of its own, which the kernel moves, pages
// and all, into a longer one when it grows (huge_pages::reallocate), so
// what is written is never copied or zeroed again, and only the new part
// is faulted in as records are added. Smaller blocks come from the heap.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

#include "graph/huge_pages.hpp"

namespace dag {

// Records move as bytes, which only types that hold no pointer into
// themselves survive (std::string's short buffer does not; neither do
// libstdc++'s debug-mode containers).
#ifdef _GLIBCXX_DEBUG
#error "RelocatingVector moves std::vector records as bytes, which debug-mode containers do not allow"
#endif

template <class T>
class RelocatingVector {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "records come from operator new and 2 MiB mappings");

public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = T &;
    using const_reference = const T &;
    using pointer = T *;
    using const_pointer = const T *;
    using iterator = T *;
    using const_iterator = const T *;

    RelocatingVector() noexcept = default;
    // Delegating, so that a copy that throws part way destroys what it made.
    RelocatingVector(const RelocatingVector &other) : RelocatingVector() {
        reserve(other.size_);
        for (const T &v : other) push_back(v);
    }
    RelocatingVector(RelocatingVector &&other) noexcept { swap(other); }
    RelocatingVector &operator=(RelocatingVector other) noexcept {
        swap(other);
        return *this;
    }
    ~RelocatingVector() {
        clear();
        release(data_, capacity_);
    }

    void swap(RelocatingVector &other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
    }

    std::size_t size() const noexcept { return size_; }
    std::size_t capacity() const noexcept { return capacity_; }
    bool empty() const noexcept { return size_ == 0; }
    static constexpr std::size_t max_size() noexcept { return PTRDIFF_MAX / sizeof(T); }

    T *data() noexcept { return data_; }
    const T *data() const noexcept { return data_; }
    T &operator[](std::size_t i) noexcept { return data_[i]; }
    const T &operator[](std::size_t i) const noexcept { return data_[i]; }
    T &back() noexcept { return data_[size_ - 1]; }
    iterator begin() noexcept { return data_; }
    iterator end() noexcept { return data_ + size_; }
    const_iterator begin() const noexcept { return data_; }
    const_iterator end() const noexcept { return data_ + size_; }

    // Strong guarantee, as std::vector's.
    void reserve(std::size_t n) {
        if (n > capacity_) relocate(n);
    }
    // Strong guarantee: a record that throws as it is made takes back
    // those made before it.
    void resize(std::size_t n) {
        // Geometric, as std::vector's: Boost adds a vertex as resize(size() + 1).
        if (n > capacity_) relocate(std::max(n, grown()));
        const std::size_t old = size_;
        try {
            while (size_ < n) {
                new (data_ + size_) T();
                ++size_;
            }
        } catch (...) {
            while (size_ > old) pop_back();
            throw;
        }
        while (size_ > n) pop_back();
    }
    // `value` may be one of this vector's own records: it is copied before
    // the records move.
    void push_back(const T &value) { emplace_back(value); }
    void push_back(T &&value) { emplace_back(std::move(value)); }
    template <class... Args>
    T &emplace_back(Args &&...args) {
        if (size_ == capacity_) {
            T made(std::forward<Args>(args)...);
            relocate(grown());
            return *new (data_ + size_++) T(std::move(made));
        }
        T *p = new (data_ + size_) T(std::forward<Args>(args)...);
        ++size_;
        return *p;
    }
    void pop_back() noexcept { data_[--size_].~T(); }
    void clear() noexcept {
        while (size_ > 0) pop_back();
    }

private:
    std::size_t grown() const {
        if (capacity_ == max_size()) throw std::length_error("RelocatingVector: too many records");
        return capacity_ == 0 ? 1 : capacity_ > max_size() / 2 ? max_size() : 2 * capacity_;
    }

    static bool huge(std::size_t n) noexcept { return n * sizeof(T) >= huge_pages::threshold; }

    // The records move to a block of `n` (more than size_) as bytes; on
    // failure nothing has changed.
    void relocate(std::size_t n) {
        if (n > max_size()) throw std::length_error("RelocatingVector: too many records");
        void *moved;
        if (huge(n) && huge(capacity_)) {
            moved = huge_pages::reallocate(data_, capacity_ * sizeof(T), n * sizeof(T));
        } else {
            // The heap through operator new, as std::vector's: a program
            // that replaces it (the allocation-failure tests) sees records too.
            moved = huge(n) ? huge_pages::allocate(n * sizeof(T)) : ::operator new(n * sizeof(T));
            if (size_) std::memcpy(moved, static_cast<const void *>(data_), size_ * sizeof(T));
            release(data_, capacity_);
        }
        data_ = static_cast<T *>(moved);
        capacity_ = n;
    }

    static void release(T *p, std::size_t n) noexcept {
        if (huge(n))
            huge_pages::deallocate(p, n * sizeof(T));
        else
            ::operator delete(p);
    }

    T *data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace dag
