// CollectionInfo to and from its catalog entry.
#include "catalog/collection_info.h"

#include "bson/builder.h"

namespace quarry::catalog {
namespace {

Status Corrupt(std::string_view what) {
  return Status(ErrorCode::kInternalError, "corrupt catalog entry: " + std::string(what));
}

}  // namespace

bson::Document IdIndexSpec() {
  bson::DocumentBuilder b;
  b.AppendInt32("v", 2);
  b.OpenDocument("key");
  b.AppendInt32("_id", 1);
  b.Close();
  b.AppendString("name", "_id_");
  return std::move(b).Finish();
}

const IndexInfo* CollectionInfo::FindIndex(std::string_view index_name) const {
  for (const IndexInfo& index : indexes) {
    if (index.name() == index_name) return &index;
  }
  return nullptr;
}

bson::Document CollectionInfo::ToBson() const {
  bson::DocumentBuilder b;
  b.AppendString("db", db);
  b.AppendString("name", name);
  b.AppendBinary("uuid", kUuidBinarySubtype, uuid.view());
  b.AppendInt64("id", static_cast<std::int64_t>(id));
  b.AppendDocument("options", options);
  b.OpenArray("indexes");
  for (std::size_t i = 0; i < indexes.size(); ++i) {
    b.OpenDocument(std::to_string(i));
    b.AppendDocument("spec", indexes[i].spec);
    b.AppendInt64("id", static_cast<std::int64_t>(indexes[i].id));
    b.AppendBool("ready", indexes[i].ready);
    b.Close();
  }
  b.Close();
  b.AppendDate("created", created_ms);
  return std::move(b).Finish();
}

StatusWith<CollectionInfo> CollectionInfo::FromBson(bson::DocumentView doc) {
  CollectionInfo info;
  bson::ValueView db = doc.Get("db");
  bson::ValueView name = doc.Get("name");
  bson::ValueView uuid = doc.Get("uuid");
  bson::ValueView id = doc.Get("id");
  bson::ValueView options = doc.Get("options");
  bson::ValueView indexes = doc.Get("indexes");
  bson::ValueView created = doc.Get("created");
  if (db.type() != bson::Type::kString || name.type() != bson::Type::kString) {
    return Corrupt("db and name must be strings");
  }
  info.db = std::string(db.String());
  info.name = std::string(name.String());
  if (uuid.type() != bson::Type::kBinary || !Uuid::FromBytes(uuid.Binary().data, &info.uuid)) {
    return Corrupt("uuid of " + info.ns());
  }
  if (id.type() != bson::Type::kInt64 || id.Int64() <= 0) return Corrupt("id of " + info.ns());
  info.id = static_cast<storage::CollectionId>(id.Int64());
  if (options.type() != bson::Type::kDocument) return Corrupt("options of " + info.ns());
  info.options = bson::Document::Copy(options.Document());
  if (indexes.type() != bson::Type::kArray) return Corrupt("indexes of " + info.ns());
  for (const bson::Element& element : indexes.Document()) {
    if (element.value.type() != bson::Type::kDocument) return Corrupt("index of " + info.ns());
    bson::DocumentView entry = element.value.Document();
    IndexInfo index;
    if (entry.Get("key").exists()) {
      // An entry from before indexes were built: the spec alone, with no id. Start-up builds it.
      index.spec = bson::Document::Copy(entry);
      index.ready = info.indexes.empty();
    } else {
      bson::ValueView spec = entry.Get("spec");
      bson::ValueView index_id = entry.Get("id");
      if (spec.type() != bson::Type::kDocument || index_id.type() != bson::Type::kInt64 ||
          index_id.Int64() < 0) {
        return Corrupt("index of " + info.ns());
      }
      index.spec = bson::Document::Copy(spec.Document());
      index.id = static_cast<storage::IndexId>(index_id.Int64());
      index.ready = entry.Get("ready").Truthy();
    }
    if (index.spec.Get("name").type() != bson::Type::kString ||
        index.spec.Get("key").type() != bson::Type::kDocument) {
      return Corrupt("index spec of " + info.ns());
    }
    info.indexes.push_back(std::move(index));
  }
  if (info.indexes.empty() || !info.indexes.front().is_id_index()) {
    return Corrupt("the _id index of " + info.ns());
  }
  info.created_ms = created.type() == bson::Type::kDate ? created.Date() : 0;
  return info;
}

}  // namespace quarry::catalog
