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

const SearchIndexInfo* CollectionInfo::FindSearchIndex(std::string_view key, bool by_id) const {
  for (const SearchIndexInfo& index : search_indexes) {
    if ((by_id ? index.id : index.name) == key) return &index;
  }
  return nullptr;
}

CappedLimits CollectionInfo::capped_limits() const {
  const bson::DocumentView view = options.view();
  const bson::ValueView size = view.Get("size");
  const bson::ValueView max = view.Get("max");
  return CappedLimits{.max_bytes = size.IsNumber() ? size.AsInt64() : 0,
                      .max_documents = max.IsNumber() ? max.AsInt64() : 0};
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
  if (!search_indexes.empty()) {
    b.OpenArray("searchIndexes");
    for (std::size_t i = 0; i < search_indexes.size(); ++i) {
      const SearchIndexInfo& index = search_indexes[i];
      b.OpenDocument(std::to_string(i));
      b.AppendString("id", index.id);
      b.AppendString("name", index.name);
      b.AppendString("type", index.type);
      b.AppendDocument("definition", index.definition);
      b.AppendInt32("version", index.version);
      b.AppendDate("defined", index.defined_ms);
      b.Close();
    }
    b.Close();
  }
  if (natural_order_index != 0) {
    b.OpenArray("naturalOrder");
    b.AppendInt64("0", static_cast<std::int64_t>(natural_order_index));
    b.AppendInt64("1", static_cast<std::int64_t>(natural_position_index));
    b.Close();
  }
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
  bson::ValueView search_indexes = doc.Get("searchIndexes");
  if (search_indexes.exists()) {
    if (search_indexes.type() != bson::Type::kArray)
      return Corrupt("searchIndexes of " + info.ns());
    for (const bson::Element& element : search_indexes.Document()) {
      if (element.value.type() != bson::Type::kDocument) {
        return Corrupt("search index of " + info.ns());
      }
      bson::DocumentView entry = element.value.Document();
      if (entry.Get("id").type() != bson::Type::kString ||
          entry.Get("name").type() != bson::Type::kString ||
          entry.Get("type").type() != bson::Type::kString ||
          entry.Get("definition").type() != bson::Type::kDocument ||
          entry.Get("version").type() != bson::Type::kInt32 ||
          entry.Get("defined").type() != bson::Type::kDate) {
        return Corrupt("search index of " + info.ns());
      }
      info.search_indexes.push_back(
          {.id = std::string(entry.Get("id").String()),
           .name = std::string(entry.Get("name").String()),
           .type = std::string(entry.Get("type").String()),
           .definition = bson::Document::Copy(entry.Get("definition").Document()),
           .version = entry.Get("version").Int32(),
           .defined_ms = entry.Get("defined").Date()});
    }
  }
  bson::ValueView natural = doc.Get("naturalOrder");
  if (natural.exists()) {
    const bson::ValueView order =
        natural.type() == bson::Type::kArray ? natural.Document().Get("0") : bson::ValueView();
    const bson::ValueView position =
        natural.type() == bson::Type::kArray ? natural.Document().Get("1") : bson::ValueView();
    if (order.type() != bson::Type::kInt64 || position.type() != bson::Type::kInt64 ||
        order.Int64() <= 0 || position.Int64() <= 0) {
      return Corrupt("naturalOrder of " + info.ns());
    }
    info.natural_order_index = static_cast<storage::IndexId>(order.Int64());
    info.natural_position_index = static_cast<storage::IndexId>(position.Int64());
  }
  return info;
}

}  // namespace quarry::catalog
