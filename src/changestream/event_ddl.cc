// DDL change events: drop, rename, dropDatabase, and (with showExpandedEvents) create, modify,
// createIndexes and dropIndexes, shaped as mongod's change_stream_event_transform.cpp does.
#include "bson/builder.h"
#include "changestream/event_internal.h"

namespace quarry::changestream::internal {
namespace {

// The elements of `o` other than its first (the command name).
void AppendCommandOptions(bson::DocumentView o, bson::DocumentBuilder* b) {
  bool first = true;
  for (const bson::Element& e : o) {
    if (first) {
      first = false;
      continue;
    }
    b->Append(e.key, e.value);
  }
}

// operationDescription.indexes: from `indexes: [...]` in `o`, else the spec in `o` itself
// (createIndexes) or in o2 (dropIndexes), else {name: o.index}.
void AppendIndexes(const OplogEntry& entry, EntryKind kind, bson::DocumentBuilder* b) {
  bson::ValueView listed = entry.o.Get("indexes");
  if (listed.type() == bson::Type::kArray) {
    b->AppendArray("indexes", listed.Document());
    return;
  }
  b->OpenArray("indexes");
  b->OpenDocument("0");
  if (kind == EntryKind::kCreateIndexes) {
    AppendCommandOptions(entry.o, b);
  } else if (entry.o2.has_value()) {
    b->AppendElements(*entry.o2);
  } else {
    bson::ValueView name = entry.o.Get("index");
    if (name.exists()) b->Append("name", name);
  }
  b->Close();
  b->Close();
}

}  // namespace

bson::Document BuildDdlEvent(const OplogEntry& entry, const Classified& what,
                             const ResumeToken& token, bool show_expanded_events) {
  bson::DocumentBuilder b;
  switch (what.kind) {
    case EntryKind::kDrop:
      AppendEventHeader(token, "drop", entry, show_expanded_events, &b);
      AppendNamespace("ns", what.db, what.coll, &b);
      break;
    case EntryKind::kRename: {
      AppendEventHeader(token, "rename", entry, show_expanded_events, &b);
      AppendNamespace("ns", what.db, what.coll, &b);
      AppendNamespace("to", what.to_db, what.to_coll, &b);
      if (show_expanded_events) {
        b.OpenDocument("operationDescription");
        AppendNamespace("to", what.to_db, what.to_coll, &b);
        bson::ValueView drop_target = entry.o.Get("dropTarget");
        if (drop_target.type() == bson::Type::kBinary) b.Append("dropTarget", drop_target);
        b.Close();
      }
      break;
    }
    case EntryKind::kDropDatabase:
      AppendEventHeader(token, "dropDatabase", entry, false, &b);
      AppendNamespace("ns", what.db, {}, &b);
      break;
    case EntryKind::kCreate: {
      const bool is_view = entry.o.Has("viewOn");
      AppendEventHeader(token, "create", entry, !is_view, &b);
      AppendNamespace("ns", what.db, what.coll, &b);
      b.OpenDocument("operationDescription");
      if (!is_view && !entry.o.Has("idIndex")) {
        b.OpenDocument("idIndex");
        b.AppendInt32("v", 2);
        b.OpenDocument("key").AppendInt32("_id", 1).Close();
        b.AppendString("name", "_id_");
        b.Close();
      }
      AppendCommandOptions(entry.o, &b);
      b.Close();
      b.AppendString("nsType", is_view                     ? "view"
                               : entry.o.Has("timeseries") ? "timeseries"
                                                           : "collection");
      break;
    }
    case EntryKind::kModify: {
      AppendEventHeader(token, "modify", entry, true, &b);
      AppendNamespace("ns", what.db, what.coll, &b);
      b.OpenDocument("operationDescription");
      AppendCommandOptions(entry.o, &b);
      b.Close();
      if (entry.o2.has_value()) {
        bson::ValueView old_options = entry.o2->Get("collectionOptions_old");
        if (old_options.type() == bson::Type::kDocument) {
          b.OpenDocument("stateBeforeChange");
          b.AppendDocument("collectionOptions", old_options.Document());
          b.Close();
        }
      }
      break;
    }
    case EntryKind::kCreateIndexes:
    case EntryKind::kDropIndexes: {
      const bool create = what.kind == EntryKind::kCreateIndexes;
      AppendEventHeader(token, create ? "createIndexes" : "dropIndexes", entry, true, &b);
      AppendNamespace("ns", what.db, what.coll, &b);
      b.OpenDocument("operationDescription");
      AppendIndexes(entry, what.kind, &b);
      b.Close();
      break;
    }
    default:
      break;
  }
  return std::move(b).Finish();
}

}  // namespace quarry::changestream::internal
