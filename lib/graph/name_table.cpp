#include "graph/name_table.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

namespace dag {

NameTable::~NameTable() {
    for (const Slot &s : slots_)
        if (s.name && std::strlen(s.name) + 1 > max_small) delete[] s.name;
    for (const char *p : retired_big_) delete[] p;
}

std::uint64_t NameTable::hash_of(std::string_view name) noexcept { return std::hash<std::string_view>{}(name); }

namespace {
std::uint32_t fold(std::uint64_t h) noexcept { return static_cast<std::uint32_t>(h ^ (h >> 32)); }
}  // namespace

std::uint32_t NameTable::hash(std::string_view name) noexcept { return fold(hash_of(name)); }

namespace {
// Whether the stored, NUL-terminated `stored` is `name`. Its length comes
// first: a shorter stored name with the same hash (a collision, or a name
// chosen to collide) ends before name.size() bytes, and comparing that many
// would read past its end, and past its arena chunk.
bool same(const char *stored, std::string_view name) noexcept {
    return strnlen(stored, name.size() + 1) == name.size() && std::memcmp(stored, name.data(), name.size()) == 0;
}
}  // namespace

void NameTable::prefetch(std::uint32_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
}

std::uint32_t NameTable::find_hashed(std::string_view name, std::uint32_t h) const noexcept {
    if (count_ == 0) return npos;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
        const Slot &s = slots_[i];
        if (!s.name) return npos;
        if (s.hash == h && same(s.name, name)) return s.vertex;
    }
}

void NameTable::find_many(const std::string_view *names, std::size_t count, std::uint32_t *out) const noexcept {
    // Groups small enough that their slots and names stay in L1.
    constexpr std::size_t group = 32;
    std::uint32_t hashes[group];
    for (std::size_t begin = 0; begin < count; begin += group) {
        const std::size_t n = std::min(group, count - begin);
        for (std::size_t j = 0; j < n; ++j) {
            hashes[j] = hash(names[begin + j]);
            prefetch(hashes[j]);
        }
        if (count_ != 0) {
            const std::size_t mask = slots_.size() - 1;
            for (std::size_t j = 0; j < n; ++j) {
                const Slot &s = slots_[hashes[j] & mask];
                if (s.name && s.hash == hashes[j]) __builtin_prefetch(s.name);
            }
        }
        for (std::size_t j = 0; j < n; ++j) out[begin + j] = find_hashed(names[begin + j], hashes[j]);
    }
}

const char *NameTable::insert_hashed(std::string_view name, std::uint32_t h, std::uint32_t vertex, std::uint32_t &holder) {
    if ((count_ + 1) * 4 > slots_.size() * 3) grow(slots_.empty() ? 16 : slots_.size() * 2);
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    for (;; i = (i + 1) & mask) {
        const Slot &s = slots_[i];
        if (!s.name) break;
        if (s.hash == h && same(s.name, name)) {
            holder = s.vertex;
            return nullptr;
        }
    }
    char *p = allocate(name.size() + 1);
    std::memcpy(p, name.data(), name.size());
    p[name.size()] = '\0';
    slots_[i] = Slot{p, h, vertex};
    ++count_;
    return p;
}

std::size_t NameTable::slot_of(std::string_view stored) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = fold(hash_of(stored)) & mask;
    while (slots_[i].name != stored.data()) i = (i + 1) & mask;
    return i;
}

// Linear probing's deletion without tombstones: each later slot of the
// probe run moves back into the hole unless its home lies after the hole.
void NameTable::remove_slot(std::size_t hole) noexcept {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t j = (hole + 1) & mask; slots_[j].name; j = (j + 1) & mask) {
        const std::size_t home = slots_[j].hash & mask;
        const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays) continue;
        slots_[hole] = slots_[j];
        hole = j;
    }
    slots_[hole].name = nullptr;
    --count_;
}

void NameTable::erase(std::string_view stored) noexcept {
    remove_slot(slot_of(stored));
    release(stored.data(), stored.size() + 1);
}

void NameTable::retire(std::string_view stored) noexcept {
    remove_slot(slot_of(stored));
    // Keeping a big name needs room in retired_big_; without it the name is
    // freed after all, which only a walk's later read of it could notice.
    if (stored.size() + 1 > max_small) {
        try {
            retired_big_.push_back(stored.data());
        } catch (...) {
            delete[] stored.data();
        }
    }
}

void NameTable::reserve(std::size_t n) {
    std::size_t want = 16;
    while (n * 4 > want * 3) want *= 2;
    if (want > slots_.size()) grow(want);
}

void NameTable::grow(std::size_t size) {
    HugeVector<Slot> bigger(size, Slot{nullptr, 0, 0});
    const std::size_t mask = size - 1;
    for (const Slot &s : slots_) {
        if (!s.name) continue;
        std::size_t i = s.hash & mask;
        while (bigger[i].name) i = (i + 1) & mask;
        bigger[i] = s;
    }
    slots_.swap(bigger);
}

char *NameTable::allocate(std::size_t bytes) {
    if (bytes > max_small) return new char[bytes];
    return static_cast<char *>(small_.allocate(bytes));
}

void NameTable::release(const char *p, std::size_t bytes) noexcept {
    if (bytes > max_small)
        delete[] p;
    else
        small_.release(const_cast<char *>(p), bytes);
}

void NameTable::swap(NameTable &other) noexcept {
    slots_.swap(other.slots_);
    std::swap(count_, other.count_);
    small_.swap(other.small_);
    retired_big_.swap(other.retired_big_);
}

}  // namespace dag
