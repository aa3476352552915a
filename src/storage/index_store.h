// The index store: secondary index entries in the index family, written by the commit
// pipeline with the records they point to (WriteUnit's IndexEntry), read here. An entry's key
// is the index id (8 bytes, big-endian) + the encoded key fields (+ the record's id key when
// the index's keys need not be unique); its value is the record's id key, then, for entries that
// keep them, the record's values of the key fields.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/types.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
struct ReadView;
}  // namespace internal

// Entries of one index within a range of encoded keys, in key order (or its reverse). It pins
// a RocksDB iterator: keep it for one batch, then resume with a new Scan after entry_key().
class IndexCursor {
 public:
  virtual ~IndexCursor() = default;
  virtual bool Valid() const = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  // The entry's key without the index prefix: the encoded key fields, followed by the id key
  // when the index need not be unique. Encodings are self-delimiting, so a decoder reads the
  // index's fields and ignores the rest. REQUIRES: Valid().
  virtual std::string_view key() const = 0;
  // The id key of the record the entry points to. REQUIRES: Valid().
  virtual std::string_view id_key() const = 0;
  // The record's values of the key fields as the entry keeps them (exec/key_values.h), or
  // empty when it keeps none. REQUIRES: Valid().
  virtual std::string_view key_values() const = 0;
  // The entry's whole key, to resume after. REQUIRES: Valid().
  virtual std::string_view entry_key() const = 0;
  virtual Status status() const = 0;
};

// Encoded key fields from `lower` to `upper`, each bound included or not. A bound matches every
// entry whose key fields start with it (so a bound on a compound index's first field covers
// every value of the later ones); an empty, included bound is the start or end of the index.
struct KeyRange {
  std::string lower;
  bool lower_inclusive = true;
  std::string upper;
  bool upper_inclusive = true;
};

class IndexStore {
 public:
  // Reads the latest committed entries, or, given a transaction's `view`, what it sees.
  explicit IndexStore(internal::EngineState* state, const internal::ReadView* view = nullptr)
      : state_(state), view_(view) {}

  // Scans the entries of `index` whose key fields are in `range`, in `direction`, starting
  // after the entry whose whole key is `resume_after` (from the first entry when empty).
  std::unique_ptr<IndexCursor> Scan(IndexId index, const KeyRange& range,
                                    ScanDirection direction = ScanDirection::kForward,
                                    std::string_view resume_after = {}) const;

  // The entry whose key fields are exactly `key_fields`, in an index whose entries are keyed by
  // their key fields alone (a unique index's): one point read. The cursor holds it or nothing.
  std::unique_ptr<IndexCursor> Lookup(IndexId index, std::string_view key_fields) const;

  // Approximate bytes the index occupies on disk (compressed) and in memtables.
  std::uint64_t ApproximateSize(IndexId index) const;

 private:
  internal::EngineState* state_;
  const internal::ReadView* view_;
};

}  // namespace quarry::storage
