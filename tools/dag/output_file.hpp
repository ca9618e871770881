// The files dag writes whole (--report, --trace, render -o): a file that is
// there is replaced only by a complete new one, never left half-written.
#pragma once

#include <functional>
#include <string>

namespace dagcli {

// Writes `text` to `path` whole, or throws Failure naming the file; "-" is
// standard output. A regular file (or a new one) is written beside itself
// under a temporary name and renamed over the old one, keeping its mode and
// following a symbolic link to it: a full disk leaves the old contents (a
// caller keeps a signal from leaving the temporary file: holding_signals()).
// One that `>` may write but that cannot be replaced (in a directory dag
// may not write to, someone else's in a sticky one) is rewritten in place
// once room for `text` is reserved: a full disk or a size limit still
// leaves the old contents, but a write failing halfway (an I/O error, or a
// full disk where the file system cannot reserve room: no fallocate) leaves
// the old contents overwritten up to where it failed. Anything else there
// (a FIFO, a device) is written in place, and a path naming one of dag's
// descriptors (/dev/stdout, /dev/fd/N) through that descriptor. A FIFO is
// waited on for a reader, and a pipe or FIFO for its reader to read, for as
// long as `give_up` (if given) says false, asked every few milliseconds;
// then Failure.
void write_file(const std::string &path, const std::string &text,
                const std::function<bool()> &give_up = {});

// Throws write_file's Failure now if `path` could not be written, rather
// than after a walk has run its commands (or a picture been laid out);
// leaves no file where there was none. Opens nothing that would wait: a
// FIFO is only checked for permission, so that its reader does not see the
// check as a whole (empty) document.
void check_writable(const std::string &path);

// A CLI11 check for an option naming a file: an empty path (a shell
// variable left unset) names none, and would otherwise turn the option off.
std::string refuse_empty_path(const std::string &path);

// Whether two output paths name the same file (the same path, or the same
// file through links), where writing both would keep only the last.
bool same_output(const std::string &a, const std::string &b);

// Whether writing `output` would replace the file `input` reads (a regular
// file: a terminal or pipe may be both standard input and output), `-`
// reading the file standard input was redirected from.
bool overwrites_input(const std::string &output, const std::string &input);

// Whether reading `path` reads standard input: `-`, or a name of its
// descriptor (/dev/stdin, /dev/fd/0).
bool reads_standard_input(const std::string &path);

}  // namespace dagcli
