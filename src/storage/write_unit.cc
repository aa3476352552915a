// WriteUnit: mutations prepared in the caller's thread, so that the commit lock only checks,
// stamps and writes.
#include "storage/write_unit.h"

#include <utility>

#include "base/check.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage {
namespace {

std::string RecordKey(CollectionId collection, bson::DocumentView document) {
  bson::ValueView id = document.Get("_id");
  QUARRY_CHECK(id.exists());
  std::string key = internal::CollectionPrefix(collection);
  AppendIndexKey(id, false, &key);
  return key;
}

internal::Mutation RecordMutation(internal::MutationKind kind, CollectionId collection,
                                  std::string key, internal::LaidOutEntry entry) {
  internal::Mutation m;
  m.kind = kind;
  m.collection = collection;
  m.key = std::move(key);
  m.oplog = std::move(entry.bytes);
  m.ns = entry.ns;
  m.record = entry.document;
  m.pre = entry.pre;
  return m;
}

// A raw put or delete in the catalog or meta family.
internal::Mutation KeyedMutation(internal::MutationKind kind, std::string key,
                                 std::string value = {}) {
  internal::Mutation m;
  m.kind = kind;
  m.key = std::move(key);
  m.value = std::move(value);
  return m;
}

}  // namespace

WriteUnit::WriteUnit() = default;
WriteUnit::~WriteUnit() = default;
WriteUnit::WriteUnit(WriteUnit&&) noexcept = default;
WriteUnit& WriteUnit::operator=(WriteUnit&&) noexcept = default;

std::size_t WriteUnit::size() const { return mutations_.size(); }

void WriteUnit::Reserve(std::size_t mutations) { mutations_.reserve(mutations); }

std::size_t WriteUnit::Add(internal::Mutation mutation) {
  bytes_ += mutation.key.size() + mutation.value.size() + mutation.oplog.size() + 32;
  mutations_.push_back(std::move(mutation));
  return mutations_.size() - 1;
}

std::size_t WriteUnit::Insert(const CollectionRef& collection, bson::DocumentView document) {
  return Add(RecordMutation(internal::MutationKind::kInsert, collection.id,
                            RecordKey(collection.id, document),
                            internal::LayOutInsert(collection, document)));
}

std::size_t WriteUnit::Update(const CollectionRef& collection, bson::DocumentView pre_image,
                              bson::DocumentView post_image, UpdateKind kind) {
  std::string key = RecordKey(collection.id, post_image);
  QUARRY_DCHECK(key == RecordKey(collection.id, pre_image));
  return Add(RecordMutation(internal::MutationKind::kUpdate, collection.id, std::move(key),
                            internal::LayOutUpdate(collection, pre_image, post_image, kind)));
}

std::size_t WriteUnit::Delete(const CollectionRef& collection, bson::DocumentView deleted) {
  internal::Mutation m = RecordMutation(internal::MutationKind::kDelete, collection.id,
                                        RecordKey(collection.id, deleted),
                                        internal::LayOutDelete(collection, deleted));
  if (m.pre.size == 0) m.value.assign(deleted.bytes());  // not logged: kept for the check
  return Add(std::move(m));
}

std::size_t WriteUnit::DropCollectionRecords(CollectionId collection) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kDropCollectionRecords;
  m.collection = collection;
  return Add(std::move(m));
}

std::size_t WriteUnit::PutCatalog(std::string key, std::string value) {
  return Add(KeyedMutation(internal::MutationKind::kPutCatalog, std::move(key), std::move(value)));
}

std::size_t WriteUnit::DeleteCatalog(std::string key) {
  return Add(KeyedMutation(internal::MutationKind::kDeleteCatalog, std::move(key)));
}

std::size_t WriteUnit::PutMeta(std::string name, std::string value) {
  return Add(KeyedMutation(internal::MutationKind::kPutMeta, std::move(name), std::move(value)));
}

std::size_t WriteUnit::DeleteMeta(std::string name) {
  return Add(KeyedMutation(internal::MutationKind::kDeleteMeta, std::move(name)));
}

std::size_t WriteUnit::LogCommand(CollectionId collection, std::string_view db,
                                  std::string_view uuid, bson::DocumentView o) {
  internal::LaidOutEntry entry = internal::LayOutCommand(db, uuid, o);
  internal::Mutation m;
  m.kind = internal::MutationKind::kOplogOnly;
  m.collection = collection;
  m.oplog = std::move(entry.bytes);
  m.ns = entry.ns;
  return Add(std::move(m));
}

void WriteUnit::SetChunkRecord(ChunkRecord record) { chunk_record_ = std::move(record); }

void WriteUnit::Tag(std::size_t mutation, std::uint64_t tag) { mutations_.at(mutation).tag = tag; }

}  // namespace quarry::storage
