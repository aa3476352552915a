// The benchmark's data: compact listings (tools/bench/listing_generator.h) with a unique
// `listing_id` appended, and the keys the point reads look documents up by.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/document_set.h"

namespace quarry::bench {

inline constexpr std::int64_t kFirstListingId = 10'000'000;

struct ListingSet {
  tools::bench::DocumentSet docs;
  std::vector<bson_oid_t> ids;  // _id of each document, by position
  // listing_id of document i is kFirstListingId + i.
};

// `count` documents of `document_bytes` BSON bytes each (at least the ~600 bytes a compact
// listing needs), the same for every run.
ListingSet MakeListings(std::size_t count, std::size_t document_bytes);

// host.host_id and address.market of document `index`, for equality queries that hit it.
std::string HostIdOf(const ListingSet& set, std::size_t index);
std::string MarketOf(const ListingSet& set, std::size_t index);

// The Redis key holding document `index`'s BSON bytes.
std::string RedisKeyOf(std::size_t index);

}  // namespace quarry::bench
