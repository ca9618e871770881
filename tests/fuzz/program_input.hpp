// The fuzzer's bytes read as a program: each read takes what it needs and
// reads zeros once the input has run out, so every input is a program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fuzz {

class ProgramInput {
public:
    ProgramInput(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}

    bool done() const { return p_ == end_; }
    uint8_t byte() { return p_ == end_ ? 0 : *p_++; }
    size_t below(size_t n) { return n == 0 ? 0 : byte() % n; }
    bool chance(unsigned in) { return below(in) == 0; }

    // Ids: mostly ones the program has seen (removed ones included), sometimes
    // ids no graph ever issued.
    uint64_t id(const std::vector<uint64_t> &seen) {
        static constexpr uint64_t unknown[] = {0, 1, 2, 999, (uint64_t{1} << 32) - 1, UINT64_MAX};
        const uint8_t b = byte();
        if (b < 224 && !seen.empty()) return seen[b % seen.size()];
        return unknown[b % (sizeof unknown / sizeof unknown[0])];
    }

    // A short name from an alphabet with what DOT and JSON writers must
    // escape or refuse, now and then a raw byte (bad UTF-8).
    std::string name() {
        static constexpr char alphabet[] = "ab1 \"\\\n-{}\xc3\xa9<>#;=";
        std::string s;
        const size_t len = below(6);
        for (size_t i = 0; i < len; ++i) {
            const uint8_t b = byte();
            if (b >= 240)
                s.push_back(static_cast<char>(b == 240 ? 0x80 : b));
            else
                s.push_back(alphabet[b % (sizeof alphabet - 1)]);
        }
        return s;
    }

    // Up to `max` bytes of raw text (for an import), stopping at a NUL.
    std::string text(size_t max) {
        std::string s;
        while (s.size() < max && !done()) {
            const uint8_t b = byte();
            if (b == 0) break;
            s.push_back(static_cast<char>(b));
        }
        return s;
    }

private:
    const uint8_t *p_;
    const uint8_t *end_;
};

}  // namespace fuzz
