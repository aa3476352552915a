// ListingGenerator: documents shaped like holiday-rental listings (the shape of MongoDB's
// sample_airbnb data): a nested host and address with a GeoJSON point, amenities and reviews
// arrays, free-text summary, description and review comments, numbers and dates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tools/bench/document_set.h"

namespace quarry::tools::bench {

struct ListingOptions {
  std::uint64_t seed = 1;
  // 0: full listings of natural sizes (about 2.5 to 9 KB, 5.3 KB on average, with 0-8
  // reviews). Otherwise compact listings (name, description, rooms, a few amenities, price,
  // host, address) whose description is cut or padded to make each exactly this many BSON
  // bytes; a target below what the other fields take (550-650 bytes) gives an empty
  // description.
  std::size_t target_bytes = 0;
};

// Text is drawn from a vocabulary with Zipf weights, with the set phrases listings repeat, so
// it compresses as real listing text does (about 3-4x with zstd), not as random letters do.
// _id is an ObjectId made from the seed and the position: increasing, and the same per seed.
class ListingGenerator : public DocumentGenerator {
 public:
  explicit ListingGenerator(ListingOptions options);
  ~ListingGenerator() override;
  void Next(bson_t* out) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace quarry::tools::bench
