// Index builds by external file ingestion: the load's rows, sorted and written as one table
// file, and CommitPipeline::IngestIndexKeys, which adds that file and the corrections for the
// records written meanwhile under the commit lock.
#include "storage/index_bulk_load.h"

#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <optional>
#include <system_error>
#include <thread>

#include "storage/commit_pipeline.h"
#include "storage/duplicate_key.h"
#include "storage/engine_internal.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage {
namespace {

// How far ahead of the row it writes WriteFile asks for a row's bytes: enough to cover a
// memory access, few enough to stay in the cache.
constexpr std::size_t kRowsFetchedAhead = 16;

// Removes the table files the ingestion did not take (RocksDB moves what it ingests).
struct FileRemover {
  std::vector<std::string> paths;
  ~FileRemover() {
    std::error_code ignored;
    for (const std::string& path : paths) std::filesystem::remove(path, ignored);
  }
};

}  // namespace

IndexBulkLoad::IndexBulkLoad(const CollectionRef& collection, std::vector<IndexId> indexes,
                             std::uint64_t read_point, std::size_t max_bytes)
    : collection_(collection.id),
      ns_(collection.ns),
      indexes_(std::move(indexes)),
      read_point_(read_point),
      max_bytes_(max_bytes) {
  for (IndexId index : indexes_) {
    prefixes_.push_back(internal::IndexPrefix(index));
    // Keys of a lower index id sort first: the prefix is the id, big-endian.
    ranks_.push_back(static_cast<std::uint16_t>(
        std::ranges::count_if(indexes_, [index](IndexId other) { return other < index; })));
  }
}

IndexBulkLoad::~IndexBulkLoad() = default;
IndexBulkLoad::IndexBulkLoad(IndexBulkLoad&&) noexcept = default;
IndexBulkLoad& IndexBulkLoad::operator=(IndexBulkLoad&&) noexcept = default;

char* IndexBulkLoad::Allocate(std::size_t size) {
  // Large enough that a build of millions of keys allocates a few hundred chunks.
  constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  if (size > arena_left_) {
    const std::size_t chunk = std::max(size, kChunkBytes);
    arena_.push_back(std::make_unique_for_overwrite<char[]>(chunk));
    arena_free_ = arena_.back().get();
    arena_left_ = chunk;
  }
  char* out = arena_free_;
  arena_free_ += size;
  arena_left_ -= size;
  return out;
}

bool IndexBulkLoad::Add(std::string_view id_key, std::vector<IndexEntry> entries) {
  std::vector<std::size_t> slots;  // of each entry's index in `indexes_`
  slots.reserve(entries.size());
  std::size_t added = id_key.size() + 32;
  for (const IndexEntry& entry : entries) {
    const auto slot = static_cast<std::size_t>(
        std::find(indexes_.begin(), indexes_.end(), entry.index) - indexes_.begin());
    if (slot == indexes_.size()) return false;
    slots.push_back(slot);
    added += sizeof(Row) + prefixes_[slot].size() + entry.key.size() + 2 * id_key.size() +
             entry.key_values.size();
    if (entry.unique != nullptr) added += entry.key_value.bytes().size();
  }
  if (bytes_ + added > max_bytes_) return false;
  bytes_ += added;
  const auto record = static_cast<std::uint32_t>(id_keys_.size());
  id_keys_.emplace_back(id_key);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const IndexEntry& entry = entries[i];
    const std::string_view prefix = prefixes_[slots[i]];
    const std::string_view key_value =
        entry.unique != nullptr ? entry.key_value.bytes() : std::string_view();
    // internal::IndexFamilyKey's layout, then the value, then a unique key's key_value.
    const std::string_view parts[] = {
        prefix, entry.key,        entry.unique == nullptr ? id_key : std::string_view(),
        id_key, entry.key_values, key_value};
    std::size_t size = 0;
    for (std::string_view part : parts) size += part.size();
    char* data = Allocate(size);
    char* end = data;
    for (std::string_view part : parts) end = std::copy(part.begin(), part.end(), end);
    Row row;
    row.data = data;
    row.key_size = static_cast<std::uint32_t>(prefix.size() + entry.key.size() + parts[2].size());
    row.value_size = static_cast<std::uint32_t>(id_key.size() + entry.key_values.size());
    row.record = record;
    if (entry.unique != nullptr) row.unique = UniqueSlot(entry.unique);
    row.rank = ranks_[slots[i]];
    char head[kHeadWords * 8] = {};
    std::memcpy(head, data + prefix.size(),
                std::min<std::size_t>(row.key_size - prefix.size(), sizeof head));
    for (std::size_t word = 0; word < kHeadWords; ++word) {
      for (std::size_t i = 0; i < 8; ++i) {
        row.head[word] = (row.head[word] << 8U) | static_cast<unsigned char>(head[word * 8 + i]);
      }
    }
    sorted_ = sorted_ && (rows_.empty() || !RowBefore(row, rows_.back()));
    rows_.push_back(row);
  }
  return true;
}

void IndexBulkLoad::Absorb(IndexBulkLoad part) {
  const auto record_shift = static_cast<std::uint32_t>(id_keys_.size());
  // The part's rows keep pointing into its chunks, which this load now owns; its own newest
  // chunk stays the one it allocates from.
  std::ranges::move(part.arena_, std::back_inserter(arena_));
  id_keys_.reserve(id_keys_.size() + part.id_keys_.size());
  std::ranges::move(part.id_keys_, std::back_inserter(id_keys_));
  for (Row& row : part.rows_) {
    row.record += record_shift;
    if (row.unique != 0) row.unique = UniqueSlot(part.uniques_[row.unique - 1]);
  }
  bytes_ += part.bytes_;
  const std::size_t ours = rows_.size();
  // Within the reservation when the build's estimate held: no second array of every row.
  rows_.resize(ours + part.rows_.size());
  if (!sorted_ || !part.sorted_) {
    std::ranges::copy(part.rows_, rows_.begin() + static_cast<std::ptrdiff_t>(ours));
    sorted_ = false;
    return;
  }
  // Merged from the back, into the room just made after this load's own rows.
  std::size_t out = rows_.size();
  std::size_t mine = ours;
  std::size_t theirs = part.rows_.size();
  while (theirs > 0) {
    if (mine > 0 && RowBefore(part.rows_[theirs - 1], rows_[mine - 1])) {
      rows_[--out] = rows_[--mine];
    } else {
      rows_[--out] = part.rows_[--theirs];
    }
  }
}

void IndexBulkLoad::ReserveRows(std::size_t rows) {
  rows_.reserve(std::min(rows, max_bytes_ / sizeof(Row)));
}

std::uint16_t IndexBulkLoad::UniqueSlot(const std::shared_ptr<const UniqueIndexInfo>& index) {
  auto known = std::find(uniques_.begin(), uniques_.end(), index);
  if (known == uniques_.end()) known = uniques_.insert(known, index);
  return static_cast<std::uint16_t>(known - uniques_.begin() + 1);
}

std::string_view IndexBulkLoad::KeyOf(const Row& row) const {
  return std::string_view(row.data, row.key_size);
}

std::string_view IndexBulkLoad::ValueOf(const Row& row) const {
  return std::string_view(row.data + row.key_size, row.value_size);
}

Status IndexBulkLoad::DuplicateOf(const Row& row) const {
  const UniqueIndexInfo& unique = *uniques_[row.unique - 1];
  const bson::DocumentView key_value(row.data + row.key_size + row.value_size);
  return DuplicateKeyError(ns_, unique.name, unique.key_pattern, key_value);
}

bool IndexBulkLoad::RowBefore(const Row& a, const Row& b) const {
  if (a.rank != b.rank) return a.rank < b.rank;
  for (std::size_t word = 0; word < kHeadWords; ++word) {
    if (a.head[word] != b.head[word]) return a.head[word] < b.head[word];
  }
  return KeyOf(a) < KeyOf(b);
}

void IndexBulkLoad::SortKeys() {
  if (sorted_) return;
  std::sort(rows_.begin(), rows_.end(),
            [this](const Row& a, const Row& b) { return RowBefore(a, b); });
  sorted_ = true;
}

Status IndexBulkLoad::SortCheckingUniqueKeys() {
  SortKeys();
  // Only a unique index's keys leave out the record's id key, so only they can repeat.
  const auto repeated =
      std::adjacent_find(rows_.begin(), rows_.end(),
                         [this](const Row& a, const Row& b) { return KeyOf(a) == KeyOf(b); });
  if (repeated != rows_.end()) return DuplicateOf(*std::next(repeated));
  return Status::OK();
}

StatusWith<std::vector<std::string>> IndexBulkLoad::WriteFiles(
    const internal::EngineState& state) const {
  // Below this many keys a second file is not worth its thread.
  constexpr std::size_t kKeysForTwoFiles = 100'000;
  static std::atomic<std::uint64_t> next_file{0};
  // The spill directory, which start-up empties: a crash leaves no file behind for long.
  const std::filesystem::path dir = internal::TempDirOf(state.dbpath);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status(ErrorCode::kInternalError,
                  "cannot create " + dir.string() + " for an index build: " + ec.message());
  }
  const std::size_t files =
      rows_.size() >= kKeysForTwoFiles && std::thread::hardware_concurrency() >= 2 ? 2 : 1;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < files; ++i) {
    paths.push_back((dir / ("index-build-" + std::to_string(collection_) + "-" +
                            std::to_string(next_file.fetch_add(1)) + ".sst"))
                        .string());
  }
  // The keys are distinct (a unique index's repeats were refused), so consecutive runs of
  // rows make files whose key ranges do not overlap, as one ingestion of several files needs.
  std::vector<Status> written(files);
  auto write = [&](std::size_t i) {
    written[i] =
        WriteFile(state, rows_.size() * i / files, rows_.size() * (i + 1) / files, paths[i]);
  };
  std::optional<std::thread> helper;
  if (files > 1) {
    try {
      helper.emplace(write, 1);
    } catch (const std::system_error&) {
      write(1);  // no thread could be had
    }
  }
  write(0);
  if (helper.has_value()) helper->join();
  for (const Status& status : written) {
    if (status.ok()) continue;
    for (const std::string& path : paths) std::filesystem::remove(path, ec);
    return status;
  }
  return paths;
}

Status IndexBulkLoad::WriteFile(const internal::EngineState& state, std::size_t begin,
                                std::size_t end, const std::string& path) const {
  const rocksdb::Options options = state.db->GetOptions(state.index);
  // Keeping the file's pages cached serves the first reads of the new index from memory.
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options, state.index,
                                /*invalidate_page_cache=*/false);
  rocksdb::Status s = writer.Open(path);
  for (std::size_t row = begin; s.ok() && row < end; ++row) {
    // Sorted rows point all over the arena: each key's bytes are a cache miss unless fetched
    // ahead (without this, the misses were most of the writing).
    if (row + kRowsFetchedAhead < end) {
      const Row& ahead = rows_[row + kRowsFetchedAhead];
      __builtin_prefetch(ahead.data);
      __builtin_prefetch(ahead.data + ahead.key_size + ahead.value_size - 1);
    }
    s = writer.Put(KeyOf(rows_[row]), ValueOf(rows_[row]));
  }
  if (s.ok()) s = writer.Finish();
  return internal::FromRocks(s, "writing an index build's keys");
}

Status IndexBulkLoad::AddFixups(const std::unordered_set<std::string>& changed,
                                const CurrentIndexKeys& current,
                                rocksdb::ColumnFamilyHandle* family,
                                rocksdb::WriteBatch* batch) const {
  if (changed.empty()) return Status::OK();
  for (const Row& row : rows_) {
    if (changed.contains(id_keys_[row.record])) batch->Delete(family, KeyOf(row));
  }
  for (const std::string& id_key : changed) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<IndexEntry> entries, current(id_key));
    for (const IndexEntry& entry : entries) {
      const std::string key = internal::IndexFamilyKey(entry, id_key);
      if (entry.unique != nullptr) {
        const auto read = std::lower_bound(
            rows_.begin(), rows_.end(), key,
            [this](const Row& row, const std::string& wanted) { return KeyOf(row) < wanted; });
        if (read != rows_.end() && KeyOf(*read) == key && id_keys_[read->record] != id_key &&
            !changed.contains(id_keys_[read->record])) {
          return DuplicateKeyError(ns_, entry.unique->name, entry.unique->key_pattern,
                                   entry.key_value);
        }
      }
      internal::PutIndexEntry(batch, family, key, id_key, entry.key_values);
    }
  }
  return Status::OK();
}

// Defined here rather than in commit_pipeline.cc: it is the pipeline's side of a bulk load.
Status CommitPipeline::IngestIndexKeys(IndexBulkLoad load, const CurrentIndexKeys& current) {
  QUARRY_RETURN_IF_ERROR(EnterCommit());
  LeaveCommitOnExit leave{this};
  QUARRY_RETURN_IF_ERROR(load.SortCheckingUniqueKeys());
  FileRemover files;
  if (load.keys() > 0) {
    QUARRY_ASSIGN_OR_RETURN(files.paths, load.WriteFiles(*state_));
  }

  // From here until the corrections are written no chunk commits, so the records changed
  // since the read are all known and none changes again before its keys are made current.
  std::lock_guard commit_lock(commit_mu_);
  if (dropped_.contains(load.collection_)) {
    return internal::Conflict("the collection was dropped while its index was being built");
  }
  for (IndexId index : load.indexes_) {
    if (dropped_indexes_.contains(index))
      return internal::Conflict("the index was dropped while it was built");
  }
  std::unordered_set<std::string> changed;
  if (auto tracked = tracked_.find(load.collection_); tracked != tracked_.end()) {
    const std::size_t prefix = internal::CollectionPrefix(load.collection_).size();
    for (const auto& [record_key, chunk] : tracked->second.changed) {
      if (chunk > load.read_point_) changed.insert(record_key.substr(prefix));
    }
  }
  rocksdb::WriteBatch fixups;
  QUARRY_RETURN_IF_ERROR(load.AddFixups(changed, current, state_->index, &fixups));
  if (!files.paths.empty()) {
    rocksdb::IngestExternalFileOptions options;
    options.move_files = true;
    rocksdb::Status s = state_->db->IngestExternalFile(state_->index, files.paths, options);
    if (!s.ok()) return internal::FromRocks(s, "adding an index build's keys");
  }
  if (fixups.Count() > 0) {
    rocksdb::Status s = state_->db->Write(rocksdb::WriteOptions(), &fixups);
    if (!s.ok()) return internal::FromRocks(s, "correcting an index build's keys");
  }
  return Status::OK();
}

}  // namespace quarry::storage
