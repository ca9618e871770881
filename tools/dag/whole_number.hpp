// Options whose value is a count or a time in decimal (--parallelism,
// --retries, --retry-delay). CLI11 converts integers with strtoull's base 0,
// which reads "010" as 8 and takes "0x10", and calls "09" or "1e3" out of
// range; this takes decimal digits only, as --pool does.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace dagcli {

// A check that leaves the value in plain decimal (leading zeros dropped) for
// CLI11 to convert, and refuses anything else: "'0x10' is not a whole
// number", "'2000' is not between 1 and 1024". Its description is
// "UINT in [MIN - MAX]" for the help, as CLI11's own range check wrote it.
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max);

}  // namespace dagcli
