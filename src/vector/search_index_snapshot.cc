// Snapshots of built search indexes, and builds that start from one: the index as it stood
// after oplog entry `through`, which the oplog after it brings up to date.
#include <filesystem>
#include <string>
#include <vector>

#include "base/log.h"
#include "storage/oplog.h"
#include "storage/oplog_entry.h"
#include "storage/record_store.h"
#include "vector/search_index_internal.h"
#include "vector/snapshot_bytes.h"
#include "vector/snapshot_file.h"

namespace quarry::vector {
namespace {

// 4: documents (with their _id) and their runs of element labels, the packed-bit graphs, and
// each graph as hnswlib's with its quantized codes. Snapshots of earlier versions are rebuilt
// from the collection.
constexpr std::uint32_t kSnapshotVersion = 4;

using Built = SearchIndexRegistry::Built;

void EncodeGraphs(const std::map<std::string, std::unique_ptr<VectorIndex>, std::less<>>& graphs,
                  SnapshotWriter& out) {
  out.U64(graphs.size());
  for (const auto& [path, graph] : graphs) {
    out.Bytes(path);
    graph->AppendTo(out);
  }
}

// Replaces each of `graphs` (already made for the definition) with the one `in` holds.
bool DecodeGraphs(SnapshotReader& in, const SearchIndexDefinition& definition, bool packed_bits,
                  const std::string& vector_file_dir,
                  std::map<std::string, std::unique_ptr<VectorIndex>, std::less<>>* graphs) {
  std::uint64_t count;
  if (!in.U64(&count) || count != graphs->size()) return false;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string_view path;
    if (!in.Bytes(&path)) return false;
    auto graph = graphs->find(path);
    if (graph == graphs->end()) return false;
    std::unique_ptr<VectorIndex> loaded = VectorIndex::ReadFrom(
        GraphOptions(*definition.FindVector(path), packed_bits, vector_file_dir), in);
    if (loaded == nullptr) return false;
    graph->second = std::move(loaded);
  }
  return true;
}

struct Copied {
  std::string path;
  std::string payload;
  std::shared_ptr<SearchIndexRegistry::Built> built;
  std::uint64_t changes = 0;
};

// REQUIRES: built.mu held; no commit is being applied.
std::string Encode(storage::CollectionId collection, const std::string& index_id,
                   const SearchIndexRegistry::Built& built, storage::Timestamp through) {
  std::string payload;
  SnapshotWriter out(&payload);
  out.U32(kSnapshotVersion);
  out.U64(collection);
  out.Bytes(index_id);
  out.U32(static_cast<std::uint32_t>(built.version));
  out.U64(through);
  out.U64(built.documents.size());
  for (std::uint32_t slot = 0; slot < built.documents.size(); ++slot) {
    out.Bytes(built.id_keys.Get(slot));
    out.Bytes(built.id_documents.Get(slot));
    out.Bytes(built.parent_filter_values.Get(slot));
    out.U64(built.documents[slot].first_label);
    out.U64(built.documents[slot].labels);
  }
  out.U64(built.document_of.size());
  for (std::size_t label = 0; label < built.document_of.size(); ++label) {
    out.Bytes(built.filter_values.Get(label));
  }
  EncodeGraphs(built.graphs, out);
  EncodeGraphs(built.bit_graphs, out);
  return payload;
}

// Fills `built` (of the same definition) from `payload`; returns the entry it covers
// through, or an error saying why the snapshot cannot be used.
StatusWith<storage::Timestamp> Decode(std::string_view payload, storage::CollectionId collection,
                                      const std::string& index_id, Built* built) {
  SnapshotReader in(payload);
  std::uint32_t format, version;
  std::uint64_t stored_collection, through, documents;
  std::string_view stored_index;
  auto unusable = [](const std::string& why) { return Status(ErrorCode::kInternalError, why); };
  if (!in.U32(&format) || format != kSnapshotVersion) return unusable("another snapshot format");
  if (!in.U64(&stored_collection) || !in.Bytes(&stored_index) || !in.U32(&version) ||
      !in.U64(&through) || !in.U64(&documents)) {
    return unusable("torn header");
  }
  if (stored_collection != collection || stored_index != index_id) {
    return unusable("a snapshot of another index");
  }
  if (static_cast<std::int32_t>(version) != built->version) {
    return unusable("a snapshot of definition version " + std::to_string(version));
  }
  ResetBuilt(*built);  // commits applied since the definition are redone from the oplog
  for (std::uint64_t slot = 0; slot < documents; ++slot) {
    std::string_view id_key, id_document, parent_values;
    std::uint64_t first_label, labels;
    if (!in.Bytes(&id_key) || !in.Bytes(&id_document) || !in.Bytes(&parent_values) ||
        !in.U64(&first_label) || !in.U64(&labels)) {
      return unusable("torn documents");
    }
    if (id_key.empty() != id_document.empty()) return unusable("a document's _id is torn");
    built->documents.push_back({first_label, static_cast<std::uint32_t>(labels)});
    built->id_keys.Append(id_key);
    built->id_documents.Append(id_document);
    built->parent_filter_values.Append(parent_values);
    if (!id_key.empty()) built->slot_of.insert(static_cast<std::uint32_t>(slot));
  }
  std::uint64_t labels;
  if (!in.U64(&labels)) return unusable("torn labels");
  built->document_of.assign(labels, Built::kNoDocument);
  for (std::uint64_t label = 0; label < labels; ++label) {
    std::string_view filter_values;
    if (!in.Bytes(&filter_values)) return unusable("torn labels");
    built->filter_values.Append(filter_values);
  }
  for (std::uint32_t slot = 0; slot < built->documents.size(); ++slot) {
    const Built::IndexedDocument& document = built->documents[slot];
    if (document.first_label + document.labels > labels) return unusable("a label out of range");
    for (std::uint32_t i = 0; i < document.labels; ++i) {
      built->document_of[document.first_label + i] = slot;
    }
  }
  if (!DecodeGraphs(in, built->definition, false, built->vector_file_dir, &built->graphs) ||
      !DecodeGraphs(in, built->definition, true, built->vector_file_dir, &built->bit_graphs)) {
    return unusable("torn graph or other vector paths");
  }
  if (!in.done()) return unusable("trailing bytes");
  return through;
}

}  // namespace

std::string SearchIndexRegistry::SnapshotPath(storage::CollectionId collection,
                                              const std::string& index_id) const {
  return snapshot_dir_ + "/" + std::to_string(collection) + "-" + index_id + ".snapshot";
}

void SearchIndexRegistry::RemoveSnapshot(storage::CollectionId collection,
                                         const std::string& index_id) const {
  if (snapshot_dir_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove(SnapshotPath(collection, index_id), ignored);
}

void SearchIndexRegistry::SaveSnapshots() {
  if (snapshot_dir_.empty()) return;
  std::vector<Copied> copies;
  {
    // Exclusive: no commit is half applied, so every index stands exactly after `through`.
    std::unique_lock lock(mu_);
    const storage::Timestamp through = applied_through_.load();
    for (const auto& [collection, entries] : indexes_) {
      for (const auto& [index_id, entry] : entries) {
        const std::shared_ptr<Built>& built = entry->serving;
        // The inverted index of strings is rebuilt from the records instead.
        if (built == nullptr || built->full_text != nullptr) continue;
        std::shared_lock built_lock(built->mu);
        if (built->changes == built->saved_changes) continue;
        copies.push_back({SnapshotPath(collection, index_id),
                          Encode(collection, index_id, *built, through), built, built->changes});
      }
    }
  }
  if (copies.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(snapshot_dir_, error);
  for (Copied& copy : copies) {
    Status written = WriteSnapshotFile(copy.path, copy.payload);
    if (!written.ok()) {
      log::Write(log::Severity::kWarning, "QUERY", 7828401, "SearchIndexSnapshot",
                 "Could not write a search index snapshot", {{"error", written.ToString()}});
      continue;
    }
    std::unique_lock built_lock(copy.built->mu);
    copy.built->saved_changes = copy.changes;
  }
}

Status SearchIndexRegistry::CopySnapshotsTo(const std::string& dir) const {
  if (snapshot_dir_.empty()) return Status::OK();
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(snapshot_dir_, error)) return Status::OK();
  fs::create_directories(dir, error);
  if (!error) fs::permissions(dir, fs::perms::owner_all, error);
  if (error) {
    return Status(ErrorCode::kInvalidPath, "cannot create " + dir + ": " + error.message());
  }
  for (const fs::directory_entry& file : fs::directory_iterator(snapshot_dir_, error)) {
    if (file.path().extension() != ".snapshot") continue;  // not a .tmp being written
    const fs::path target = fs::path(dir) / file.path().filename();
    // A snapshot is replaced by a rename, so the copy reads one whole file or the other.
    fs::copy_file(file.path(), target, fs::copy_options::overwrite_existing, error);
    if (!error) fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write, error);
    if (error) {
      return Status(ErrorCode::kInvalidPath,
                    "cannot copy " + file.path().string() + ": " + error.message());
    }
  }
  if (error) {
    return Status(ErrorCode::kInvalidPath, "cannot list " + snapshot_dir_ + ": " + error.message());
  }
  return Status::OK();
}

bool SearchIndexRegistry::LoadSnapshot(const Pending& pending) {
  if (snapshot_dir_.empty() || pending.built->definition.full_text.has_value()) return false;
  const std::string path = SnapshotPath(pending.collection, pending.index_id);
  StatusWith<std::string> payload = ReadSnapshotFile(path);
  if (payload.status().code() == ErrorCode::kNoSuchKey) return false;
  Built& built = *pending.built;
  auto rebuild = [&](std::string_view why) {
    log::Write(log::Severity::kInfo, "QUERY", 7828402, "SearchIndexBuild",
               "Building a search index from its collection: its snapshot cannot be used",
               {{"snapshot", path}, {"reason", std::string(why)}});
    // Back to an empty index of the same definition.
    std::unique_lock lock(built.mu);
    built.changed_during_build.clear();  // the scan reads what those commits wrote
    ResetBuilt(built);
    return false;
  };
  if (!payload.ok()) return rebuild(payload.status().reason());
  storage::Timestamp through = 0;
  {
    std::unique_lock lock(built.mu);
    // Commits since the index was defined reached it already and are redone below from the
    // oplog anyway; from here on, a commit marks its record so the replay leaves it alone.
    built.changed_during_build.clear();
    StatusWith<storage::Timestamp> decoded =
        Decode(payload.value(), pending.collection, pending.index_id, &built);
    if (!decoded.ok()) {
      lock.unlock();
      return rebuild(decoded.status().reason());
    }
    through = decoded.value();
    built.saved_changes = built.changes;  // what the file holds; the replay adds to it
  }
  if (oplog_->TrimmedBefore() > through + 1) {
    return rebuild("the oplog no longer holds every entry after it");
  }
  // A snapshot copied from a running server after its database (a backup) may stand after the
  // oplog's end: it holds changes this database never had.
  if (through > oplog_->LatestTimestamp()) {
    return rebuild("it is newer than the oplog's last entry");
  }
  std::uint64_t replayed = 0;
  std::unique_ptr<storage::OplogCursor> cursor = oplog_->Scan(through + 1);
  for (; cursor->Valid(); cursor->Next()) {
    bson::ValueView ui = cursor->entry().Get("ui");
    if (ui.type() != bson::Type::kBinary || ui.Binary().data != pending.collection_uuid) continue;
    StatusWith<storage::OplogEntry> entry = storage::ParseOplogEntry(cursor->entry());
    if (!entry.ok()) return rebuild(entry.status().reason());
    const std::string_view op = entry.value().op;
    if (op != "i" && op != "u" && op != "d") continue;
    bson::DocumentView document = entry.value().o;
    const std::string id_key = storage::EncodeIdKey(document.Get("_id"));
    std::unique_lock lock(built.mu);
    if (built.changed_during_build.contains(id_key)) continue;
    ApplyToBuilt(built, id_key, op == "d" ? nullptr : &document);
    ++replayed;
  }
  if (!cursor->status().ok()) return rebuild(cursor->status().reason());
  log::Write(log::Severity::kInfo, "QUERY", 7828403, "SearchIndexBuild",
             "Loaded a search index from its snapshot",
             {{"snapshot", path}, {"through", through}, {"replayed", replayed}});
  return true;
}

}  // namespace quarry::vector
