// The name store (name_table.hpp) against a std::unordered_map model, and the
// name sort (sorted_names.hpp) against std::sort, on names built to stress
// them: long shared prefixes, lengths around the 8-byte chunks the sort reads,
// bytes above 0x7f, and more names than one probe run or arena chunk holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/name_table.hpp"
#include "graph/sorted_names.hpp"

namespace dag {
namespace {

std::string random_name(std::mt19937 &rng) {
    static const char *const prefixes[] = {"", "m", "module.app.", "module.app.aws_instance.", "module.app.aws_instance.web",
                                           "\xc3\xa9t\xc3\xa9."};
    static const char *const parts[] = {"0", "1", "9", "a", "z", ".", "[", "]", "_", "\xc3\xa9", "\xe2\x82\xac", "web"};
    std::string s = prefixes[rng() % std::size(prefixes)];
    for (int i = 0, n = static_cast<int>(rng() % 12); i < n; ++i) s += parts[rng() % std::size(parts)];
    if (s.empty()) s = "x";
    // Now and then one past the arena's small sizes.
    if (rng() % 50 == 0) s += std::string(300, 'L');
    return s;
}

TEST(NameTable, AgreesWithAMapThroughInsertsErasesAndRetires) {
    std::mt19937 rng(7);
    NameTable table;
    std::unordered_map<std::string, std::uint32_t> model;
    std::unordered_map<std::string, const char *> stored;
    std::uint32_t next_vertex = 0;
    for (int step = 0; step < 60000; ++step) {
        const std::string name = random_name(rng);
        const int op = static_cast<int>(rng() % 10);
        if (op < 6) {
            std::uint32_t holder = 0;
            const char *p = table.insert(name, next_vertex, holder);
            auto it = model.find(name);
            if (it != model.end()) {
                ASSERT_EQ(p, nullptr) << name;
                ASSERT_EQ(holder, it->second);
            } else {
                ASSERT_NE(p, nullptr);
                ASSERT_EQ(std::string(p), name) << "stored with its NUL";
                model.emplace(name, next_vertex);
                stored.emplace(name, p);
                ++next_vertex;
            }
        } else if (!model.empty()) {
            // Erase or retire some present name: the one found next to a
            // random probe of the model.
            auto it = model.begin();
            std::advance(it, static_cast<long>(rng() % std::min<std::size_t>(model.size(), 16)));
            const std::string gone = it->first;
            const char *p = stored.at(gone);
            if (op < 9)
                table.erase(std::string_view(p, gone.size()));
            else
                table.retire(std::string_view(p, gone.size()));
            model.erase(gone);
            stored.erase(gone);
        }
        ASSERT_EQ(table.size(), model.size());
        if (step % 997 == 0) {
            for (const auto &[n, v] : model) ASSERT_EQ(table.find(n), v) << n;
            for (const auto &[n, p] : stored) ASSERT_EQ(std::string(p), n) << "stored names never move";
        }
    }
    for (const auto &[n, v] : model) EXPECT_EQ(table.find(n), v) << n;
    EXPECT_EQ(table.find("never stored"), NameTable::npos);
    EXPECT_EQ(table.find(""), NameTable::npos);
}

TEST(NameTable, ErasedBytesAreReusedAndRetiredOnesKept) {
    NameTable table;
    std::uint32_t holder = 0;
    const char *a = table.insert("abcdef", 0, holder);
    table.erase(std::string_view(a, 6));
    EXPECT_EQ(table.find("abcdef"), NameTable::npos);
    const char *b = table.insert("ghijkl", 1, holder);
    EXPECT_EQ(b, a) << "a name of the same size takes the freed bytes";
    table.retire(std::string_view(b, 6));
    EXPECT_EQ(table.find("ghijkl"), NameTable::npos);
    const char *c = table.insert("mnopqr", 2, holder);
    EXPECT_NE(c, b) << "retired bytes are not reused";
    EXPECT_STREQ(b, "ghijkl") << "a retired name stays readable";
    EXPECT_EQ(table.find("mnopqr"), 2u);
}

TEST(NameTable, ALongerNameWithAStoredNamesHashReadsNothingPastIt) {
    // A lookup compared as many bytes of a stored name as the looked-up
    // name has: a shorter stored name with the same hash was read past its
    // end. Here it ends its arena chunk (511 names of 8 bytes with their
    // NUL fill the first 4096-byte chunk but one granule), where
    // AddressSanitizer sees a read past it, and a plain build could fault.
    NameTable table;
    std::uint32_t holder = 0;
    for (std::uint32_t v = 0; v < 511; ++v) {
        const std::string filler = "f" + std::string(6 - std::to_string(v).size(), '0') + std::to_string(v);
        ASSERT_NE(table.insert_hashed(filler, v, v, holder), nullptr);
    }
    const std::uint32_t hash = 0x5eed;
    ASSERT_NE(table.insert_hashed("shorter", hash, 7, holder), nullptr);
    const std::string longer = "shorter" + std::string(300, 'L');
    EXPECT_EQ(table.find_hashed(longer, hash), NameTable::npos);
    const char *stored = table.insert_hashed(longer, hash, 8, holder);
    ASSERT_NE(stored, nullptr) << "a longer name is another name";
    EXPECT_EQ(table.find_hashed(longer, hash), 8u);
    EXPECT_EQ(table.find_hashed("shorter", hash), 7u);
    EXPECT_EQ(table.find_hashed("short", hash), NameTable::npos);
}

TEST(NameTable, SwapExchangesContents) {
    NameTable x, y;
    std::uint32_t holder = 0;
    x.insert("left", 4, holder);
    y.insert("right", 5, holder);
    x.swap(y);
    EXPECT_EQ(x.find("right"), 5u);
    EXPECT_EQ(x.find("left"), NameTable::npos);
    EXPECT_EQ(y.find("left"), 4u);
}

// SortedNames::sort of `names` shuffled gives what std::sort gives (after
// dropping repeats: a graph's names are distinct).
void expect_sorted_as_std_sorts(std::vector<std::string> names, std::mt19937 &rng) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<std::string> shuffled = names;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::vector<SortedNames::Entry> entries;
    for (std::size_t i = 0; i < shuffled.size(); ++i)
        entries.push_back({shuffled[i].data(), static_cast<std::uint32_t>(shuffled[i].size()),
                           static_cast<std::uint32_t>(i)});
    SortedNames::sort(entries.data(), entries.size());
    ASSERT_EQ(entries.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) ASSERT_EQ(std::string(entries[i].view()), names[i]) << i;
}

TEST(SortedNames, SortIsBytewiseOrder) {
    std::mt19937 rng(11);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::string> names;
        const int n = round == 0 ? 20000 : static_cast<int>(rng() % 300);
        for (int i = 0; i < n; ++i) names.push_back(random_name(rng));
        expect_sorted_as_std_sorts(names, rng);
    }
}

// Many names sharing most of their bytes, as Terraform's addresses do: the
// ranges large enough for radix passes, and chunks every name shares.
TEST(SortedNames, AddressesInLargeRangesSortBytewise) {
    std::mt19937 rng(5);
    std::vector<std::string> names;
    for (int i = 0; i < 60000; ++i) {
        std::string s = "module.m" + std::to_string(rng() % 120) + ".aws_instance.r" + std::to_string(rng() % 1000000);
        if (rng() % 7 == 0) s += "[" + std::to_string(rng() % 300) + "]";
        if (rng() % 11 == 0) s += "\xc3\xa9";
        names.push_back(s);
    }
    expect_sorted_as_std_sorts(names, rng);
}

// Each name a prefix of the next: every 8-byte chunk splits the range in
// two, hundreds of chunks deep.
TEST(SortedNames, NamesThatArePrefixesOfEachOtherSortShortestFirst) {
    std::mt19937 rng(3);
    std::vector<std::string> names;
    for (int i = 1; i <= 3000; ++i) names.push_back(std::string(static_cast<std::size_t>(i), 'a'));
    expect_sorted_as_std_sorts(names, rng);
}

// Names already in order are left as they are (one pass tells); one name out
// of place anywhere, even last, still gets the whole sort.
TEST(SortedNames, NamesInOrderOrAlmostSortAsStdSorts) {
    std::vector<std::string> sorted;
    for (int i = 0; i < 5000; ++i) sorted.push_back("module.m" + std::to_string(i % 7) + ".r" + std::to_string(i));
    std::sort(sorted.begin(), sorted.end());
    auto sort_names = [](const std::vector<std::string> &in) {
        std::vector<SortedNames::Entry> entries;
        for (std::size_t i = 0; i < in.size(); ++i)
            entries.push_back({in[i].data(), static_cast<std::uint32_t>(in[i].size()), static_cast<std::uint32_t>(i)});
        SortedNames::sort(entries.data(), entries.size());
        std::vector<std::string> out;
        for (const SortedNames::Entry &e : entries) {
            EXPECT_EQ(std::string(e.view()), in[e.vertex]) << "an entry keeps its vertex";
            out.emplace_back(e.view());
        }
        return out;
    };
    EXPECT_EQ(sort_names(sorted), sorted);
    std::vector<std::string> last_first = sorted;
    std::rotate(last_first.begin(), last_first.end() - 1, last_first.end());
    EXPECT_EQ(sort_names(last_first), sorted);
    std::vector<std::string> last_two_swapped = sorted;
    std::swap(last_two_swapped[4998], last_two_swapped[4999]);
    EXPECT_EQ(sort_names(last_two_swapped), sorted);
}

}  // namespace
}  // namespace dag
