// The provided addresses of a graph's vertices, indexed once per step, and the
// longest-prefix lookup of a reference (Terraform's ReferenceMap).
//
// A reference's candidate prefixes end where an address part ends: before a
// `.` or `[` outside brackets and quotes, and at its end. So
// `aws_instance.web[0].id` tries `aws_instance.web[0].id`,
// `aws_instance.web[0]`, `aws_instance.web`, `aws_instance`, and
// `provider["registry.terraform.io/x"]` is never cut inside its key. A prefix
// holding a bracketed key is also tried without its keys, before the next
// shorter prefix: `module.net[0].x`, then `module.net.x` (Terraform's
// ReferenceMap falls back so from a counted module's output to the output
// the module call provides), then `module.net[0]`, then `module.net`. The
// hash of every prefix, with and without its keys, comes from one pass over
// the reference (FNV-1a is computed left to right), so a lookup costs
// O(length of the reference) plus one comparison per hash hit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "build/declarations.hpp"
#include "graph/graph.hpp"

namespace dag {

class AddressIndex {
public:
    // Indexes what every live declaring vertex of `g` provides. The strings
    // are borrowed from `declarations`, which must outlive the index and not
    // change meanwhile.
    AddressIndex(const Graph &g, const Declarations &declarations);

    // The vertices providing the longest provided prefix of `reference`,
    // ascending; empty when no prefix is provided. Valid until the next call.
    const std::vector<VertexId> &longest_prefix(std::string_view reference);

    // The vertices providing exactly `address`, ascending; empty if none.
    std::vector<VertexId> exact(std::string_view address) const;

private:
    struct Entry {
        std::string_view address;
        std::uint64_t hash;
        std::size_t first;  // into providers_
        std::size_t count;
    };
    const Entry *lookup(std::string_view address, std::uint64_t hash) const;

    std::vector<Entry> entries_;
    std::vector<VertexId> providers_;
    std::vector<std::uint32_t> slots_;  // entry index + 1; 0 is an empty slot
    std::size_t mask_ = 0;
    std::vector<VertexId> found_;
    // Where a candidate prefix ends, and its hash; the same of the prefix
    // without its bracketed keys (in unkeyed_), tried too when it had one,
    // each ending an address part.
    struct Cut {
        std::size_t end;
        std::uint64_t hash;
        std::size_t unkeyed_end;
        std::uint64_t unkeyed_hash;
        bool falls_back;
    };
    std::vector<Cut> cuts_;
    std::string unkeyed_;  // the reference without its bracketed keys
};

// FNV-1a over `text`, continuing from `hash`.
std::uint64_t address_hash(std::string_view text, std::uint64_t hash = 14695981039346656037ull) noexcept;

}  // namespace dag
