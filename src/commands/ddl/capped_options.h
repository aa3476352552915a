// create's `capped`, `size` and `max`, and collMod's `cappedSize` and `cappedMax`: checked as
// mongod 7.0 checks them, and kept in the options listCollections shows.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"

namespace quarry::commands {

// mongod's bounds: a capped collection holds at most 1 PB, and fewer than 2^31 documents.
inline constexpr std::int64_t kMaxCappedBytes = std::int64_t{1} << 50;
inline constexpr std::int64_t kNoCappedMax = 0x7fffffff;  // what a `max` of 0 or less stands for

struct CappedOptions {
  std::int64_t size = 0;
  std::optional<std::int64_t> max;  // as given (a count, or kNoCappedMax), absent when not
};

// The capped options of create's `body`, or nullopt for a collection that is not capped. Fails
// with 14 for a wrong type, 51024 for a `size` outside 1 B..1 PB or a `max` from 2^31, and 72
// for `capped` without `size` or `size`/`max` without `capped`.
StatusWith<std::optional<CappedOptions>> ParseCreateCapped(bson::DocumentView body);

// A `size` or `max` (create's) or `cappedSize` or `cappedMax` (collMod's, `command` naming it in
// type errors), checked as ParseCreateCapped checks it; a max of 0 or less is kNoCappedMax.
StatusWith<std::int64_t> ParseCappedSize(std::string_view command, std::string_view field,
                                         bson::ValueView value);
StatusWith<std::int64_t> ParseCappedMax(std::string_view command, std::string_view field,
                                        bson::ValueView value);

// {capped: true, size[, max]}, as mongod lists them: first among the options, each number an
// int when it fits.
void AppendCappedOptions(const CappedOptions& capped, bson::DocumentBuilder* b);

}  // namespace quarry::commands
