// How many documents and bytes a cursor reply carries, as mongod decides it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace quarry::cursors {

inline constexpr std::size_t kDefaultFirstBatchDocs = 101;
inline constexpr std::size_t kMaxBatchBytes = 16 * 1024 * 1024;

struct BatchLimits {
  std::size_t max_docs;
  std::size_t max_bytes;
};

// find/aggregate's first batch: `batchSize` documents when given (0 gives an empty first batch
// and an open cursor), else 101; at most 16 MiB. REQUIRES: batch_size >= 0 when given.
BatchLimits FirstBatchLimits(std::optional<std::int64_t> batch_size);
// getMore: `batchSize` documents when given and positive, else unlimited; at most 16 MiB.
BatchLimits GetMoreBatchLimits(std::optional<std::int64_t> batch_size);

}  // namespace quarry::cursors
