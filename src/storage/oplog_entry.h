// The oplog entry: the one format every committed change is logged in
// (docs/formats/storage-layout.md). WriteUnit lays entries out with the layouts below; change
// streams and recovery read them back with ParseOplogEntry.
//
//   insert  {ts, op: "i", ns: "db.c", ui, o: <document>, wall}
//           (a new version of kCompressRecordsFrom bytes or more is `oz: BinData(0, <its zstd
//            frame>)` instead of `o`, and such a pre-image `prez` instead of `pre`;
//            record_compression.h)
//   update  {ts, op: "u", ns, ui, o2: {_id}, o: <post-image>, pre: <pre-image>, r?: true,
//            images: <bool>, wall}           r: true marks a replacement
//           (a modification of a collection without changeStreamPreAndPostImages logs
//            `d: {u: {<path>: <value>...}, r?: [<removed path>...], t?: [{field, newSize}...]}`,
//            what changed as updateDescription reports it, instead of `pre` when that is smaller
//            and names no removed field a change stream would resolve in the pre-image)
//   delete  {ts, op: "d", ns, ui, o: {_id}, images: <bool>, pre?: <deleted document>, wall}
//                                            pre only when images is true
//   command {ts, op: "c", ns: "db.$cmd", ui?, o: {<command>...}, wall}
//
// A change made by a multi-document transaction also has `lsid` and `txnNumber` before `wall`.
//
// `images` records whether the collection had changeStreamPreAndPostImages enabled when the
// change was made. `ts` (the commit's Timestamp) and `wall` (its Date) are filled in by the
// commit pipeline under the commit lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "storage/types.h"

namespace quarry::storage {

// The collection a record change applies to, as its oplog entry names it.
struct CollectionRef {
  CollectionId id = 0;
  std::string_view ns;    // "db.coll"; also names the collection in DuplicateKey messages
  std::string_view uuid;  // 16 bytes: the entry's `ui`
  bool pre_and_post_images = false;  // changeStreamPreAndPostImages: deletes log the document
};

enum class UpdateKind : std::uint8_t {
  kModify,   // update operators or a pipeline: an "update" change event
  kReplace,  // a replacement document: a "replace" change event (`r: true`)
};

// An oplog entry's fields, as views into its bytes.
struct OplogEntry {
  Timestamp ts = 0;
  std::int64_t wall_ms = 0;
  std::string_view op;    // "i", "u", "d", "c", "n"
  std::string_view db;    // from ns
  std::string_view coll;  // from ns; "$cmd" for commands
  std::string_view uuid;  // `ui`: 16 raw bytes, or empty
  bson::DocumentView o;
  std::optional<bson::DocumentView> o2;
  std::optional<bson::DocumentView> pre;
  // An update's `d`, logged instead of `pre`: {u: updatedFields, r?: removedFields,
  // t?: truncatedArrays}.
  std::optional<bson::DocumentView> changes;
  bool replace = false;        // `r: true`
  std::optional<bool> images;  // `images`
  // The session and transaction number of a change a transaction made.
  std::optional<bson::DocumentView> lsid;
  std::optional<std::int64_t> txn_number;
  // Own `o` and `pre` when the entry holds them compressed (`oz`, `prez`); shared so that
  // copies stay valid.
  std::shared_ptr<const std::string> inflated_o;
  std::shared_ptr<const std::string> inflated_pre;

  // The _id of the document a record change touched (o2._id for updates, else o._id).
  bson::ValueView DocumentId() const;
};

// Fails with InternalError when `entry` lacks ts, op, ns or o (a corrupt oplog). Inflates `oz`
// and `prez`.
StatusWith<OplogEntry> ParseOplogEntry(bson::DocumentView entry);

// The bytes an insert's or update's entry stores as the record (`o`'s BSON, or `oz`'s frame),
// without inflating them; nullopt when it has neither.
std::optional<std::string_view> StoredRecordOf(bson::DocumentView entry);

// "a.b" -> {"a", "b"} at the first dot; without one, {ns, ""} and false.
bool SplitNamespace(std::string_view ns, std::string_view* db, std::string_view* coll);

}  // namespace quarry::storage
