// A graph's names in bytewise order, kept up to date as names come and go
// instead of sorted again for every query.
//
// The graph reports each vertex whose name changed (named, renamed, unnamed,
// removed); update() then drops those vertices' old entries, sorts only their
// current names and merges them in: O(V + k log k) string work for k changes,
// where sorting every name per order cost O(V log V) string comparisons.
// Many changes (a freshly built graph) make it sort everything once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "graph/huge_pages.hpp"

namespace dag {

class SortedNames {
public:
    struct Entry {
        const char *name;
        std::uint32_t size;
        std::uint32_t vertex;  // graph index (id - 1)
        std::string_view view() const noexcept { return {name, size}; }
    };

    // `vertex`'s name changed. Never throws: a change that cannot be
    // recorded makes the next update() sort everything.
    void changed(std::uint32_t vertex) noexcept;
    // Forget everything: the next update() sorts every name.
    void reset() noexcept;
    void swap(SortedNames &other) noexcept;

    // The names in bytewise order, brought up to date. `name_of(v)` gives
    // vertex index v's current name, a view with a null data() when it has
    // none; vertices are those below `bound`.
    template <class NameOf>
    const HugeVector<Entry> &update(std::size_t bound, const NameOf &name_of) {
        if (resort_ || changes_.size() > entries_.size() / 4 + 1024) {
            HugeVector<Entry> all;
            // Reserved once: a vector grown by doubling touches twice its
            // size in fresh pages, and a fresh page costs more than the
            // sort's work for it on a VM.
            all.reserve(bound);
            for (std::size_t v = 0; v < bound; ++v)
                if (const std::string_view n = name_of(v); n.data())
                    all.push_back({n.data(), static_cast<std::uint32_t>(n.size()), static_cast<std::uint32_t>(v)});
            sort(all.data(), all.size());
            entries_.swap(all);
        } else if (!changes_.empty()) {
            std::vector<char> mark(bound);
            std::vector<Entry> fresh;
            for (std::uint32_t v : changes_) {
                if (v >= bound || mark[v]) continue;
                mark[v] = 1;
                if (const std::string_view n = name_of(v); n.data())
                    fresh.push_back({n.data(), static_cast<std::uint32_t>(n.size()), v});
            }
            merge(fresh, mark);
        }
        changes_.clear();
        resort_ = false;
        return entries_;
    }

    // Sorts entries by name, bytewise: an MSD radix sort that holds each
    // name's next 8 bytes beside it and moves the names once per byte that
    // tells them apart, so names sharing a long prefix (Terraform addresses
    // share most of theirs) cost one read per 8 shared bytes, not a
    // comparison of the whole prefix per pair.
    static void sort(Entry *entries, std::size_t n);

private:
    // Drops the entries of marked vertices and of those at or past
    // mark.size() (vertices gone), then merges `fresh` in.
    void merge(std::vector<Entry> &fresh, const std::vector<char> &mark);

    HugeVector<Entry> entries_;
    std::vector<std::uint32_t> changes_;
    bool resort_ = true;
};

}  // namespace dag
