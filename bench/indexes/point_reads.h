// Point reads from client threads: Quarry finds by _id or by the unique listing_id, and Redis
// GETs of the same documents' bytes, each thread with its own connection.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "bench/indexes/listing_set.h"

namespace quarry::bench {

struct PointReadResult {
  std::int64_t reads = 0;
  double reads_per_second = 0;
  double p50_micros = 0;
  double p99_micros = 0;
};

// kPing reads nothing: the round trip of a command through the driver, the floor under the
// other two.
enum class PointKey { kPing, kId, kListingId };

// Each of `threads` threads connects, then all read random documents of `set` (the same
// sequence for the same thread index) for `seconds`. Every read must find its document.
StatusWith<PointReadResult> QuarryPointReads(const std::string& uri, const std::string& db,
                                             const std::string& collection, const ListingSet& set,
                                             PointKey key, int threads, double seconds);

// Stores every document's BSON bytes under RedisKeyOf(index), pipelined.
Status LoadRedis(int port, const ListingSet& set);

// As QuarryPointReads, with GET RedisKeyOf(index); every reply must be the document's bytes.
StatusWith<PointReadResult> RedisPointReads(int port, const ListingSet& set, int threads,
                                            double seconds);

}  // namespace quarry::bench
