#include "algorithms/order_extension.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

namespace dag {

namespace {

constexpr std::uint32_t npos = std::numeric_limits<std::uint32_t>::max();

struct NewVertex {
    std::uint32_t index = 0;  // graph index
    // Dependencies first: the first position it may take (after its last
    // old dependency). Dependents first: the last (its first old
    // dependency's).
    std::size_t limit = 0;
    // An old vertex whose rank is at least this has a larger key.
    std::uint32_t threshold = 0;
    // Its rank among the new vertices by key.
    std::uint32_t order = 0;
    // New vertices that must come before it and are not out yet.
    std::uint32_t waiting = 0;
    // New vertices waiting for it (positions in the new vertices' list).
    std::vector<std::uint32_t> next;
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
    // Beyond this the pass costs about what the extension does.
    if (bound - old_bound + since.edges.size() > n / 8 + 1024) return false;
    const bool dependencies_first = direction == TopoDirection::dependencies_first;

    std::vector<NewVertex> fresh;
    fresh.reserve(bound - old_bound);
    for (std::size_t v = old_bound; v < bound; ++v) {
        if (!g.alive_index(v)) return false;
        NewVertex nv;
        nv.index = static_cast<std::uint32_t>(v);
        nv.limit = dependencies_first ? 0 : n;
        // Without names the keys are the ids: index order (rank_new
        // sets it otherwise).
        nv.order = static_cast<std::uint32_t>(v - old_bound);
        fresh.push_back(std::move(nv));
    }

    if (!since.edges.empty()) {
        std::vector<std::uint32_t> pos(old_bound, npos);
        for (std::size_t k = 0; k < n; ++k) pos[Graph::index_of(ids[k])] = static_cast<std::uint32_t>(k);
        for (const auto &[a, b] : since.edges) {
            // An old vertex depending on a new one: the old vertices'
            // own pass changes.
            if (a < old_bound && b >= old_bound) return false;
            if (a >= old_bound && b >= old_bound) {
                // Going dependencies first b comes before a; else a before b.
                const std::uint32_t first = static_cast<std::uint32_t>((dependencies_first ? b : a) - old_bound);
                const std::uint32_t then = static_cast<std::uint32_t>((dependencies_first ? a : b) - old_bound);
                fresh[first].next.push_back(then);
                ++fresh[then].waiting;
                continue;
            }
            if (pos[b] == npos) return false;
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

    // Kahn's pass again, with the old vertices' part of it read from the
    // kept order: before each old vertex, every free new vertex with a
    // smaller key goes out (the smallest first), and may free others.
    // Without names every new key (an id) is larger than every old one.
    const auto by_key = [&fresh](std::uint32_t x, std::uint32_t y) { return fresh[x].order > fresh[y].order; };
    std::vector<std::uint32_t> free_new;  // a heap, smallest key on top
    std::vector<std::uint32_t> by_limit(fresh.size());
    for (std::uint32_t i = 0; i < fresh.size(); ++i) by_limit[i] = i;
    std::sort(by_limit.begin(), by_limit.end(),
              [&fresh](std::uint32_t x, std::uint32_t y) { return fresh[x].limit < fresh[y].limit; });
    std::vector<char> out_already(fresh.size());
    std::size_t released = 0;  // by_limit's prefix whose old dependencies are out
    const auto push = [&](std::uint32_t i) {
        free_new.push_back(i);
        std::push_heap(free_new.begin(), free_new.end(), by_key);
    };
    if (!dependencies_first)
        for (std::uint32_t i = 0; i < fresh.size(); ++i)
            if (fresh[i].waiting == 0) push(i);

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
    std::size_t emitted = 0;
    for (std::size_t k = 0; k <= n; ++k) {
        if (dependencies_first) {
            // Free once its old dependencies are out (limit <= k) and its
            // new ones (waiting == 0).
            for (; released < by_limit.size() && fresh[by_limit[released]].limit <= k; ++released)
                if (fresh[by_limit[released]].waiting == 0) push(by_limit[released]);
        }
        while (!free_new.empty() && (k == n || (keys && fresh[free_new.front()].threshold <= keys[k]))) {
            std::pop_heap(free_new.begin(), free_new.end(), by_key);
            const std::uint32_t i = free_new.back();
            free_new.pop_back();
            NewVertex &v = fresh[i];
            out_already[i] = 1;
            ++emitted;
            merged->push_back(Graph::id_of(v.index));
            if (ranks) ranks->push_back(v.threshold + v.order);
            for (const std::uint32_t w : v.next)
                if (--fresh[w].waiting == 0 && (!dependencies_first || fresh[w].limit <= k)) push(w);
        }
        if (k == n) break;
        if (!dependencies_first) {
            // An old dependency of a new vertex still not out would wait
            // for it now, where the kept pass took it.
            for (; released < by_limit.size() && fresh[by_limit[released]].limit <= k; ++released)
                if (!out_already[by_limit[released]]) return false;
        }
        merged->push_back(ids[k]);
        if (ranks) {
            // Every new vertex whose threshold is at most this rank has a
            // smaller key.
            const auto below = std::upper_bound(thresholds.begin(), thresholds.end(), keys[k]) - thresholds.begin();
            ranks->push_back(keys[k] + static_cast<std::uint32_t>(below));
        }
    }
    // A cycle among the new vertices leaves some of them waiting.
    if (emitted != fresh.size()) return false;
    out.ids = std::move(merged);
    out.keys = std::move(ranks);
    return true;
}

}  // namespace dag
