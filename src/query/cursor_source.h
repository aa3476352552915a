// What a client cursor reads from: anything that produces documents batch by batch (the find
// executor, an aggregation pipeline). cursors/ keeps these between getMores.
#pragma once

#include <cstddef>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::query {

struct Batch {
  std::vector<bson::Document> documents;
  std::size_t bytes = 0;  // sum of the documents' sizes
};

// What the document at `index` of a batch adds to the reply's batch array besides its own bytes:
// the type byte, the decimal key and its NUL. Sources count it against `max_bytes`, so that a
// batch of many tiny documents still fits a 16 MiB reply.
inline std::size_t BatchElementOverhead(std::size_t index) {
  std::size_t digits = 1;
  while (index >= 10) {
    index /= 10;
    ++digits;
  }
  return 2 + digits;
}

class CursorSource {
 public:
  virtual ~CursorSource() = default;

  // The next documents: at most `max_docs` of them, and at most `max_bytes` of BSON in total
  // (documents plus BatchElementOverhead each), except that a batch always takes at least one
  // document if any remains (so a document larger than `max_bytes` still goes out, alone).
  // `max_docs` 0 returns an empty batch.
  // After an error the source is exhausted.
  virtual StatusWith<Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) = 0;

  // True once no more documents can come: after that, NextBatch returns empty batches and the
  // cursor can be closed (its id reported as 0).
  virtual bool exhausted() const = 0;
};

}  // namespace quarry::query
