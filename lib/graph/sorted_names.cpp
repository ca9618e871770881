#include "graph/sorted_names.hpp"

#include <algorithm>
#include <array>
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
    std::uint64_t k = 0;
    if (depth < e.size) std::memcpy(&k, e.name + depth, std::min<std::size_t>(8, e.size - depth));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    k = __builtin_bswap64(k);
#endif
    return k;
}

bool less_from(const Entry &a, const Entry &b, std::size_t depth) noexcept {
    const std::string_view x = a.view().substr(std::min<std::size_t>(depth, a.size));
    const std::string_view y = b.view().substr(std::min<std::size_t>(depth, b.size));
    return x < y;
}

// Below this many names a range is sorted by comparing them.
constexpr std::size_t compare_below = 32;

// MSD radix sort, one byte at a time, with each name's next 8 bytes held
// next to it: a range is split by its first byte that differs somewhere
// (one counting pass, stable), then each bucket by the next byte. Bytes and
// chunks every name of a range shares cost one counting read, no move, so
// names with long shared prefixes and few distinct bytes (Terraform's
// addresses: 100 modules share "module.m") move once per distinguishing
// byte. A work list instead of recursion: names sharing long prefixes
// would otherwise nest one call per byte.
void sort_keyed(Keyed *base, Keyed *tmp_base, std::size_t total) {
    struct Range {
        std::size_t first, n, depth;
        int byte;  // within the chunk at depth; 0: keys not read yet
    };
    std::vector<Range> work{{0, total, 0, 0}};
    std::array<std::uint32_t, 256> count;
    while (!work.empty()) {
        Range r = work.back();
        work.pop_back();
        Keyed *first = base + r.first;
        const std::size_t n = r.n;
        if (n < 2) continue;
        if (n <= compare_below) {
            // Keys read for this chunk decide most pairs without the names.
            const std::size_t depth = r.depth;
            if (r.byte == 0)
                std::sort(first, first + n,
                          [depth](const Keyed &a, const Keyed &b) { return less_from(a.entry, b.entry, depth); });
            else
                std::sort(first, first + n, [depth](const Keyed &a, const Keyed &b) {
                    if (a.key != b.key) return a.key < b.key;
                    return less_from(a.entry, b.entry, depth + 8);
                });
            continue;
        }
        // Find the range's first byte that differs somewhere: where the AND
        // and the OR of its keys first differ, reading names chunk by chunk.
        bool same = false;
        for (;;) {
            // The names lie anywhere in the arena once moved by an earlier
            // byte: each is asked for a few names ahead of its read.
            if (r.byte == 0)
                for (std::size_t i = 0; i < n; ++i) {
                    if (i + 16 < n) __builtin_prefetch(first[i + 16].entry.name + r.depth);
                    first[i].key = key_at(first[i].entry, r.depth);
                }
            std::uint64_t all_and = ~std::uint64_t{0}, all_or = 0;
            for (std::size_t i = 0; i < n; ++i) {
                all_and &= first[i].key;
                all_or |= first[i].key;
            }
            const std::uint64_t differ = (all_and ^ all_or) << (8 * r.byte);
            if (differ != 0) {
                r.byte += __builtin_clzll(differ) / 8;
                break;
            }
            // Every name here ends in this chunk and they agree: one name.
            if ((all_or & 0xff) == 0) {
                same = true;
                break;
            }
            r.byte = 0;
            r.depth += 8;
        }
        if (same) continue;
        const int shift = 56 - 8 * r.byte;
        count.fill(0);
        for (std::size_t i = 0; i < n; ++i) ++count[(first[i].key >> shift) & 0xff];
        std::array<std::uint32_t, 256> start;
        std::uint32_t at = 0;
        for (int b = 0; b < 256; ++b) {
            start[b] = at;
            at += count[b];
        }
        Keyed *tmp = tmp_base + r.first;
        std::array<std::uint32_t, 256> next = start;
        for (std::size_t i = 0; i < n; ++i) tmp[next[(first[i].key >> shift) & 0xff]++] = first[i];
        std::copy(tmp, tmp + n, first);
        Range sub = r;
        if (++sub.byte == 8) {
            sub.byte = 0;
            sub.depth += 8;
        }
        // Bucket 0 holds names that ended: at most one, as names differ.
        for (int b = 1; b < 256; ++b)
            if (count[b] > 1) work.push_back({r.first + start[b], count[b], sub.depth, sub.byte});
    }
}

bool name_less(const Entry &a, const Entry &b) noexcept { return a.view() < b.view(); }

}  // namespace

void SortedNames::sort(Entry *entries, std::size_t n) {
    // Names often arrive sorted (every text format libdag writes, DOT
    // included, lists the vertices by name): one pass tells, and stops at
    // the first name out of place otherwise.
    if (std::is_sorted(entries, entries + n, name_less)) return;
    HugeVector<Keyed> keyed, tmp;
    keyed.reserve(n);
    for (std::size_t i = 0; i < n; ++i) keyed.push_back({0, entries[i]});
    if (n > compare_below) tmp.resize(n);
    sort_keyed(keyed.data(), tmp.data(), n);
    for (std::size_t i = 0; i < n; ++i) entries[i] = keyed[i].entry;
}

void SortedNames::merge(std::vector<Entry> &fresh, const std::vector<char> &mark) {
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry &e) { return e.vertex >= mark.size() || mark[e.vertex]; }),
                   entries_.end());
    sort(fresh.data(), fresh.size());
    // A few new names (vertices added to a large graph one at a time, each
    // ordered after) go in place: a move of the entries after each, where a
    // merged copy takes fresh pages for every entry.
    if (fresh.size() <= 16) {
        auto from = entries_.begin();
        for (const Entry &f : fresh) from = entries_.insert(std::lower_bound(from, entries_.end(), f, name_less), f) + 1;
        return;
    }
    // Each new name finds its place by binary search, so k new names cost
    // O(k log V) comparisons, and the rest is copied.
    HugeVector<Entry> merged;
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
