#include "algorithms/order_extension.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

namespace dag {

namespace {

constexpr std::uint32_t npos = std::numeric_limits<std::uint32_t>::max();

struct NewVertex {
    std::uint32_t index;  // graph index
    // Dependencies first: the first position it may take (after its last
    // dependency). Dependents first: the last (its first dependency's).
    std::size_t limit;
    // An old vertex whose rank is at least this has a larger key.
    std::uint32_t threshold = 0;
    // Its rank among the new vertices by key.
    std::uint32_t order = 0;
    // The old position it goes before (the order's size: after them all).
    std::size_t gap = 0;
};

// Each new vertex's threshold and rank among the new ones. Unnamed vertices
// have the smallest keys, by id: a new unnamed one is larger than every old
// unnamed one and smaller than every named one. A named one is larger than
// the old names before it in the graph's sorted names.
void rank_new(const Graph &g, std::size_t old_size, std::vector<NewVertex> &fresh) {
    std::vector<std::pair<std::string_view, std::size_t>> named;
    std::uint32_t unnamed = 0;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        if (const std::optional<std::string_view> n = g.name(Graph::id_of(fresh[i].index)))
            named.emplace_back(*n, i);
        else
            fresh[i].order = unnamed++;  // in index order, which is id order
    }
    std::sort(named.begin(), named.end());
    g.with_sorted_names([&](const HugeVector<SortedNames::Entry> &sorted) {
        const std::size_t old_named = sorted.size() - named.size();
        const auto old_unnamed = static_cast<std::uint32_t>(old_size - old_named);
        for (NewVertex &v : fresh) v.threshold = old_unnamed;
        for (std::size_t j = 0; j < named.size(); ++j) {
            const auto at = std::lower_bound(sorted.begin(), sorted.end(), named[j].first,
                                             [](const SortedNames::Entry &e, std::string_view n) { return e.view() < n; });
            NewVertex &v = fresh[named[j].second];
            // The sorted names hold the j new names before this one too.
            v.threshold = old_unnamed + static_cast<std::uint32_t>(at - sorted.begin() - j);
            v.order = unnamed + static_cast<std::uint32_t>(j);
        }
        return 0;
    });
}

}  // namespace

bool extend_order(const Graph &g, TopoDirection direction, const KeptOrders::Since &since, KeptOrders::Order &out) {
    const KeptOrders::Order &old = since.order;
    if (!old.ids) return false;
    const HugeVector<VertexId> &ids = *old.ids;
    const std::size_t n = ids.size();
    const std::size_t old_bound = old.bound, bound = g.index_bound();
    const bool named = g.has_names();
    if (bound < old_bound || named != (old.keys != nullptr)) return false;
    // Beyond this the pass costs less than the extension's scans.
    if (bound - old_bound + since.edges.size() > n / 8 + 1024) return false;
    const bool dependencies_first = direction == TopoDirection::dependencies_first;

    std::vector<NewVertex> fresh;
    fresh.reserve(bound - old_bound);
    for (std::size_t v = old_bound; v < bound; ++v) {
        if (!g.alive_index(v)) return false;
        fresh.push_back({static_cast<std::uint32_t>(v), dependencies_first ? 0 : n});
    }

    if (!since.edges.empty()) {
        std::vector<std::uint32_t> pos(old_bound, npos);
        for (std::size_t k = 0; k < n; ++k) pos[Graph::index_of(ids[k])] = static_cast<std::uint32_t>(k);
        for (const auto &[a, b] : since.edges) {
            // Something depends on a new vertex: it is no longer placed
            // by its key alone.
            if (b >= old_bound || pos[b] == npos) return false;
            if (a >= old_bound) {
                std::size_t &limit = fresh[a - old_bound].limit;
                limit = dependencies_first ? std::max<std::size_t>(limit, pos[b] + std::size_t{1})
                                           : std::min<std::size_t>(limit, pos[b]);
            } else if (pos[a] == npos || (dependencies_first ? pos[b] >= pos[a] : pos[a] >= pos[b])) {
                return false;
            }
        }
    }

    if (named) rank_new(g, n, fresh);
    const std::uint32_t *keys = named ? old.keys->data() : nullptr;
    // Without names every new vertex has a larger key (its id) than every
    // old one: none stops at an old vertex.
    std::size_t budget = 2 * n + 1024;
    for (NewVertex &v : fresh) {
        const std::size_t first = dependencies_first ? v.limit : 0;
        const std::size_t last = dependencies_first ? n : std::min(v.limit + 1, n);
        std::size_t k = first;
        if (keys) {
            if (last - first > budget) return false;
            budget -= last - first;
            while (k < last && keys[k] < v.threshold) ++k;
        } else {
            k = last;
        }
        if (!dependencies_first && k == last && v.limit < n) return false;
        v.gap = k;
    }
    std::sort(fresh.begin(), fresh.end(),
              [](const NewVertex &a, const NewVertex &b) { return a.gap != b.gap ? a.gap < b.gap : a.order < b.order; });

    auto merged = std::make_shared<HugeVector<VertexId>>();
    merged->reserve(n + fresh.size());
    std::shared_ptr<HugeVector<std::uint32_t>> ranks;
    std::vector<std::uint32_t> thresholds;
    if (keys) {
        ranks = std::make_shared<HugeVector<std::uint32_t>>();
        ranks->reserve(n + fresh.size());
        for (const NewVertex &v : fresh) thresholds.push_back(v.threshold);
        std::sort(thresholds.begin(), thresholds.end());
    }
    auto next = fresh.begin();
    const auto emit_new_before = [&](std::size_t k) {
        for (; next != fresh.end() && next->gap == k; ++next) {
            merged->push_back(Graph::id_of(next->index));
            if (ranks) ranks->push_back(next->threshold + next->order);
        }
    };
    for (std::size_t k = 0; k < n; ++k) {
        emit_new_before(k);
        merged->push_back(ids[k]);
        if (ranks) {
            // Every new vertex whose threshold is at most this rank has a
            // smaller key.
            const auto below = std::upper_bound(thresholds.begin(), thresholds.end(), keys[k]) - thresholds.begin();
            ranks->push_back(keys[k] + static_cast<std::uint32_t>(below));
        }
    }
    emit_new_before(n);
    out.ids = std::move(merged);
    out.keys = std::move(ranks);
    return true;
}

}  // namespace dag
