// The representation of a WriteUnit's mutations, shared by write_unit.cc and commit_pipeline.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/types.h"

namespace quarry::storage::internal {

enum class MutationKind : std::uint8_t {
  kInsert,
  kReplace,
  kDelete,
  kDropCollectionRecords,
  kPutCatalog,
  kDeleteCatalog,
  kPutMeta,
  kDeleteMeta,
  kOplogOnly,
};

struct Mutation {
  MutationKind kind = MutationKind::kOplogOnly;
  CollectionId collection = 0;
  std::string key;        // record key (prefix + id key), or the catalog / meta key
  std::string value;      // the catalog / meta value
  std::string pre_image;  // Replace and Delete: the bytes the caller read
  // The oplog entry with placeholders for ts (at kOplogTsOffset) and wall (the last 8 value
  // bytes), which the pipeline fills in under the commit lock. Empty: no entry.
  std::string oplog;
  // Insert and Replace: where the new document sits in `oplog` (its `o` field). The record is
  // stored from there, and rebuilt from the oplog after a crash, so it is held only once.
  std::size_t record_offset = 0;
  std::size_t record_size = 0;

  std::string_view record() const { return {oplog.data() + record_offset, record_size}; }
};

// {ts: Timestamp(...), ...}: int32 length, type byte, "ts\0", then the value.
inline constexpr std::size_t kOplogTsOffset = 4 + 1 + 3;
// ..., wall: Date(...)}: the value sits before the terminating 0x00.
inline std::size_t OplogWallOffset(const std::string& entry) { return entry.size() - 1 - 8; }

}  // namespace quarry::storage::internal
