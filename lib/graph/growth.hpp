// Growing a vector by what a batch needs without losing push_back's
// amortised cost. reserve(size() + extra) moves the whole vector to exactly
// that size, so a caller that reserves a little at a time (a loader adding
// vertices 100 at a time, an update adding a dependent to the same vertex)
// copies everything on every call: quadratic (10^6 vertices added 100 at a
// time took 119 s, 0.2 s in one batch). Growing to at least twice the old
// capacity keeps it linear; an empty vector's first reserve stays exact, so
// a graph built in one batch holds no slack.
#pragma once

#include <algorithm>
#include <cstddef>

namespace dag {

// Room for `extra` more elements of `v`: afterwards, that many push_backs do
// not allocate. Strong guarantee.
template <class Vec>
void reserve_more(Vec &v, std::size_t extra) {
    const std::size_t need = v.size() + extra;
    if (need > v.capacity()) v.reserve(std::max(need, std::min(2 * v.capacity(), v.max_size())));
}

}  // namespace dag
