// The layouts of oplog entries, as WriteUnit stores them until commit: complete BSON with
// placeholders for `ts` (first) and `wall` (last), which the commit pipeline fills in place.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "bson/value.h"
#include "storage/oplog_entry.h"

namespace quarry::storage::internal {

// {ts: Timestamp(...), ...}: int32 length, type byte, "ts\0", then the value.
inline constexpr std::size_t kOplogTsOffset = 4 + 1 + 3;
// ..., wall: Date(...)}: the value sits before the terminating 0x00.
inline std::size_t OplogWallOffset(std::string_view entry) { return entry.size() - 1 - 8; }
// The `wall` element: type byte, "wall\0", the 8-byte value.
inline constexpr std::size_t kWallElementSize = 1 + 5 + 8;

// A part of a laid-out entry, by position, so it survives moves of the entry's bytes.
struct Span {
  std::size_t offset = 0;
  std::size_t size = 0;
  std::string_view In(std::string_view bytes) const { return bytes.substr(offset, size); }
};

struct LaidOutEntry {
  std::string bytes;
  Span ns;        // the `ns` string
  Span document;  // `o` when it is the record's new version (insert, update), else empty
  Span pre;       // `pre` when logged, else empty
};

LaidOutEntry LayOutInsert(const CollectionRef& collection, bson::DocumentView document);
// `read_frame`: the stored frame the pre-image was read from, logged as its `prez` instead of
// compressing the document again; empty when there is none.
LaidOutEntry LayOutUpdate(const CollectionRef& collection, bson::DocumentView pre_image,
                          bson::DocumentView post_image, UpdateKind kind,
                          std::string_view read_frame = {});
LaidOutEntry LayOutDelete(const CollectionRef& collection, bson::DocumentView deleted,
                          std::string_view read_frame = {});
// `uuid` empty: no `ui` (dropDatabase).
LaidOutEntry LayOutCommand(std::string_view db, std::string_view uuid, bson::DocumentView o);

// Adds the session and transaction number of the transaction that made the change, before
// `wall` (so the entry's spans, which all come before, stay valid).
void AddTransactionFields(bson::DocumentView lsid, std::int64_t txn_number, std::string* entry);

}  // namespace quarry::storage::internal
