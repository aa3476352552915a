// Oplog entries to change events: which entries a stream sees (its scope), what each event holds
// (MongoDB's field order), and when a stream is invalidated.
//
// Oplog entries are read in storage's format (storage/oplog_entry.h). An update entry without
// `images` (an older format) leaves it to EventSources::images_enabled (false when unset).
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
#include "storage/oplog_entry.h"
#include "storage/types.h"

namespace quarry::changestream {

using storage::OplogEntry;

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

// The token of the event `entry` produces (kind kEvent, not from invalidate), at its `ts`: for a
// transaction's change, the commit's time, with its position `txn_op_index` among the
// transaction's changes (changestream/transaction_span.h). Its hash covers the namespace and the
// document key (CRUD) or the command (DDL).
ResumeToken EventTokenFor(const OplogEntry& entry, std::uint32_t txn_op_index = 0);

// The events `entry` produces for a stream with `spec`: none when the entry is outside the
// stream's scope or of a kind it does not show (DDL other than drop/rename/dropDatabase needs
// showExpandedEvents), else its event, followed by an invalidate event when it ends the stream
// (drop or rename of a watched collection, dropDatabase of a watched database). Fails with
// NoMatchingDocument (47) when fullDocument or fullDocumentBeforeChange is "required" and the
// image is not available, and with the lookup's errors.
// `txn_op_index` as for EventTokenFor.
StatusWith<std::vector<ChangeEvent>> BuildEvents(const OplogEntry& entry,
                                                 const ChangeStreamSpec& spec,
                                                 const EventSources& sources,
                                                 std::uint32_t txn_op_index = 0);

}  // namespace quarry::changestream
