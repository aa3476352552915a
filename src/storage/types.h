// Identifiers shared by storage's interfaces: collection and index ids, oplog timestamps.
#pragma once

#include <cstdint>

namespace quarry::storage {

// A collection's numeric id: the 8-byte big-endian prefix of its record keys. Assigned by the
// catalog, never reused, never 0.
using CollectionId = std::uint64_t;

// A secondary index's numeric id: the 8-byte prefix of its entries in the `index` column family.
// Assigned by the catalog, never reused.
using IndexId = std::uint64_t;

// An oplog timestamp as BSON's Timestamp holds it: seconds << 32 | increment. Every oplog entry
// has its own, and they strictly increase in commit order, across restarts too.
using Timestamp = std::uint64_t;

inline constexpr std::uint32_t TimestampSeconds(Timestamp ts) {
  return static_cast<std::uint32_t>(ts >> 32);
}
inline constexpr std::uint32_t TimestampIncrement(Timestamp ts) {
  return static_cast<std::uint32_t>(ts);
}
inline constexpr Timestamp MakeTimestamp(std::uint32_t seconds, std::uint32_t increment) {
  return (static_cast<Timestamp>(seconds) << 32) | increment;
}

// Per-collection counters the commit pipeline keeps exact, in the same batch as the records.
struct CollectionStats {
  std::int64_t count = 0;       // records
  std::int64_t data_bytes = 0;  // sum of the documents' BSON sizes (uncompressed)
};

}  // namespace quarry::storage
