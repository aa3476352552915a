// WriteUnit: mutations prepared in the caller's thread, so that the commit lock only checks,
// stamps and writes.
#include "storage/write_unit.h"

#include <cstring>
#include <utility>

#include "base/check.h"
#include "base/endian.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage {
namespace {

// {ts: Timestamp(0), <the caller's elements>, wall: Date(0)}: the pipeline overwrites the two
// placeholders in place, so nothing is rebuilt under the commit lock.
std::string PrepareOplogEntry(bson::DocumentView entry) {
  std::string_view body = entry.bytes();
  body.remove_prefix(4);  // length
  body.remove_suffix(1);  // terminator
  std::size_t size = 4 + (1 + 3 + 8) + body.size() + (1 + 5 + 8) + 1;
  std::string out;
  out.reserve(size);
  AppendLittleEndian32(static_cast<std::uint32_t>(size), &out);
  out.push_back(static_cast<char>(bson::Type::kTimestamp));
  out.append("ts", 3);  // with its NUL
  out.append(8, '\0');
  out.append(body);
  out.push_back(static_cast<char>(bson::Type::kDate));
  out.append("wall", 5);
  out.append(8, '\0');
  out.push_back('\0');
  return out;
}

// Points `m` at the `o` document of its prepared oplog entry, which must be `document` itself:
// records are stored from the oplog entry and replayed from it after a crash.
void PointAtRecord(bson::DocumentView document, internal::Mutation* m) {
  bson::ValueView o = bson::DocumentView(m->oplog.data()).Get("o");
  QUARRY_CHECK(o.type() == bson::Type::kDocument && o.size() == document.bytes().size() &&
               std::memcmp(o.data(), document.bytes().data(), o.size()) == 0);
  m->record_offset = static_cast<std::size_t>(o.data() - m->oplog.data());
  m->record_size = o.size();
}

std::string RecordKey(CollectionId collection, bson::DocumentView document) {
  bson::ValueView id = document.Get("_id");
  QUARRY_CHECK(id.exists());
  std::string key = internal::CollectionPrefix(collection);
  AppendIndexKey(id, false, &key);
  return key;
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
  bytes_ += mutation.key.size() + mutation.value.size() + mutation.pre_image.size() +
            mutation.oplog.size() + 32;
  mutations_.push_back(std::move(mutation));
  return mutations_.size() - 1;
}

std::size_t WriteUnit::Insert(CollectionId collection, bson::DocumentView document,
                              bson::DocumentView oplog_entry) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kInsert;
  m.collection = collection;
  m.key = RecordKey(collection, document);
  m.oplog = PrepareOplogEntry(oplog_entry);
  PointAtRecord(document, &m);
  return Add(std::move(m));
}

std::size_t WriteUnit::Replace(CollectionId collection, std::string pre_image,
                               bson::DocumentView document, bson::DocumentView oplog_entry) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kReplace;
  m.collection = collection;
  m.key = RecordKey(collection, document);
  QUARRY_DCHECK(m.key == RecordKey(collection, bson::DocumentView(pre_image.data())));
  m.pre_image = std::move(pre_image);
  m.oplog = PrepareOplogEntry(oplog_entry);
  PointAtRecord(document, &m);
  return Add(std::move(m));
}

std::size_t WriteUnit::Delete(CollectionId collection, std::string pre_image,
                              bson::DocumentView oplog_entry) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kDelete;
  m.collection = collection;
  m.key = RecordKey(collection, bson::DocumentView(pre_image.data()));
  m.pre_image = std::move(pre_image);
  m.oplog = PrepareOplogEntry(oplog_entry);
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

std::size_t WriteUnit::AppendOplog(CollectionId collection, bson::DocumentView oplog_entry) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kOplogOnly;
  m.collection = collection;
  m.oplog = PrepareOplogEntry(oplog_entry);
  return Add(std::move(m));
}

}  // namespace quarry::storage
