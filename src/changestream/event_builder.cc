// Oplog entry -> change events: parsing entries, the stream's scope, CRUD events and invalidation
// (mongod's change_stream_event_transform.cpp and check_invalidate stage). DDL events are in
// event_ddl.cc.
#include "changestream/event_builder.h"

#include "bson/builder.h"
#include "bson/document_diff.h"
#include "changestream/event_internal.h"
#include "query/update/update.h"

namespace quarry::changestream {
namespace {

using internal::Classified;
using internal::EntryKind;

constexpr std::uint8_t kUuidSubtype = 4;

std::uint64_t Fnv1a(std::string_view bytes, std::uint64_t hash = 14695981039346656037ull) {
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

bool IsInternalDatabase(std::string_view db) {
  return db == "admin" || db == "config" || db == "local";
}

bool IsSystemCollection(std::string_view coll) { return coll.starts_with("system."); }

bool IsShown(EntryKind kind, bool show_expanded_events) {
  switch (kind) {
    case EntryKind::kNone:
      return false;
    case EntryKind::kCreate:
    case EntryKind::kModify:
    case EntryKind::kCreateIndexes:
    case EntryKind::kDropIndexes:
      return show_expanded_events;
    default:
      return true;
  }
}

// Whether a stream on `spec` sees changes to db.coll.
bool WatchesCollection(const ChangeStreamSpec& spec, std::string_view db, std::string_view coll) {
  switch (spec.scope) {
    case StreamScope::kCollection:
      return db == spec.db && coll == spec.coll;
    case StreamScope::kDatabase:
      return db == spec.db && !IsSystemCollection(coll);
    case StreamScope::kCluster:
      return !IsInternalDatabase(db) && !IsSystemCollection(coll);
  }
  return false;
}

bool InScope(const ChangeStreamSpec& spec, const Classified& what) {
  switch (what.kind) {
    case EntryKind::kNone:
      return false;
    case EntryKind::kDropDatabase:
      // A collection stream learns of it through the drop of its collection.
      if (spec.scope == StreamScope::kCollection) return false;
      if (spec.scope == StreamScope::kDatabase) return what.db == spec.db;
      return !IsInternalDatabase(what.db);
    case EntryKind::kRename:
      return WatchesCollection(spec, what.db, what.coll) ||
             WatchesCollection(spec, what.to_db, what.to_coll);
    default:
      return WatchesCollection(spec, what.db, what.coll);
  }
}

bool Invalidates(const ChangeStreamSpec& spec, const Classified& what) {
  switch (spec.scope) {
    case StreamScope::kCollection:
      if (what.kind == EntryKind::kDrop) return true;    // InScope checked it is ours
      if (what.kind == EntryKind::kRename) return true;  // from or to the watched collection
      return false;
    case StreamScope::kDatabase:
      return what.kind == EntryKind::kDropDatabase;
    case StreamScope::kCluster:
      return false;
  }
  return false;
}

bool ImagesAvailable(const OplogEntry& entry, const EventSources& sources) {
  if (entry.images.has_value()) return *entry.images;
  return sources.images_enabled && sources.images_enabled(entry.db, entry.coll);
}

std::string DescribeForError(const OplogEntry& entry) {
  bson::DocumentBuilder b;
  b.AppendTimestamp("clusterTime", entry.ts);
  internal::AppendNamespace("ns", entry.db, entry.coll, &b);
  b.OpenDocument("documentKey").Append("_id", entry.DocumentId()).Close();
  return std::move(b).Finish().ToJson();
}

Status ImageMissing(std::string_view which, const OplogEntry& entry) {
  return Status(ErrorCode::kNoMatchingDocument,
                "Change stream was configured to require a " + std::string(which) +
                    " for all update, delete and replace events, but the " + std::string(which) +
                    " was not found for event: " + DescribeForError(entry));
}

// fullDocumentBeforeChange, per the stream's option (absent when off).
Status AppendPreImage(const OplogEntry& entry, const ChangeStreamSpec& spec, bool available,
                      bson::DocumentBuilder* b) {
  switch (spec.full_document_before_change) {
    case BeforeChangeMode::kOff:
      return Status::OK();
    case BeforeChangeMode::kWhenAvailable:
      if (available) {
        b->AppendDocument("fullDocumentBeforeChange", *entry.pre);
      } else {
        b->AppendNull("fullDocumentBeforeChange");
      }
      return Status::OK();
    case BeforeChangeMode::kRequired:
      if (!available) return ImageMissing("pre-image", entry);
      b->AppendDocument("fullDocumentBeforeChange", *entry.pre);
      return Status::OK();
  }
  return Status::OK();
}

void AppendDocumentKey(const OplogEntry& entry, bson::DocumentBuilder* b) {
  b->OpenDocument("documentKey").Append("_id", entry.DocumentId()).Close();
}

void AppendUpdateDescription(const OplogEntry& entry, bool show_expanded_events,
                             bson::DocumentBuilder* b) {
  query::UpdateDescription description;
  if (entry.pre.has_value()) {
    description = query::DescribeUpdate(*entry.pre, entry.o);
  } else if (entry.changes.has_value()) {
    description = bson::DiffFromDocument(*entry.changes);
  } else {
    // No pre-image logged: every field of the new version counts as updated.
    bson::DocumentBuilder updated;
    for (const bson::Element& e : entry.o) {
      if (e.key != "_id") updated.Append(e.key, e.value);
    }
    description.updated_fields = std::move(updated).Finish();
  }
  b->OpenDocument("updateDescription");
  b->AppendDocument("updatedFields", description.updated_fields);
  b->OpenArray("removedFields");
  for (std::size_t field_idx = 0; field_idx < description.removed_fields.size(); ++field_idx) {
    b->AppendString(std::to_string(field_idx), description.removed_fields[field_idx]);
  }
  b->Close();
  b->OpenArray("truncatedArrays");
  for (std::size_t array_idx = 0; array_idx < description.truncated_arrays.size(); ++array_idx) {
    const auto& [field, new_size] = description.truncated_arrays[array_idx];
    b->OpenDocument(std::to_string(array_idx));
    b->AppendString("field", field);
    b->AppendInt32("newSize", static_cast<std::int32_t>(new_size));
    b->Close();
  }
  b->Close();
  if (show_expanded_events) {
    bson::Document paths = internal::DisambiguatedPaths(
        description, entry.pre.has_value() ? *entry.pre : bson::DocumentView(), entry.o);
    b->AppendDocument("disambiguatedPaths", paths);
  }
  b->Close();
}

StatusWith<bson::Document> BuildCrudEvent(const OplogEntry& entry, EntryKind kind,
                                          const ResumeToken& token, const ChangeStreamSpec& spec,
                                          const EventSources& sources) {
  bson::DocumentBuilder b;
  const bool expanded = spec.show_expanded_events;
  switch (kind) {
    case EntryKind::kInsert:
      internal::AppendEventHeader(token, "insert", entry, expanded, &b);
      b.AppendDocument("fullDocument", entry.o);
      internal::AppendNamespace("ns", entry.db, entry.coll, &b);
      AppendDocumentKey(entry, &b);
      break;
    case EntryKind::kReplace: {
      const bool images = ImagesAvailable(entry, sources);
      internal::AppendEventHeader(token, "replace", entry, expanded, &b);
      b.AppendDocument("fullDocument", entry.o);
      internal::AppendNamespace("ns", entry.db, entry.coll, &b);
      AppendDocumentKey(entry, &b);
      QUARRY_RETURN_IF_ERROR(AppendPreImage(entry, spec, images && entry.pre.has_value(), &b));
      break;
    }
    case EntryKind::kUpdate: {
      const bool images = ImagesAvailable(entry, sources);
      internal::AppendEventHeader(token, "update", entry, expanded, &b);
      internal::AppendNamespace("ns", entry.db, entry.coll, &b);
      AppendDocumentKey(entry, &b);
      AppendUpdateDescription(entry, expanded, &b);
      switch (spec.full_document) {
        case FullDocumentMode::kDefault:
          break;
        case FullDocumentMode::kUpdateLookup: {
          if (!sources.lookup_document) {
            return Status(ErrorCode::kInternalError,
                          "fullDocument: updateLookup needs a document lookup");
          }
          QUARRY_ASSIGN_OR_RETURN(
              std::optional<bson::Document> current,
              sources.lookup_document(entry.db, entry.coll, entry.uuid, entry.DocumentId()));
          if (current.has_value()) {
            b.AppendDocument("fullDocument", *current);
          } else {
            b.AppendNull("fullDocument");
          }
          break;
        }
        case FullDocumentMode::kWhenAvailable:
          if (images) {
            b.AppendDocument("fullDocument", entry.o);
          } else {
            b.AppendNull("fullDocument");
          }
          break;
        case FullDocumentMode::kRequired:
          if (!images) return ImageMissing("post-image", entry);
          b.AppendDocument("fullDocument", entry.o);
          break;
      }
      QUARRY_RETURN_IF_ERROR(AppendPreImage(entry, spec, images && entry.pre.has_value(), &b));
      break;
    }
    case EntryKind::kDelete:
      internal::AppendEventHeader(token, "delete", entry, expanded, &b);
      internal::AppendNamespace("ns", entry.db, entry.coll, &b);
      AppendDocumentKey(entry, &b);
      // Writers log a delete's pre-image only where images are enabled.
      QUARRY_RETURN_IF_ERROR(AppendPreImage(entry, spec, entry.pre.has_value(), &b));
      break;
    default:
      return Status(ErrorCode::kInternalError, "not a CRUD entry");
  }
  // A change a transaction made names it, as mongod's events do.
  if (entry.lsid.has_value() && entry.txn_number.has_value()) {
    b.AppendDocument("lsid", *entry.lsid);
    b.AppendInt64("txnNumber", *entry.txn_number);
  }
  return std::move(b).Finish();
}

bson::Document BuildInvalidateEvent(const OplogEntry& entry, const ResumeToken& token) {
  bson::DocumentBuilder b;
  internal::AppendEventHeader(token, "invalidate", entry, false, &b);
  return std::move(b).Finish();
}

}  // namespace

namespace internal {

Classified Classify(const OplogEntry& entry) {
  Classified what;
  what.db = entry.db;
  what.coll = entry.coll;
  if (entry.op == "i") {
    what.kind = EntryKind::kInsert;
  } else if (entry.op == "u") {
    what.kind = entry.replace ? EntryKind::kReplace : EntryKind::kUpdate;
  } else if (entry.op == "d") {
    what.kind = EntryKind::kDelete;
  } else if (entry.op == "c" && !entry.o.empty()) {
    const bson::Element command = *entry.o.begin();
    auto target = [&](EntryKind kind) {
      if (command.value.type() != bson::Type::kString) return;
      what.kind = kind;
      what.coll = command.value.String();
    };
    if (command.key == "create") {
      target(EntryKind::kCreate);
    } else if (command.key == "drop") {
      target(EntryKind::kDrop);
    } else if (command.key == "collMod") {
      target(EntryKind::kModify);
    } else if (command.key == "createIndexes") {
      target(EntryKind::kCreateIndexes);
    } else if (command.key == "dropIndexes") {
      target(EntryKind::kDropIndexes);
    } else if (command.key == "dropDatabase") {
      what.kind = EntryKind::kDropDatabase;
      what.coll = {};
    } else if (command.key == "renameCollection") {
      bson::ValueView to = entry.o.Get("to");
      if (command.value.type() == bson::Type::kString && to.type() == bson::Type::kString) {
        storage::SplitNamespace(command.value.String(), &what.db, &what.coll);
        storage::SplitNamespace(to.String(), &what.to_db, &what.to_coll);
        what.kind = EntryKind::kRename;
      }
    }
  }
  return what;
}

void AppendEventHeader(const ResumeToken& token, std::string_view operation_type,
                       const OplogEntry& entry, bool with_uuid, bson::DocumentBuilder* b) {
  b->AppendDocument("_id", token.ToDocument());
  b->AppendString("operationType", operation_type);
  b->AppendTimestamp("clusterTime", entry.ts);
  if (with_uuid && entry.uuid.size() == 16) {
    b->AppendBinary("collectionUUID", kUuidSubtype, entry.uuid);
  }
  b->AppendDate("wallTime", entry.wall_ms);
}

void AppendNamespace(std::string_view key, std::string_view db, std::string_view coll,
                     bson::DocumentBuilder* b) {
  b->OpenDocument(key);
  b->AppendString("db", db);
  if (!coll.empty()) b->AppendString("coll", coll);
  b->Close();
}

}  // namespace internal

ResumeToken EventTokenFor(const OplogEntry& entry, std::uint32_t txn_op_index) {
  ResumeToken token;
  token.ts = entry.ts;
  token.kind = ResumeToken::Kind::kEvent;
  token.txn_op_index = txn_op_index;
  if (entry.uuid.size() == 16) token.uuid = std::string(entry.uuid);
  std::uint64_t hash = Fnv1a(entry.op);
  hash = Fnv1a(entry.db, hash);
  hash = Fnv1a(".", hash);
  hash = Fnv1a(entry.coll, hash);
  if (entry.op == "c") {
    hash = Fnv1a(entry.o.bytes(), hash);
  } else {
    bson::ValueView id = entry.DocumentId();
    hash = Fnv1a(std::string_view(id.data(), id.size()), hash);
  }
  token.event_hash = hash;
  return token;
}

StatusWith<std::vector<ChangeEvent>> BuildEvents(const OplogEntry& entry,
                                                 const ChangeStreamSpec& spec,
                                                 const EventSources& sources,
                                                 std::uint32_t txn_op_index) {
  std::vector<ChangeEvent> events;
  const Classified what = internal::Classify(entry);
  if (!IsShown(what.kind, spec.show_expanded_events) || !InScope(spec, what)) return events;

  ChangeEvent event;
  event.token = EventTokenFor(entry, txn_op_index);
  switch (what.kind) {
    case EntryKind::kInsert:
    case EntryKind::kUpdate:
    case EntryKind::kReplace:
    case EntryKind::kDelete: {
      QUARRY_ASSIGN_OR_RETURN(event.document,
                              BuildCrudEvent(entry, what.kind, event.token, spec, sources));
      break;
    }
    default:
      event.document = internal::BuildDdlEvent(entry, what, event.token, spec.show_expanded_events);
      break;
  }
  const bool invalidates = Invalidates(spec, what);
  events.push_back(std::move(event));
  if (invalidates) {
    ChangeEvent invalidate;
    invalidate.token = events.front().token;
    invalidate.token.from_invalidate = true;
    invalidate.document = BuildInvalidateEvent(entry, invalidate.token);
    invalidate.invalidate = true;
    events.push_back(std::move(invalidate));
  }
  return events;
}

}  // namespace quarry::changestream
