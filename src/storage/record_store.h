// The record store: each collection's documents in the docs family, keyed by the collection id
// (8 bytes, big-endian) and the order-preserving encoding of _id. Reads only; writes go through
// the CommitPipeline.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "storage/types.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
struct ReadView;
}  // namespace internal

// The part of a record key after the collection prefix: the key encoding of the _id value.
std::string EncodeIdKey(bson::ValueView id);

// A scan over one collection's records in _id order (or its reverse). It pins a RocksDB iterator,
// so a cursor lives for one batch: to go on later, remember id_key() and start a new Scan after it.
class RecordCursor {
 public:
  virtual ~RecordCursor() = default;
  virtual bool Valid() const = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  // The whole record key (collection prefix + id key). REQUIRES: Valid().
  virtual std::string_view key() const = 0;
  // The encoded _id, to resume with Scan(collection, id_key). REQUIRES: Valid().
  virtual std::string_view id_key() const = 0;
  // The document, valid until Next() or destruction. REQUIRES: Valid().
  virtual bson::DocumentView document() const = 0;
  // Not OK when the scan stopped on a storage error rather than at the end.
  virtual Status status() const = 0;
};

class RecordStore {
 public:
  // Reads the latest committed records, or, given a transaction's `view`, what it sees.
  explicit RecordStore(internal::EngineState* state, const internal::ReadView* view = nullptr)
      : state_(state), view_(view) {}

  // The document whose _id equals `id` (numbers of any type compare by value), or nullopt.
  StatusWith<std::optional<bson::Document>> FindById(CollectionId collection,
                                                     bson::ValueView id) const;
  // Same, with the id already encoded (EncodeIdKey).
  StatusWith<std::optional<bson::Document>> FindByIdKey(CollectionId collection,
                                                        std::string_view id_key) const;

  // The documents of several encoded ids at once (one RocksDB MultiGet), in their order,
  // nullopt for each that has none.
  StatusWith<std::vector<std::optional<bson::Document>>> FindByIdKeys(
      CollectionId collection, std::span<const std::string> id_keys) const;

  // Scans `collection` in _id order (kBackward: descending _id), starting after
  // `start_after_id_key` in that direction (an id_key() from an earlier cursor), or from the
  // first record in that direction when it is empty.
  std::unique_ptr<RecordCursor> Scan(CollectionId collection,
                                     std::string_view start_after_id_key = {},
                                     ScanDirection direction = ScanDirection::kForward) const;

  // Exact record count and data size, maintained by every commit: the latest committed ones,
  // which a transaction's view does not see (counts_are_exact() is then false).
  CollectionStats Stats(CollectionId collection) const;
  std::int64_t Count(CollectionId collection) const { return Stats(collection).count; }
  // Whether Stats and Count describe what this store's reads see.
  bool counts_are_exact() const { return view_ == nullptr; }
  // Approximate bytes the collection's records occupy on disk (compressed) and in memtables.
  std::uint64_t ApproximateStorageSize(CollectionId collection) const;

 private:
  internal::EngineState* state_;
  const internal::ReadView* view_;
};

}  // namespace quarry::storage
