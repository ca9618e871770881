#include "standard_output.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>

namespace dagcli {
namespace {

std::atomic<int> first_error{0};

}  // namespace

void print(std::string_view text) {
    errno = 0;
    if (std::fwrite(text.data(), 1, text.size(), stdout) == text.size()) return;
    int none = 0;
    if (errno != 0) first_error.compare_exchange_strong(none, errno);
}

int print_error() { return first_error.load(); }

}  // namespace dagcli
