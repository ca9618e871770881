#include "algorithms/transitive_reduction.hpp"

#include <algorithm>
#include <cstdint>

#include "graph/error.hpp"
#include "graph/shared_snapshot.hpp"
#include "algorithms/topo_order.hpp"
#include "algorithms/validate.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;
using Word = std::uint64_t;

// The inner loop of the whole reduction. On x86-64 GCC/Clang build it twice,
// plain and for AVX2, and pick at load time: twice the words per
// instruction, without requiring AVX2 of the machine running the library.
// Not under ThreadSanitizer: the ifunc resolver runs while the library is
// relocated, before TSan's runtime is ready, and crashes the process.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
void or_words(Word *__restrict dst, const Word *__restrict src, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) dst[i] |= src[i];
}

// One block of the reachability matrix: row p holds, for the target columns
// [c0, c0 + 64 * words), the positions reachable from position p. Each row
// tracks the range of words it has written, so sparse rows cost little and
// nothing is cleared that was never touched.
class BlockRows {
public:
    BlockRows(std::size_t rows, std::size_t words) : words_(words), bits_(rows * words), lo_(rows), hi_(rows) {}

    void reset(Index row) {
        lo_[row] = 0;
        hi_[row] = 0;
    }

    bool test(Index row, Index col) const {
        const Index w = col / 64;
        return w >= lo_[row] && w < hi_[row] && (at(row, w) >> (col % 64) & 1);
    }

    void set(Index row, Index col) {
        const Index w = col / 64;
        widen(row, w, w + 1);
        at(row, w) |= Word{1} << (col % 64);
    }

    // row |= other
    void merge(Index row, Index other) {
        const Index a = lo_[other], b = hi_[other];
        if (a >= b) return;
        widen(row, a, b);
        or_words(&at(row, a), &at(other, a), b - a);
    }

private:
    Word &at(Index row, Index w) { return bits_[row * words_ + w]; }
    Word at(Index row, Index w) const { return bits_[row * words_ + w]; }

    // Extends the row's written range to cover [a, b), zeroing new words.
    void widen(Index row, Index a, Index b) {
        Index &lo = lo_[row];
        Index &hi = hi_[row];
        Word *r = &at(row, 0);
        if (lo >= hi) {
            std::fill(r + a, r + b, Word{0});
            lo = a;
            hi = b;
            return;
        }
        if (a < lo) {
            std::fill(r + a, r + lo, Word{0});
            lo = a;
        }
        if (b > hi) {
            std::fill(r + hi, r + b, Word{0});
            hi = b;
        }
    }

    std::size_t words_;
    std::vector<Word> bits_;
    std::vector<Index> lo_, hi_;
};

}  // namespace

std::size_t reduction_block_words(std::size_t n) {
    constexpr std::size_t preferred_bytes = std::size_t{64} << 20;
    constexpr std::size_t max_bytes = std::size_t{1} << 30;
    constexpr std::size_t min_words = 64;
    n = std::max<std::size_t>(n, 1);
    const std::size_t total_words = (n + 63) / 64;
    const std::size_t preferred = preferred_bytes / sizeof(Word) / n;
    const std::size_t cap = std::max<std::size_t>(1, max_bytes / sizeof(Word) / n);
    return std::min(total_words, std::max({preferred, std::min(min_words, cap), std::size_t{1}}));
}

std::vector<std::pair<Index, Index>> redundant_edges(const Snapshot &s, std::size_t block_columns) {
    const Index n = static_cast<Index>(s.size());
    if (n == 0) return {};

    // Work in positions of a topological order (dependents first): every
    // dependency of the vertex at position p sits at a position > p, so a
    // vertex only ever reaches higher positions.
    const std::vector<Index> topo = topological_indices(s, nullptr, TopoDirection::dependents_first);
    std::vector<Index> pos(n);
    for (Index p = 0; p < n; ++p) pos[topo[p]] = p;

    // Dependencies of each position, as positions, nearest first: if one
    // dependency reaches another, it comes earlier in this list.
    std::vector<Index> offsets(n + 1, 0);
    std::vector<Index> deps(s.edge_count());
    for (Index p = 0; p < n; ++p) {
        const Index v = topo[p];
        offsets[p + 1] = offsets[p] + s.out_degree(v);
        Index *d = deps.data() + offsets[p];
        for (const Index *w = s.out_begin(v); w != s.out_end(v); ++w) *d++ = pos[*w];
        std::sort(deps.data() + offsets[p], d);
    }
    std::vector<char> redundant(deps.size(), 0);

    const std::size_t total_words = (std::size_t{n} + 63) / 64;
    const std::size_t block_words =
        block_columns ? std::min(total_words, (block_columns + 63) / 64) : reduction_block_words(n);
    const Index block_bits = static_cast<Index>(block_words * 64);
    BlockRows rows(n, block_words);

    for (Index c0 = 0; c0 < n; c0 += std::min(block_bits, n - c0)) {
        const Index c1 = static_cast<Index>(std::min<std::size_t>(n, std::size_t{c0} + block_bits));
        // Only positions below c1 can reach a column of this block, and a
        // row is complete before any lower position reads it.
        for (Index p = c1; p-- > 0;) {
            rows.reset(p);
            for (Index e = offsets[p]; e < offsets[p + 1]; ++e) {
                const Index q = deps[e];
                if (q >= c1) break;
                if (q >= c0) {
                    if (rows.test(p, q - c0)) {
                        redundant[e] = 1;
                        continue;  // q's reach is already in p's row
                    }
                    rows.set(p, q - c0);
                }
                rows.merge(p, q);
            }
        }
    }

    std::vector<std::pair<Index, Index>> out;
    for (Index p = 0; p < n; ++p)
        for (Index e = offsets[p]; e < offsets[p + 1]; ++e)
            if (redundant[e]) out.emplace_back(topo[p], topo[deps[e]]);
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t transitive_reduction(Graph &g) {
    // Before the work, not at the first disconnect: a reduction that finds
    // nothing to remove is refused all the same.
    g.check_changeable();
    // `s` keeps the snapshot alive when the first disconnect drops it from
    // the graph's cache.
    const SharedSnapshot s = shared_snapshot(g);
    if (!s.cached) require_acyclic(g, *s);
    const auto edges = redundant_edges(*s);
    std::vector<std::pair<VertexId, VertexId>> ids;
    ids.reserve(edges.size());
    for (const auto &[from, to] : edges) ids.emplace_back(s->id_of(from), s->id_of(to));
    g.disconnect_many(ids);
    return edges.size();
}

}  // namespace dag
