// Whether the reader of one of dag's outputs has gone away.
#pragma once

namespace dagcli {

// True when `fd` is a pipe (or socket) whose reading end is closed: a write
// to it would raise SIGPIPE or fail with EPIPE. Asked after the fact, when a
// write's errno is long overwritten or the write was a command's.
bool reader_gone(int fd);

}  // namespace dagcli
