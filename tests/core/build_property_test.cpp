// Reference resolution on random declarations, against a brute-force
// longest-prefix search over a std::map (each prefix then tried without its
// keys): every reference with a provider becomes exactly one edge to the
// provider found first.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "build/references.hpp"
#include "build_test_support.hpp"

namespace dag {
namespace {

std::string random_address(std::mt19937 &rng) {
    static const char *parts[] = {"aws_instance", "web", "db", "module", "net", "var", "id", "output"};
    std::string a = parts[rng() % 8];
    const int more = rng() % 4;
    for (int i = 0; i < more; ++i) {
        if (rng() % 3 == 0) a += "[" + std::to_string(rng() % 3) + "]";
        else a += std::string(".") + parts[rng() % 8];
    }
    return a;
}

// Without its bracketed keys (the generated addresses have no nested ones).
std::string unkeyed(const std::string &a) {
    std::string out;
    bool in_key = false;
    for (char c : a) {
        in_key = in_key || c == '[';
        if (!in_key) out += c;
        in_key = in_key && c != ']';
    }
    return out;
}

// The prefixes ending before each `.` or `[` and the whole, longest first,
// each followed by itself without its keys where it has any (the generated
// addresses have no quotes and no nested brackets).
std::vector<std::string> prefixes(const std::string &ref) {
    std::vector<std::string> out;
    const auto add = [&out](const std::string &prefix) {
        out.push_back(prefix);
        if (unkeyed(prefix) != prefix) out.push_back(unkeyed(prefix));
    };
    add(ref);
    for (std::size_t i = ref.size(); i-- > 1;)
        if (ref[i] == '.' || ref[i] == '[') add(ref.substr(0, i));
    return out;
}

TEST(ReferencesProperty, EachResolvedReferenceIsOneEdgeToTheLongestPrefixProvider) {
    std::mt19937 rng(1806);
    for (int round = 0; round < 300; ++round) {
        test::Plan p;
        const int n = std::uniform_int_distribution<int>(1, 30)(rng);
        std::vector<VertexId> ids;
        std::map<std::string, VertexId> provider;
        for (int i = 0; i < n; ++i) {
            ids.push_back(p.add("v" + std::to_string(i)));
            const int provides = rng() % 3;
            for (int k = 0; k < provides; ++k) {
                std::string a = random_address(rng);
                if (provider.emplace(a, ids.back()).second) p.d.of(ids.back()).provides.push_back(a);
            }
        }
        std::set<std::pair<VertexId, VertexId>> expected;
        std::size_t unresolved = 0;
        for (VertexId v : ids) {
            const int refs = rng() % 5;
            for (int k = 0; k < refs; ++k) {
                const std::string r = random_address(rng);
                p.d.of(v).references.push_back(r);
                VertexId found = 0;
                for (const std::string &prefix : prefixes(r)) {
                    auto it = provider.find(prefix);
                    if (it != provider.end()) {
                        found = it->second;
                        break;
                    }
                }
                if (!found) ++unresolved;
                else if (found != v) expected.insert({v, found});
            }
        }
        std::vector<std::string> warnings;
        resolve_references(p.g, p.d, UnresolvedPolicy::warn, warnings);
        const auto edges = p.g.edges();
        const std::set<std::pair<VertexId, VertexId>> actual(edges.begin(), edges.end());
        EXPECT_EQ(actual, expected) << "round " << round;
        EXPECT_LE(warnings.size(), unresolved);
        EXPECT_EQ(warnings.empty(), unresolved == 0);
    }
}

}  // namespace
}  // namespace dag
