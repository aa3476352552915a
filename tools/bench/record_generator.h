// RecordGenerator: flat documents of a chosen size, shaped exactly as bench/storage_insert
// makes them (seq, name, score, created, tags, and a padding text of letters), so a driver
// benchmark can insert the same documents the storage benchmark commits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tools/bench/document_set.h"
#include "tools/bench/random_internal.h"

namespace quarry::tools::bench {

struct RecordOptions {
  // 42 is bench/storage_insert's seed: with it, every field but _id matches that benchmark's
  // documents, in the same order.
  std::uint64_t seed = 42;
  std::size_t target_bytes = 200;  // BSON size of each document (at least about 110)
};

class RecordGenerator : public DocumentGenerator {
 public:
  explicit RecordGenerator(RecordOptions options);
  void Next(bson_t* out) override;

 private:
  RecordOptions options_;
  SeededRandom random_;
  std::uint64_t index_ = 0;
};

// The ObjectId of the document at `index` of a generator with `seed`: a fixed time, the seed
// and the index, so ids increase with the index and repeat with the seed.
void MakeObjectId(std::uint64_t seed, std::uint64_t index, bson_oid_t* out);

}  // namespace quarry::tools::bench
