// dag's standard output, keeping why a write failed: stdio keeps only an
// error flag, so by the time main flushes, a full disk that failed a large
// write earlier would be told without its reason.
#pragma once

#include <string>
#include <string_view>

namespace dagcli {

// Writes `text` to stdout (buffered, as fwrite does).
void print(std::string_view text);

// Flushes what print() wrote, as before writing to standard error, keeping
// why it failed for flush_standard_output() (a bare fflush would leave only
// stdio's error flag, and the reason would be lost).
void flush_printed();

// errno of the first write through print() that failed, or 0.
int print_error();

// Flushes stdout: true when everything printed got there; else `why` gets
// the reason (0 when stdio kept none).
bool flush_standard_output(int &why);

// "cannot write standard output", and the reason when there is one.
std::string cannot_write_standard_output(int why);

}  // namespace dagcli
