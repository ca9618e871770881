// A vertex-list selector for Boost.Graph's adjacency_list: vecS's vector of
// vertex records, on huge pages once it reaches 2 MiB (huge_pages.hpp) and
// grown without copying (relocating_vector.hpp). The records are the
// store's one large array (48 bytes a vertex for dependencies, 40 for
// dependents); on ordinary 4 KiB pages, growing them by doubling to 10^6
// vertices cost about 35,000 page faults, over half the time of adding
// named vertices one call at a time, and on huge pages the copies and the
// zeroing of each new block still about a fifth (bench/README.md).
//
// Boost lets a program name its own container selector (the "Customizing
// the Adjacency List Storage" page of its documentation): container_gen
// gives the container, parallel_edge_traits the edge policy, and
// is_random_access makes it behave as vecS does, a vertex being its index.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include "graph/relocating_vector.hpp"

namespace dag {
struct huge_vecS {};
}  // namespace dag

namespace boost {
template <class ValueType>
struct container_gen<dag::huge_vecS, ValueType> {
    typedef dag::RelocatingVector<ValueType> type;
};

template <>
struct parallel_edge_traits<dag::huge_vecS> {
    typedef allow_parallel_edge_tag type;
};

namespace detail {
template <>
struct is_random_access<dag::huge_vecS> {
    enum { value = true };
    typedef mpl::true_ type;
};
}  // namespace detail
}  // namespace boost
