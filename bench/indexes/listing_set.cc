// Listings for the index benchmark, generated before any clock starts.
#include "bench/indexes/listing_set.h"

#include "tools/bench/listing_generator.h"

namespace quarry::bench {
namespace {

// An int64 element "listing_id": type byte, the 10-byte name and its NUL, 8 value bytes.
constexpr std::size_t kListingIdBytes = 1 + 10 + 1 + 8;

std::string Utf8At(const ListingSet& set, std::size_t index, const char* dotted_path) {
  bson_t doc;
  set.docs.View(index, &doc);
  bson_iter_t iter;
  bson_iter_t field;
  if (bson_iter_init(&iter, &doc) && bson_iter_find_descendant(&iter, dotted_path, &field) &&
      BSON_ITER_HOLDS_UTF8(&field)) {
    return bson_iter_utf8(&field, nullptr);
  }
  return {};
}

}  // namespace

ListingSet MakeListings(std::size_t count, std::size_t document_bytes) {
  tools::bench::ListingGenerator generator(
      {.target_bytes = document_bytes > kListingIdBytes ? document_bytes - kListingIdBytes : 1});
  ListingSet set;
  set.ids.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    bson_t doc = BSON_INITIALIZER;
    generator.Next(&doc);
    BSON_APPEND_INT64(&doc, "listing_id", kFirstListingId + static_cast<std::int64_t>(i));
    bson_iter_t iter;
    if (bson_iter_init_find(&iter, &doc, "_id") && BSON_ITER_HOLDS_OID(&iter)) {
      set.ids.push_back(*bson_iter_oid(&iter));
    }
    set.docs.Append(&doc);
    bson_destroy(&doc);
  }
  return set;
}

std::string HostIdOf(const ListingSet& set, std::size_t index) {
  return Utf8At(set, index, "host.host_id");
}

std::string MarketOf(const ListingSet& set, std::size_t index) {
  return Utf8At(set, index, "address.market");
}

std::string RedisKeyOf(std::size_t index) {
  return "listing:" + std::to_string(kFirstListingId + static_cast<std::int64_t>(index));
}

}  // namespace quarry::bench
