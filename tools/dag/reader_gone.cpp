#include "reader_gone.hpp"

#include <poll.h>

namespace dagcli {

bool reader_gone(int fd) {
    // A pipe whose reading end is closed polls as an error; a regular file
    // or a terminal never does.
    pollfd out = {fd, POLLOUT, 0};
    return poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0;
}

}  // namespace dagcli
