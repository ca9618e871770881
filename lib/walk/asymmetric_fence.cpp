#include "walk/asymmetric_fence.hpp"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace dag {

namespace {

#if defined(__SANITIZE_THREAD__)
#define DAG_NO_MEMBARRIER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DAG_NO_MEMBARRIER 1
#endif
#endif

#if defined(__linux__) && defined(SYS_membarrier) && !defined(DAG_NO_MEMBARRIER)
long membarrier(int cmd) noexcept { return syscall(SYS_membarrier, cmd, 0, 0); }

bool register_process() noexcept {
    const long supported = membarrier(MEMBARRIER_CMD_QUERY);
    if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
    return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}
#endif

}  // namespace

bool asymmetric_fence_available() noexcept {
#if defined(__linux__) && defined(SYS_membarrier) && !defined(DAG_NO_MEMBARRIER)
    static const bool available = register_process();
    return available;
#else
    return false;
#endif
}

void heavy_fence() noexcept {
#if defined(__linux__) && defined(SYS_membarrier) && !defined(DAG_NO_MEMBARRIER)
    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
#endif
}

}  // namespace dag
