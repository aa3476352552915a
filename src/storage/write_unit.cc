// WriteUnit: mutations prepared in the caller's thread, so that the commit lock only checks,
// stamps and writes.
#include "storage/write_unit.h"

#include <utility>

#include "base/check.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"
#include "storage/record_compression.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage {

std::string internal::IndexFamilyKey(const IndexEntry& entry, std::string_view id_key) {
  std::string key;
  key.reserve(sizeof(IndexId) + entry.key.size() + id_key.size());
  AppendIndexPrefix(entry.index, &key);
  key.append(entry.key);
  if (entry.unique == nullptr) key.append(id_key);
  return key;
}

namespace {

std::string RecordKey(CollectionId collection, bson::DocumentView document) {
  bson::ValueView id = document.Get("_id");
  QUARRY_CHECK(id.exists());
  std::string key = internal::CollectionPrefix(collection);
  AppendIndexKey(id, false, &key);
  return key;
}

// The stored frame `doc` was read from when it holds the whole document (RecordStore keeps a
// large record's frame with what it reads), else null.
std::shared_ptr<const std::string> WholeDocumentFrame(const bson::Document& doc) {
  const std::span<const bson::CompressedSpan> spans = doc.compressed_spans();
  if (spans.size() != 1 || spans[0].offset != 0 || spans[0].size != doc.size() ||
      spans[0].zstd_frame == nullptr || !IsCompressedRecord(*spans[0].zstd_frame)) {
    return nullptr;
  }
  return spans[0].zstd_frame;
}

std::string_view BytesOf(const std::shared_ptr<const std::string>& frame) {
  return frame == nullptr ? std::string_view() : std::string_view(*frame);
}

internal::Mutation RecordMutation(internal::MutationKind kind, CollectionId collection,
                                  std::string key, internal::LaidOutEntry entry,
                                  bson::DocumentView document, bson::DocumentView pre_image) {
  internal::Mutation m;
  m.kind = kind;
  m.collection = collection;
  m.key = std::move(key);
  m.oplog = std::move(entry.bytes);
  m.ns = entry.ns;
  m.record = entry.document;
  m.pre = entry.pre;
  if (IsCompressedRecord(m.record_bytes())) m.document.assign(document.bytes());
  // The pipeline checks the stored record against the pre-image: kept whole when the entry
  // omits it or holds it compressed.
  if (kind != internal::MutationKind::kInsert &&
      (m.pre.size == 0 || IsCompressedRecord(m.pre.In(m.oplog)))) {
    m.value.assign(pre_image.bytes());
  }
  return m;
}

}  // namespace

// The frame the pre-image was read from, or a large pre-image logged compressed (`prez`, made
// as its record was: zstd makes the same frame from the same document), is an unchanged
// record byte for byte: comparing frames then replaces inflating a multi-megabyte record. Any
// other case (a different frame need not be a different document) inflates and compares.
bool internal::StillHoldsPreImage(std::string_view stored, const internal::Mutation& m) {
  if (m.read_frame != nullptr && stored == *m.read_frame) return true;
  if (m.pre.size != 0) {
    const std::string_view logged = m.pre.In(m.oplog);
    if (IsCompressedRecord(logged) && stored == logged) return true;
  }
  return RecordHolds(stored, bson::DocumentView(m.pre_image().data()));
}

namespace {

// Moves `removed` then `added` into `m` and lays out their writes.
void AttachIndexChanges(std::vector<IndexEntry> removed, std::vector<IndexEntry> added,
                        internal::Mutation* m) {
  m->index_writes.clear();
  const std::size_t removals = removed.size();
  if (removed.empty()) {
    m->index_entries = std::move(added);
  } else {
    m->index_entries = std::move(removed);
    m->index_entries.insert(m->index_entries.end(), std::make_move_iterator(added.begin()),
                            std::make_move_iterator(added.end()));
  }
  m->index_writes.reserve(m->index_entries.size());
  for (std::size_t i = 0; i < m->index_entries.size(); ++i) {
    const IndexEntry& entry = m->index_entries[i];
    m->index_writes.push_back({.put = i >= removals,
                               .key = internal::IndexFamilyKey(entry, m->id_key()),
                               .entry = &entry});
  }
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

std::size_t WriteUnit::Add(internal::Mutation mutation, std::vector<IndexEntry> removed,
                           std::vector<IndexEntry> added) {
  if (!removed.empty() || !added.empty()) {
    AttachIndexChanges(std::move(removed), std::move(added), &mutation);
    for (const internal::IndexWrite& write : mutation.index_writes) bytes_ += write.key.size() * 2;
  }
  return Add(std::move(mutation));
}

std::size_t WriteUnit::Insert(const CollectionRef& collection, bson::DocumentView document,
                              std::vector<IndexEntry> added) {
  return Add(RecordMutation(internal::MutationKind::kInsert, collection.id,
                            RecordKey(collection.id, document),
                            internal::LayOutInsert(collection, document), document, {}),
             {}, std::move(added));
}

std::size_t WriteUnit::Update(const CollectionRef& collection, bson::DocumentView pre_image,
                              bson::DocumentView post_image, UpdateKind kind, IndexChanges index) {
  return AddUpdate(collection, pre_image, nullptr, post_image, kind, std::move(index));
}

std::size_t WriteUnit::Update(const CollectionRef& collection, const bson::Document& pre_image,
                              bson::DocumentView post_image, UpdateKind kind, IndexChanges index) {
  return AddUpdate(collection, pre_image, WholeDocumentFrame(pre_image), post_image, kind,
                   std::move(index));
}

std::size_t WriteUnit::AddUpdate(const CollectionRef& collection, bson::DocumentView pre_image,
                                 std::shared_ptr<const std::string> pre_frame,
                                 bson::DocumentView post_image, UpdateKind kind,
                                 IndexChanges index) {
  std::string key = RecordKey(collection.id, post_image);
  QUARRY_DCHECK(key == RecordKey(collection.id, pre_image));
  internal::Mutation m = RecordMutation(
      internal::MutationKind::kUpdate, collection.id, std::move(key),
      internal::LayOutUpdate(collection, pre_image, post_image, kind, BytesOf(pre_frame)),
      post_image, pre_image);
  m.read_frame = std::move(pre_frame);
  return Add(std::move(m), std::move(index.removed), std::move(index.added));
}

std::size_t WriteUnit::Delete(const CollectionRef& collection, bson::DocumentView deleted,
                              std::vector<IndexEntry> removed) {
  return AddDelete(collection, deleted, nullptr, std::move(removed));
}

std::size_t WriteUnit::Delete(const CollectionRef& collection, const bson::Document& deleted,
                              std::vector<IndexEntry> removed) {
  return AddDelete(collection, deleted, WholeDocumentFrame(deleted), std::move(removed));
}

std::size_t WriteUnit::AddDelete(const CollectionRef& collection, bson::DocumentView deleted,
                                 std::shared_ptr<const std::string> pre_frame,
                                 std::vector<IndexEntry> removed) {
  internal::Mutation m = RecordMutation(
      internal::MutationKind::kDelete, collection.id, RecordKey(collection.id, deleted),
      internal::LayOutDelete(collection, deleted, BytesOf(pre_frame)), {}, deleted);
  m.read_frame = std::move(pre_frame);
  return Add(std::move(m), std::move(removed), {});
}

std::optional<WriteUnit::RecordChange> WriteUnit::record_change(std::size_t k) const {
  const internal::Mutation& m = mutations_.at(k);
  switch (m.kind) {
    case internal::MutationKind::kInsert:
      return RecordChange{.collection = m.collection, .before = {}, .after = m.record_document()};
    case internal::MutationKind::kUpdate:
      return RecordChange{.collection = m.collection,
                          .before = bson::DocumentView(m.pre_image().data()),
                          .after = m.record_document()};
    case internal::MutationKind::kDelete:
      return RecordChange{.collection = m.collection,
                          .before = bson::DocumentView(m.pre_image().data()),
                          .after = {}};
    default:
      return std::nullopt;
  }
}

void WriteUnit::SetIndexChanges(std::size_t k, IndexChanges changes) {
  internal::Mutation& m = mutations_.at(k);
  for (const internal::IndexWrite& write : m.index_writes) bytes_ -= write.key.size() * 2;
  AttachIndexChanges(std::move(changes.removed), std::move(changes.added), &m);
  for (const internal::IndexWrite& write : m.index_writes) bytes_ += write.key.size() * 2;
}

void WriteUnit::Fail(std::size_t k, Status status) {
  QUARRY_CHECK(!status.ok());
  mutations_.at(k).failure = std::move(status);
}

std::size_t WriteUnit::DropCollectionRecords(CollectionId collection,
                                             std::vector<IndexId> indexes) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kDropCollectionRecords;
  m.collection = collection;
  m.indexes = std::move(indexes);
  return Add(std::move(m));
}

std::size_t WriteUnit::AddIndexKeys(const CollectionRef& collection, bson::DocumentView record,
                                    std::uint64_t read_point, std::vector<IndexEntry> added) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kAddIndexKeys;
  m.collection = collection.id;
  m.key = RecordKey(collection.id, record);
  m.unlogged_ns.assign(collection.ns);
  m.read_point = read_point;
  return Add(std::move(m), {}, std::move(added));
}

std::size_t WriteUnit::DropIndexKeys(IndexId index) {
  internal::Mutation m;
  m.kind = internal::MutationKind::kDropIndexKeys;
  m.indexes.push_back(index);
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
