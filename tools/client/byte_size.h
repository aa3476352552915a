// Parsing sizes given on the command line ("1kb", "512", "1.5MB", "4KiB").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace quarry::tools::client {

// A byte count: a number (a fraction allowed) and an optional case-insensitive unit: b, kb/k,
// mb/m, gb/g (powers of 1000, as MB/s in the tables) or kib, mib, gib (powers of 1024). The
// result is rounded to whole bytes. Fails with kBadValue for anything else, or a size of 0.
StatusWith<std::size_t> ParseByteSize(std::string_view text);

// Splits "a,b,,c" into {"a","b","c"}, trimming spaces.
std::vector<std::string> SplitList(std::string_view text);

}  // namespace quarry::tools::client
