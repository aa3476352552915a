// Oplog entries to change events: which entries a stream sees (its scope), what each event holds
// (MongoDB's field order), and when a stream is invalidated.
//
// Oplog entries read (writers in commands/ and catalog/; `ts` and `wall` added by storage):
//   insert  {op: "i", ns: "db.c", ui, o: <doc>}
//   update  {op: "u", ns, ui, o2: {_id}, o: <post-image>, pre: <pre-image>, r?: true,
//            images?: <bool>}   r: true marks a replacement (a "replace" event)
//   delete  {op: "d", ns, ui, o: {_id}, pre?: <pre-image>}  pre only when images are enabled
//   DDL     {op: "c", ns: "db.$cmd", ui?, o: {create: c, ...options} | {drop: c} |
//            {renameCollection: "db.a", to: "db.b", dropTarget: <UUID>|false} |
//            {dropDatabase: 1} | {collMod: c, ...changes} (o2?: {collectionOptions_old}) |
//            {createIndexes: c, <index spec>} or {createIndexes: c, indexes: [<spec>...]} |
//            {dropIndexes: c, index: <name>} (o2?: <index spec>) or {dropIndexes: c, indexes:
//            [...]}}
// `images` says whether the collection had changeStreamPreAndPostImages enabled when the update
// was written; without it, EventSources::images_enabled decides (false when unset).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "changestream/change_stream_spec.h"
#include "changestream/resume_token.h"
#include "storage/types.h"

namespace quarry::changestream {

// An oplog entry's fields, as views into its bytes.
struct OplogEntry {
  storage::Timestamp ts = 0;
  std::int64_t wall_ms = 0;
  std::string_view op;    // "i", "u", "d", "c", "n"
  std::string_view db;    // from ns
  std::string_view coll;  // from ns; "$cmd" for commands
  std::string_view uuid;  // `ui`: 16 raw bytes, or empty
  bson::DocumentView o;
  std::optional<bson::DocumentView> o2;
  std::optional<bson::DocumentView> pre;
  bool replace = false;        // `r: true`
  std::optional<bool> images;  // `images`
};

// Fails with InternalError when `entry` lacks ts, op, ns or o (a corrupt oplog).
StatusWith<OplogEntry> ParseOplogEntry(bson::DocumentView entry);

// The current document with _id `id` in db.coll, provided the collection still has UUID `uuid`
// (empty: any); nullopt when there is none. For fullDocument: "updateLookup".
using DocumentLookup = std::function<StatusWith<std::optional<bson::Document>>(
    std::string_view db, std::string_view coll, std::string_view uuid, bson::ValueView id)>;
// Whether db.coll has changeStreamPreAndPostImages enabled (for entries without `images`).
using ImagesEnabled = std::function<bool(std::string_view db, std::string_view coll)>;

struct EventSources {
  DocumentLookup lookup_document;  // required for fullDocument: "updateLookup"
  ImagesEnabled images_enabled;    // optional
};

struct ChangeEvent {
  ResumeToken token;
  bson::Document document;
  bool invalidate = false;  // the synthesized invalidate event
};

// The token of the event `entry` produces (kind kEvent, not from invalidate). Its hash covers the
// namespace and the document key (CRUD) or the command (DDL).
ResumeToken EventTokenFor(const OplogEntry& entry);

// The events `entry` produces for a stream with `spec`: none when the entry is outside the
// stream's scope or of a kind it does not show (DDL other than drop/rename/dropDatabase needs
// showExpandedEvents), else its event, followed by an invalidate event when it ends the stream
// (drop or rename of a watched collection, dropDatabase of a watched database). Fails with
// NoMatchingDocument (47) when fullDocument or fullDocumentBeforeChange is "required" and the
// image is not available, and with the lookup's errors.
StatusWith<std::vector<ChangeEvent>> BuildEvents(const OplogEntry& entry,
                                                 const ChangeStreamSpec& spec,
                                                 const EventSources& sources);

}  // namespace quarry::changestream
