#include "standard_output.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

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

void flush_printed() {
    errno = 0;
    if (std::fflush(stdout) == 0) return;
    int none = 0;
    if (errno != 0) first_error.compare_exchange_strong(none, errno);
}

int print_error() { return first_error.load(); }

bool flush_standard_output(int &why) {
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout);
    why = flushed ? 0 : print_error() != 0 ? print_error() : errno;
    return flushed;
}

std::string cannot_write_standard_output(int why) {
    return std::string("cannot write standard output") + (why != 0 ? std::string(": ") + std::strerror(why) : "");
}

}  // namespace dagcli
