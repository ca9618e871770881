#include "build/address_index.hpp"

#include <algorithm>

namespace dag {

std::uint64_t address_hash(std::string_view text, std::uint64_t hash) noexcept {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    return hash;
}

AddressIndex::AddressIndex(const Graph &g, const Declarations &declarations) {
    std::vector<std::pair<std::string_view, VertexId>> pairs;
    for (VertexId v : declarations.vertices()) {
        if (!g.has_vertex(v)) continue;
        for (const std::string &a : declarations.find(v)->provides) pairs.emplace_back(a, v);
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    providers_.reserve(pairs.size());
    for (std::size_t i = 0; i < pairs.size();) {
        std::size_t j = i;
        Entry e{pairs[i].first, address_hash(pairs[i].first), providers_.size(), 0};
        for (; j < pairs.size() && pairs[j].first == pairs[i].first; ++j) providers_.push_back(pairs[j].second);
        e.count = j - i;
        entries_.push_back(e);
        i = j;
    }
    std::size_t capacity = 16;
    while (capacity < entries_.size() * 2) capacity *= 2;
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
        std::size_t s = entries_[k].hash & mask_;
        while (slots_[s]) s = (s + 1) & mask_;
        slots_[s] = static_cast<std::uint32_t>(k + 1);
    }
}

const AddressIndex::Entry *AddressIndex::lookup(std::string_view address, std::uint64_t hash) const {
    for (std::size_t s = hash & mask_; slots_[s]; s = (s + 1) & mask_) {
        const Entry &e = entries_[slots_[s] - 1];
        if (e.hash == hash && e.address == address) return &e;
    }
    return nullptr;
}

const std::vector<VertexId> &AddressIndex::longest_prefix(std::string_view reference) {
    found_.clear();
    cuts_.clear();
    unkeyed_.clear();
    std::uint64_t hash = address_hash({});
    std::uint64_t unkeyed_hash = hash;
    int depth = 0;
    bool quoted = false;
    bool keyed = false;  // a bracketed key came before
    // A key that ends other than before a `.`, a `[` or the end (`a[0]b`)
    // is no address part: dropping it would join what it parted (`ab`).
    bool loose = false;
    const auto cut = [&](std::size_t end) {
        cuts_.push_back({end, hash, unkeyed_.size(), unkeyed_hash, keyed && !loose});
    };
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const char c = reference[i];
        if (!quoted && depth == 0 && (c == '.' || c == '[') && i > 0) cut(i);
        const bool in_key = depth > 0 || (!quoted && c == '[');
        keyed = keyed || in_key;
        const auto take = [&](char k) {
            hash = (hash ^ static_cast<unsigned char>(k)) * 1099511628211ull;
            if (in_key) return;
            unkeyed_ += k;
            unkeyed_hash = (unkeyed_hash ^ static_cast<unsigned char>(k)) * 1099511628211ull;
        };
        if (quoted) {
            if (c == '\\') {
                take(c);
                if (++i == reference.size()) break;
            } else if (c == '"') {
                quoted = false;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == '[') {
            ++depth;
        } else if (c == ']' && depth > 0) {
            if (--depth == 0 && i + 1 < reference.size() && reference[i + 1] != '.' && reference[i + 1] != '[')
                loose = true;
        }
        take(reference[i]);
    }
    cut(reference.size());
    for (auto it = cuts_.rbegin(); it != cuts_.rend(); ++it) {
        const Entry *e = lookup(reference.substr(0, it->end), it->hash);
        // Terraform's fallback for a counted module's output
        // (module.net[0].x, then module.net.x), before the shorter prefix.
        if (!e && it->falls_back) e = lookup(std::string_view(unkeyed_).substr(0, it->unkeyed_end), it->unkeyed_hash);
        if (e) {
            found_.assign(providers_.begin() + e->first, providers_.begin() + e->first + e->count);
            break;
        }
    }
    return found_;
}

std::vector<VertexId> AddressIndex::exact(std::string_view address) const {
    const Entry *e = lookup(address, address_hash(address));
    if (!e) return {};
    return std::vector<VertexId>(providers_.begin() + e->first, providers_.begin() + e->first + e->count);
}

}  // namespace dag
