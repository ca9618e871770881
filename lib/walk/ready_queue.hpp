// The executor's queue of ready vertices: a ring buffer over one array.
//
// Unlike std::deque it can reserve room ahead, so that an update of a
// running walk, once it has changed the graph, hands the vertices it made
// ready to the workers without allocating: it cannot fail half-way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dag::walk_detail {

template <class T>
class ReadyQueue {
public:
    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const noexcept { return size_; }

    // Room for `extra` more entries; afterwards, pushing that many does not
    // allocate. Strong guarantee.
    void reserve_more(std::size_t extra) {
        if (size_ + extra <= ring_.size()) return;
        std::vector<T> grown(std::max(size_ + extra, 2 * ring_.size()));
        for (std::size_t i = 0; i < size_; ++i) grown[i] = at(i);
        ring_.swap(grown);
        head_ = 0;
    }

    // Appends [first, last) in order.
    template <class It>
    void push_back(It first, It last) {
        reserve_more(static_cast<std::size_t>(last - first));
        for (; first != last; ++first) {
            ring_[wrap(head_ + size_)] = *first;
            ++size_;
        }
    }

    // Puts [first, last) in front, in order: the range's first element
    // becomes the queue's first.
    template <class It>
    void push_front(It first, It last) {
        const std::size_t n = static_cast<std::size_t>(last - first);
        reserve_more(n);
        head_ = wrap(head_ + ring_.size() - n);
        for (std::size_t i = 0; first != last; ++first, ++i) ring_[wrap(head_ + i)] = *first;
        size_ += n;
    }

    // The ring's array, for a later queue to adopt(): this queue is left
    // empty, whatever it held.
    std::vector<T> release() noexcept {
        head_ = size_ = 0;
        return std::move(ring_);
    }
    // Takes over `ring`'s room. Precondition: empty().
    void adopt(std::vector<T> &&ring) noexcept {
        ring_ = std::move(ring);
        head_ = 0;
    }

    T pop_front() noexcept {
        T v = ring_[head_];
        head_ = wrap(head_ + 1);
        --size_;
        return v;
    }

private:
    std::size_t wrap(std::size_t i) const noexcept { return i >= ring_.size() ? i - ring_.size() : i; }
    const T &at(std::size_t i) const noexcept { return ring_[wrap(head_ + i)]; }

    std::vector<T> ring_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

}  // namespace dag::walk_detail
