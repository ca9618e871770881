// Options structs that grow: each begins with its own size, and a caller may
// pass any size from the struct's first released layout on (DESIGN.md §4,
// rule 2). Fields beyond a smaller caller's size take their defaults; bytes
// beyond this build's struct must be zero, or the caller is asking for
// something this library does not know how to do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <string>

#include "guard.hpp"

namespace dag::capi {

// No options struct will outgrow this; a larger size is one never set
// (garbage), and read_sized() would scan that far past the caller's struct.
constexpr std::size_t max_sized = 4096;

// Refuses a size below the first released layout (such a struct never
// existed) or above max_sized.
inline void check_sized(std::size_t size, std::size_t first, const char *what) {
    if (size > max_sized)
        throw ApiError{DAG_E_INVALID_ARGUMENT, std::string(what) + " is " + std::to_string(size) + ", larger than " +
                                                   std::to_string(max_sized) +
                                                   " bytes: initialise the options with their _init function"};
    if (size < first)
        throw ApiError{DAG_E_INVALID_ARGUMENT, std::string(what) + " is " + std::to_string(size) +
                                                   ", smaller than any released layout (" + std::to_string(first) +
                                                   " bytes): initialise the options with their _init function"};
}

// Fills the caller's `size` bytes at `out`: `defaults` up to this build's
// layout, zeros past it, and the size field set to `size`.
template <class T>
void init_sized(T *out, std::size_t size, std::size_t first, const T &defaults, const char *what) {
    check_sized(size, first, what);
    T filled = defaults;
    filled.size = size;
    auto *bytes = reinterpret_cast<unsigned char *>(out);
    std::memcpy(bytes, &filled, std::min(size, sizeof(T)));
    if (size > sizeof(T)) std::memset(bytes + sizeof(T), 0, size - sizeof(T));
}

// The caller's options as this build's struct: its bytes up to its size over
// `defaults`, in whole fields. A compiled struct's size is a multiple of its
// alignment, and no field is wider than that or straddles a multiple of it;
// the first layout ends where its last field does. Any other size (set by
// hand) may end inside a field, such as half a hook's address: only the
// fields wholly inside it are read, and the field it ends in keeps its
// default. A size that is not a multiple of the alignment can still end
// exactly at a narrower field followed by padding (an int before a
// pointer): `short_field_ends` lists where such fields end, past the first
// layout, so that they are read too.
template <class T>
T read_sized(const T *in, std::size_t first, const T &defaults, const char *what,
             std::initializer_list<std::size_t> short_field_ends = {}) {
    const std::size_t size = in->size;
    check_sized(size, first, what);
    const auto *bytes = reinterpret_cast<const unsigned char *>(in);
    for (std::size_t k = sizeof(T); k < size; ++k)
        if (bytes[k])
            throw ApiError{DAG_E_INVALID_ARGUMENT,
                           std::string(what) + " is " + std::to_string(size) + " and byte " + std::to_string(k) +
                               " is not zero: it sets an option this library (" + std::to_string(sizeof(T)) +
                               " bytes) does not have"};
    std::size_t whole = std::max(size / alignof(T) * alignof(T), first);
    for (const std::size_t end : short_field_ends)
        if (end <= size) whole = std::max(whole, end);
    T out = defaults;
    std::memcpy(&out, in, std::min(whole, sizeof(T)));
    return out;
}

}  // namespace dag::capi
