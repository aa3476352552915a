// Batch limits for find/aggregate first batches and getMore.
#include "cursors/batch_limits.h"

#include <limits>

namespace quarry::cursors {

BatchLimits FirstBatchLimits(std::optional<std::int64_t> batch_size) {
  if (batch_size.has_value() && *batch_size >= 0) {
    return BatchLimits{static_cast<std::size_t>(*batch_size), kMaxBatchBytes};
  }
  return BatchLimits{kDefaultFirstBatchDocs, kMaxBatchBytes};
}

BatchLimits GetMoreBatchLimits(std::optional<std::int64_t> batch_size) {
  if (batch_size.has_value() && *batch_size > 0) {
    return BatchLimits{static_cast<std::size_t>(*batch_size), kMaxBatchBytes};
  }
  return BatchLimits{std::numeric_limits<std::size_t>::max(), kMaxBatchBytes};
}

}  // namespace quarry::cursors
