#include "graph/sorted_names.hpp"

#include <algorithm>
#include <cstring>

namespace dag {

namespace {

using Entry = SortedNames::Entry;

struct Keyed {
    std::uint64_t key;
    Entry entry;
};

// Bytes [depth, depth + 8) of the name, big-endian, zero past its end: names
// hold no NUL, so a name that ends sorts before every longer one, as
// bytewise order wants.
std::uint64_t key_at(const Entry &e, std::size_t depth) noexcept {
    unsigned char bytes[8] = {};
    if (depth < e.size) std::memcpy(bytes, e.name + depth, std::min<std::size_t>(8, e.size - depth));
    std::uint64_t k = 0;
    for (unsigned char b : bytes) k = (k << 8) | b;
    return k;
}

bool less_from(const Entry &a, const Entry &b, std::size_t depth) noexcept {
    const std::string_view x = a.view().substr(std::min<std::size_t>(depth, a.size));
    const std::string_view y = b.view().substr(std::min<std::size_t>(depth, b.size));
    return x < y;
}

void sort_range(Keyed *first, std::size_t n, std::size_t depth) {
    if (n < 2) return;
    if (n <= 16) {
        std::sort(first, first + n, [depth](const Keyed &a, const Keyed &b) { return less_from(a.entry, b.entry, depth); });
        return;
    }
    // Chunks every name shares are skipped without sorting.
    for (;;) {
        bool same = true;
        first[0].key = key_at(first[0].entry, depth);
        for (std::size_t i = 1; i < n; ++i) {
            first[i].key = key_at(first[i].entry, depth);
            same = same && first[i].key == first[0].key;
        }
        if (!same) break;
        depth += 8;
    }
    std::sort(first, first + n, [](const Keyed &a, const Keyed &b) { return a.key < b.key; });
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && first[j].key == first[i].key) ++j;
        sort_range(first + i, j - i, depth + 8);
        i = j;
    }
}

bool name_less(const Entry &a, const Entry &b) noexcept { return a.view() < b.view(); }

}  // namespace

void SortedNames::sort(std::vector<Entry> &entries) {
    std::vector<Keyed> keyed(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) keyed[i] = {0, entries[i]};
    sort_range(keyed.data(), keyed.size(), 0);
    for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = keyed[i].entry;
}

void SortedNames::merge(std::vector<Entry> &fresh, const std::vector<char> &mark) {
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry &e) { return e.vertex >= mark.size() || mark[e.vertex]; }),
                   entries_.end());
    sort(fresh);
    // Each new name finds its place by binary search, so k new names cost
    // O(k log V) comparisons, and the rest is copied.
    std::vector<Entry> merged;
    merged.reserve(entries_.size() + fresh.size());
    auto from = entries_.begin();
    for (const Entry &f : fresh) {
        auto at = std::lower_bound(from, entries_.end(), f, name_less);
        merged.insert(merged.end(), from, at);
        merged.push_back(f);
        from = at;
    }
    merged.insert(merged.end(), from, entries_.end());
    entries_.swap(merged);
}

void SortedNames::changed(std::uint32_t vertex) noexcept {
    if (resort_) return;
    try {
        changes_.push_back(vertex);
    } catch (...) {
        resort_ = true;
    }
}

void SortedNames::reset() noexcept {
    changes_.clear();
    resort_ = true;
}

void SortedNames::swap(SortedNames &other) noexcept {
    entries_.swap(other.entries_);
    changes_.swap(other.changes_);
    std::swap(resort_, other.resort_);
}

}  // namespace dag
