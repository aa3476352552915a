// Shared by the event builder files: the classified entry, the event header, DDL events and
// updateDescription's disambiguatedPaths.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"
#include "changestream/event_builder.h"
#include "query/update/update.h"

namespace quarry::changestream::internal {

enum class EntryKind : std::uint8_t {
  kNone,  // no event (no-op entries, unknown commands)
  kInsert,
  kUpdate,
  kReplace,
  kDelete,
  kCreate,
  kDrop,
  kRename,
  kDropDatabase,
  kModify,
  kCreateIndexes,
  kDropIndexes,
};

// What an entry is about: its kind and the namespaces it touches.
struct Classified {
  EntryKind kind = EntryKind::kNone;
  std::string_view db;       // the collection's database (the source, for a rename)
  std::string_view coll;     // the collection (empty for dropDatabase)
  std::string_view to_db;    // rename only
  std::string_view to_coll;  // rename only
};

Classified Classify(const OplogEntry& entry);

// _id, operationType, clusterTime, [collectionUUID], wallTime.
void AppendEventHeader(const ResumeToken& token, std::string_view operation_type,
                       const OplogEntry& entry, bool with_uuid, bson::DocumentBuilder* b);
// {db, coll} under `key` (coll left out when empty).
void AppendNamespace(std::string_view key, std::string_view db, std::string_view coll,
                     bson::DocumentBuilder* b);

// The event of a DDL entry (kind kCreate .. kDropIndexes).
bson::Document BuildDdlEvent(const OplogEntry& entry, const Classified& what,
                             const ResumeToken& token, bool show_expanded_events);

// updateDescription.disambiguatedPaths: for each reported path that has a numeric-looking field
// name or a field name containing a dot, the path's real components (array indices as int32).
// Paths are resolved in `after` (updated fields, truncated arrays) or `before` (removed fields).
bson::Document DisambiguatedPaths(const query::UpdateDescription& description,
                                  bson::DocumentView before, bson::DocumentView after);

}  // namespace quarry::changestream::internal
