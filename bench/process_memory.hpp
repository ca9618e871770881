// The memory columns of the benchmarks' rows: minor page faults, and the
// peak RSS of one row. ru_maxrss is the process's peak over its whole life,
// so a later row would report an earlier row's peak; VmHWM reset through
// /proc/self/clear_refs (Linux 4.0 and later) is the row's own.
#pragma once

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace process_memory {

inline long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

inline long status_kb(const char *key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
    return 0;
}

inline long rss_kb() { return status_kb("VmRSS:"); }

// The highest RSS since the last reset_peak().
inline long peak_kb() { return status_kb("VmHWM:"); }

// Without it every peak would silently be the process's whole life's (as
// build_bench said before it shared this header): stop instead.
inline void reset_peak() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
    f.close();
    if (!f) {
        std::fprintf(stderr, "cannot reset VmHWM through /proc/self/clear_refs\n");
        std::exit(2);
    }
}

}  // namespace process_memory
